package guard

import "strings"

// MatchPhrase reports the first of phrases found in text, both compared in
// Canonical form, so that look-alike letters, full-width forms, zero-width
// characters and case do not hide a phrase. A phrase matches whole words
// only ("stop" is not in "stopped"), but the words of the text may be
// spelt out with separators ("s t o p", "s.t.o.p", "s-t-o-p") or run
// together ("goaway" for "go away"). A phrase with no letter, digit or
// symbol never matches.
func MatchPhrase(text string, phrases []string) (phrase string, ok bool) {
	ts := words(text)
	for _, p := range phrases {
		target := joined(p)
		for i := range ts {
			if matchAt(ts, i, target) > 0 {
				return p, true
			}
		}
	}
	return "", false
}

// HandleKey is the form in which handles are compared: Canonical, without
// a leading @ and surrounding spaces. Handles that look alike
// ("@Infernal", "@ｉｎｆｅｒｎａｌ", "@inferna1") have the same key.
// Case is folded before the skeleton, as handles ignore case: "lnfernal"
// and "Infernal" differ, as "lnfernal" and "infernal" do.
func HandleKey(handle string) string {
	return strings.TrimPrefix(strings.TrimSpace(Canonical(handle)), "@")
}

// SameHandle reports whether two handles are the same or look alike, as
// HandleKey compares them: the guard against the persona's own posts and
// against impersonations of a blocked author.
func SameHandle(a, b string) bool {
	ka := HandleKey(a)
	return ka != "" && ka == HandleKey(b)
}

// BlockedAuthor reports the first of blocked that is the same handle as
// author, as SameHandle compares them.
func BlockedAuthor(author string, blocked []string) (handle string, ok bool) {
	key := HandleKey(author)
	if key == "" {
		return "", false
	}
	for _, b := range blocked {
		if HandleKey(b) == key {
			return b, true
		}
	}
	return "", false
}
