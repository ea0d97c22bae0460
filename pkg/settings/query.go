package settings

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxSearchQueryLength is the longest query X's recent search accepts from
// a self-serve (pay-per-use) app, in characters; Enterprise apps may send
// 4,096, but the topics must work on every access level.
const MaxSearchQueryLength = 512

// searchSuffix leaves retweets out: they repeat a post the persona would
// answer at its source.
const searchSuffix = " -is:retweet"

// bareTerm is a topic X reads as one keyword, hashtag, cashtag or mention
// as it is; anything else (spaces, punctuation, a leading "-" that would
// negate it) is searched as a quoted phrase.
var bareTerm = regexp.MustCompile(`^[#$@]?[\p{L}\p{N}_]+$`)

// SearchQuery builds the conversation scan's X search from topics: each
// topic a keyword, or a quoted phrase when it holds more than one word or
// any punctuation, all joined by OR, retweets left out:
//
//	(monday OR "cold brew" OR #gym) -is:retweet
//
// No topics give "" (no search). A topic X cannot search (a double quote,
// which a phrase cannot hold) or one that makes the query longer than
// MaxSearchQueryLength is refused with a *FieldError naming it; nothing is
// trimmed silently.
func SearchQuery(topics []string) (string, error) {
	if len(topics) == 0 {
		return "", nil
	}
	terms := make([]string, 0, len(topics))
	for i, t := range topics {
		switch {
		case strings.Contains(t, `"`):
			return "", &FieldError{fmt.Sprintf("search_topics[%d]", i), "must not contain a double quote (X cannot search it in a phrase)"}
		// X's operators are upper-case words: a bare OR or AND would join, not match.
		case bareTerm.MatchString(t) && t != "OR" && t != "AND":
			terms = append(terms, t)
		default:
			terms = append(terms, `"`+t+`"`)
		}
		if n := utf8.RuneCountInString(joinTerms(terms)); n > MaxSearchQueryLength {
			return "", &FieldError{fmt.Sprintf("search_topics[%d]", i), fmt.Sprintf(
				"makes the search %d characters long, more than X's %d: remove or shorten topics", n, MaxSearchQueryLength)}
		}
	}
	return joinTerms(terms), nil
}

// joinTerms is the query of terms: one alone, several ORed in parentheses.
func joinTerms(terms []string) string {
	if len(terms) == 1 {
		return terms[0] + searchSuffix
	}
	return "(" + strings.Join(terms, " OR ") + ")" + searchSuffix
}
