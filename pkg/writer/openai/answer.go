package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"infernal/pkg/post"
	"infernal/pkg/writer"
)

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
	codeFence  = regexp.MustCompile("(?s)^```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?```$")
)

// parseAnswer reads a model's answer: a JSON object with the response and
// its category, possibly in a code fence or after a reasoning model's
// <think> block, or bare text. It returns the trimmed text and the label,
// which is empty for a bare answer; an answer that starts as a JSON object
// but does not parse is an error.
func parseAnswer(content string) (text, label string, err error) {
	s := strings.TrimSpace(thinkBlock.ReplaceAllString(content, ""))
	if strings.HasPrefix(s, "<think>") {
		return "", "", errors.New("answer is cut off in the model's reasoning")
	}
	if m := codeFence.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	if strings.HasPrefix(s, "{") {
		text, label, ok := parseJSONAnswer(s)
		if !ok {
			return "", "", fmt.Errorf("answer is not the JSON asked for: %.80q", s)
		}
		return text, label, nil
	}
	// Some models chat before the object: "Sure! {...}".
	if i, j := strings.Index(s, "{"), strings.LastIndex(s, "}"); i >= 0 && j > i {
		if text, label, ok := parseJSONAnswer(s[i : j+1]); ok {
			return text, label, nil
		}
	}
	return unquote(s), "", nil
}

// parseJSONAnswer reads {"response": ..., "category": ...}, accepting the
// other names models tend to use for the two fields.
func parseJSONAnswer(s string) (text, label string, ok bool) {
	var fields map[string]any
	if err := json.Unmarshal([]byte(s), &fields); err != nil {
		return "", "", false
	}
	lower := make(map[string]any, len(fields))
	for k, v := range fields {
		lower[strings.ToLower(k)] = v
	}
	text, found := firstString(lower, "response", "reply", "text", "tweet", "post", "content", "message")
	if !found {
		return "", "", false
	}
	label, _ = firstString(lower, "category", "sin", "label", "deadly_sin")
	return strings.TrimSpace(text), label, true
}

func firstString(m map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			s, isString := v.(string)
			return s, isString || v == nil
		}
	}
	return "", false
}

// unquote drops the quotes a model sometimes wraps a bare answer in.
func unquote(s string) string {
	for _, q := range [][2]string{{`"`, `"`}, {"\u201c", "\u201d"}, {"'", "'"}} {
		if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) &&
			!strings.Contains(s[len(q[0]):len(s)-len(q[1])], q[0]) {
			return strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
		}
	}
	return s
}

// sinWords maps the words a model may label a post with to its sin.
func sinWords() map[string]post.Category {
	return map[string]post.Category{
		"proud": "pride", "vanity": "pride", "hubris": "pride", "arrogance": "pride",
		"greedy": "greed", "avarice": "greed", "avaricious": "greed",
		"wrathful": "wrath", "anger": "wrath", "angry": "wrath", "rage": "wrath",
		"envious": "envy", "jealousy": "envy", "jealous": "envy",
		"lustful": "lust", "desire": "lust",
		"gluttonous": "gluttony", "glutton": "gluttony",
		"slothful": "sloth", "laziness": "sloth", "lazy": "sloth", "acedia": "sloth",
	}
}

// categorize turns the model's label into a sin: the label itself, in any
// case and with stray punctuation; else the first sin or sin word among its
// words; else keyword cues in the post, the answer and then the context
// texts; else pride.
func categorize(label, postText, answer string, contextTexts ...string) post.Category {
	words := strings.FieldsFunc(strings.ToLower(label), func(r rune) bool {
		return r < 'a' || r > 'z'
	})
	if c, err := post.ParseCategory(strings.Join(words, "")); err == nil {
		return c
	}
	synonyms := sinWords()
	for _, w := range words {
		if c, err := post.ParseCategory(w); err == nil {
			return c
		}
		if c, ok := synonyms[w]; ok {
			return c
		}
	}
	if c, ok := writer.Classify(postText); ok {
		return c
	}
	if c, ok := writer.Classify(answer); ok {
		return c
	}
	for _, t := range contextTexts {
		if c, ok := writer.Classify(t); ok {
			return c
		}
	}
	return "pride"
}

// subjects returns the texts of the context posts the mortal's post may be
// about, best first: the quoted post, the parent, then the ancestors,
// newest first; never the persona's own.
func subjects(posts []writer.ContextPost) []string {
	var out []string
	for _, rel := range []writer.Relation{writer.RelationQuoted, writer.RelationParent, writer.RelationAncestor} {
		for i := len(posts) - 1; i >= 0; i-- {
			if posts[i].Relation == rel {
				out = append(out, posts[i].Text)
			}
		}
	}
	return out
}
