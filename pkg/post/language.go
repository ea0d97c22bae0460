package post

import "strings"

// MaxLanguage is the longest language tag kept: BCP 47's advice for the
// tags an implementation must be able to hold (RFC 5646, 4.4.1).
const MaxLanguage = 35

// ParseLanguage reads tag, a post's language as a platform gives it (X's
// lang, Bluesky's langs, Mastodon's language: BCP 47 tags such as "en",
// "pt-BR" or "zh-Hant"), in BCP 47's conventional case (a lower-case
// language, a title-case script, an upper-case region). A tag that names
// no language — empty, "und" (undetermined), "zxx" (no linguistic
// content), or the codes X gives a post of media, mentions, hashtags or
// cashtags alone ("qme", "qam", "qht", "qct", "qst": ISO 639's range
// qaa–qtz, kept for local use) — is "" and ok; a tag of another shape is
// not ok.
func ParseLanguage(tag string) (lang string, ok bool) {
	tag = strings.TrimSpace(tag)
	if tag == "" {
		return "", true
	}
	if len(tag) > MaxLanguage {
		return "", false
	}
	subtags := strings.Split(strings.ReplaceAll(tag, "_", "-"), "-")
	for i, s := range subtags {
		if !alphanumeric(s) || len(s) > 8 || (i == 0 && (len(s) < 2 || !letters(s))) {
			return "", false
		}
		s = strings.ToLower(s)
		// The first subtag is the language; after it, but never after a
		// singleton (an extension or private use), two letters are a
		// region and four a script.
		switch {
		case i > 0 && len(subtags[i-1]) > 1 && len(s) == 2 && letters(s):
			s = strings.ToUpper(s)
		case i > 0 && len(subtags[i-1]) > 1 && len(s) == 4 && letters(s):
			s = strings.ToUpper(s[:1]) + s[1:]
		}
		subtags[i] = s
	}
	if primary := subtags[0]; primary == "und" || primary == "zxx" || (len(primary) == 3 && primary >= "qaa" && primary <= "qtz") {
		return "", true
	}
	return strings.Join(subtags, "-"), true
}

// Language is tag as ParseLanguage reads it, "" when it names no
// language or is malformed: a platform's word on a post's language is
// kept only when it is one.
func Language(tag string) string {
	lang, _ := ParseLanguage(tag)
	return lang
}

// PrimaryLanguage is lang's language subtag alone ("pt" of "pt-BR"), ""
// for "".
func PrimaryLanguage(lang string) string {
	primary, _, _ := strings.Cut(Language(lang), "-")
	return primary
}

func alphanumeric(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func letters(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}
