// Package corpus holds the mortal posts the sandbox platform draws from,
// written for this project: mentions of the persona, posts on the topics a
// conversation search finds, and posts of a few targeted accounts, in a dozen
// languages and every length up to the platform's limit, with emoji, links
// and hashtags; and the words of conversations: replies inside a thread,
// thin mentions that call the persona into one, and comments quoting a post.
// The data is the embedded file corpus.json.
package corpus

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

//go:embed corpus.json
var corpusFile []byte

// The kinds of entry.
const (
	// KindMention is a post that mentions the persona: its text holds Placeholder.
	KindMention = "mention"
	// KindTopic is a post a search for conversations finds.
	KindTopic = "topic"
	// KindTarget is a post of one of the targeted accounts (TargetUsernames).
	KindTarget = "target"
	// KindThread is a mortal's reply to another mortal's post, written to
	// answer any post of its language (it never mentions the persona).
	KindThread = "thread"
	// KindSummon is a thin mention that calls the persona into a thread
	// ("@{persona} thoughts?"): it holds Placeholder and makes sense only
	// with the posts it answers.
	KindSummon = "summon"
	// KindQuote is a short comment quoting another post, written to fit any
	// post of its language.
	KindQuote = "quote"
)

// KnownKind reports whether kind is one of the kinds of entry.
func KnownKind(kind string) bool {
	switch kind {
	case KindMention, KindTopic, KindTarget, KindThread, KindSummon, KindQuote:
		return true
	}
	return false
}

// mentions reports whether an entry of kind holds Placeholder.
func mentions(kind string) bool {
	return kind == KindMention || kind == KindSummon
}

// Placeholder stands for the persona's mention in the text of a KindMention
// or KindSummon entry; Entry.TextFor replaces it with "@" and the persona's handle.
const Placeholder = "@{persona}"

// TargetUsernames returns the usernames of the accounts whose posts are the
// KindTarget entries, for a sandbox's targeted scans (TARGET_USERNAMES).
func TargetUsernames() []string {
	return []string{"hustle_harold", "crypto_cassie", "guru_gwen", "techbro_tyler"}
}

// Entry is one mortal post.
type Entry struct {
	// Username is the author's handle, without the @.
	Username string
	// Name is the author's display name.
	Name string
	// Lang is the post's language as an ISO 639-1 code ("en", "ja").
	Lang string
	// Kind is one of the kinds of entry (KnownKind).
	Kind string
	// Text is the post; for a mention or a summon it holds Placeholder.
	Text string
}

// TextFor returns the entry's text as posted in a world where the persona's
// handle (without the @) is handle.
func (e Entry) TextFor(handle string) string {
	return strings.ReplaceAll(e.Text, Placeholder, "@"+strings.TrimPrefix(handle, "@"))
}

// file is the shape of corpus.json: the accounts once, and their posts.
type file struct {
	Accounts []struct {
		Username string `json:"username"`
		Name     string `json:"name"`
		Lang     string `json:"lang"`
		Target   bool   `json:"target"`
	} `json:"accounts"`
	Posts []struct {
		Author string `json:"author"`
		Kind   string `json:"kind"`
		Text   string `json:"text"`
		// Lang overrides the author's language for this post.
		Lang string `json:"lang"`
	} `json:"posts"`
}

// handlePattern is what X allows in a handle.
var handlePattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,15}$`)

// Load parses the embedded corpus and returns its entries in file order, a
// fresh slice at every call. It fails if the file is malformed: an unknown
// author or kind, an empty text, Placeholder in other entries than mentions
// and summons or missing from one of them, a targeted account that is not in
// TargetUsernames (or the other way round), or a targeted account writing
// anything but its own posts.
func Load() ([]Entry, error) {
	return parse(corpusFile)
}

func parse(data []byte) ([]Entry, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	targets := map[string]bool{}
	for _, u := range TargetUsernames() {
		targets[u] = true
	}
	type account struct {
		name, lang string
		target     bool
	}
	accounts := map[string]account{}
	for i, a := range f.Accounts {
		switch {
		// Handles as X allows them, so that the settings take the targeted ones.
		case !handlePattern.MatchString(a.Username):
			return nil, fmt.Errorf("corpus: account %d: bad username %q (1 to 15 letters, digits or underscores)", i, a.Username)
		case a.Name == "" || a.Lang == "":
			return nil, fmt.Errorf("corpus: account %q: name and lang are required", a.Username)
		case a.Target != targets[a.Username]:
			return nil, fmt.Errorf("corpus: account %q: target is %v, but TargetUsernames says %v", a.Username, a.Target, targets[a.Username])
		}
		if _, dup := accounts[a.Username]; dup {
			return nil, fmt.Errorf("corpus: account %q listed twice", a.Username)
		}
		accounts[a.Username] = account{name: a.Name, lang: a.Lang, target: a.Target}
	}
	for u := range targets {
		if _, ok := accounts[u]; !ok {
			return nil, fmt.Errorf("corpus: target %q has no account", u)
		}
	}
	entries := make([]Entry, 0, len(f.Posts))
	for i, p := range f.Posts {
		a, ok := accounts[p.Author]
		switch {
		case !ok:
			return nil, fmt.Errorf("corpus: post %d: unknown author %q", i, p.Author)
		case strings.TrimSpace(p.Text) == "":
			return nil, fmt.Errorf("corpus: post %d: empty text", i)
		case !KnownKind(p.Kind):
			return nil, fmt.Errorf("corpus: post %d: unknown kind %q", i, p.Kind)
		case mentions(p.Kind) != strings.Contains(p.Text, Placeholder):
			return nil, fmt.Errorf("corpus: post %d: a %s must hold %s exactly when it is a mention or a summon", i, p.Kind, Placeholder)
		case (p.Kind == KindTarget) != a.target:
			return nil, fmt.Errorf("corpus: post %d: a %s by %q, whose target flag is %v", i, p.Kind, p.Author, a.target)
		}
		lang := a.lang
		if p.Lang != "" {
			lang = p.Lang
		}
		entries = append(entries, Entry{Username: p.Author, Name: a.name, Lang: lang, Kind: p.Kind, Text: p.Text})
	}
	return entries, nil
}
