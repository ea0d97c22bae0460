// Package persona is the character the persona writes as, as the operator
// edits it: a name, a bio, a voice, example posts and topics to stay away
// from. It lives in PostgreSQL, one row per version; Default is version 1,
// today's built-in persona, seeded on first start. The hard rules (safety,
// quoting, answer format, length) are not part of it: they stay in the
// writers' code, after and above the operator's text.
package persona

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/twittertext"
)

// Limits on the persona's fields.
const (
	// MaxName is the longest name, in characters.
	MaxName = 50
	// MaxBio is the longest bio, in characters.
	MaxBio = 1000
	// MaxVoice is the longest voice, in characters.
	MaxVoice = 4000
	// MaxExamples is the most example posts.
	MaxExamples = 20
	// MaxAvoidTopics is the most topics to avoid.
	MaxAvoidTopics = 50
	// MaxAvoidTopic is the longest topic to avoid, in characters.
	MaxAvoidTopic = 100
)

// Persona is one version of the persona, in the shape of GET /api/persona.
type Persona struct {
	// Version numbers the versions from 1; zero for a persona not stored
	// (a preview's, or one about to be stored).
	Version int `json:"version"`
	// Name is what the persona calls itself.
	Name string `json:"name"`
	// Bio says who the persona is, in a few sentences.
	Bio string `json:"bio"`
	// Voice says how the persona writes; it must not be empty.
	Voice string `json:"voice"`
	// Examples are posts in the persona's voice, each within the platform's
	// weighted limit; never nil.
	Examples []string `json:"examples"`
	// AvoidTopics are subjects the persona stays away from; never nil.
	AvoidTopics []string `json:"avoid_topics"`
	// UpdatedAt is when the version was stored.
	UpdatedAt time.Time `json:"updated_at"`
}

// Default returns the built-in persona, version 1 of a fresh install: the
// voice the model writer's prompt carried before the persona was data.
func Default() Persona {
	return Persona{
		Version: 1,
		Name:    "Infernal",
		Bio: "An AI persona who writes as a witty demon straight out of hell. Mortals summon you by mentioning your account, " +
			"you join their conversations, and you share your own thoughts on your profile.",
		Voice: strings.Join([]string{
			"- Witty, dark humour, playful menace. Hell, sin, brimstone and paperwork of the damned are your props.",
			"- Make an unexpected connection: link the mortal's topic to something surprising (history, physics, mythology, bureaucracy, the afterlife).",
			"- A little chaos is welcome. Be concise and punchy: one or two sentences usually land best.",
			"- At most one emoji and at most one hashtag.",
		}, "\n"),
		Examples: []string{
			"Pride comes before the fall. I know, I was there.",
			"Your soul's credit score dropped three points reading this. Greed is doing the compound interest.",
			"Noted, mortal. Monday has been added to your permanent record. The ink is still warm.",
		},
		AvoidTopics: []string{},
	}
}

// Normalize returns p cleaned for storage (text trimmed, empty list entries
// dropped, nil lists made empty, Version and UpdatedAt cleared), or its
// first bad field as a *settings.FieldError naming the JSON path ("voice",
// "examples[3]") for the API's 400.
func (p Persona) Normalize() (Persona, error) {
	p.Version, p.UpdatedAt = 0, time.Time{}
	p.Name, p.Bio, p.Voice = strings.TrimSpace(p.Name), strings.TrimSpace(p.Bio), strings.TrimSpace(p.Voice)
	for _, f := range []struct {
		name, value string
		max         int
		oneLine     bool
	}{
		{"name", p.Name, MaxName, true}, {"bio", p.Bio, MaxBio, false}, {"voice", p.Voice, MaxVoice, false},
	} {
		if err := checkText(f.name, f.value, f.max, f.oneLine); err != nil {
			return Persona{}, err
		}
	}
	if p.Voice == "" {
		return Persona{}, &settings.FieldError{Field: "voice", Problem: "must not be empty"}
	}
	var err error
	if p.Examples, err = list("examples", p.Examples, MaxExamples, func(field, e string) error {
		if err := checkText(field, e, 0, false); err != nil {
			return err
		}
		if n := twittertext.WeightedLength(e); n > twittertext.MaxLength {
			return &settings.FieldError{Field: field, Problem: fmt.Sprintf("is %d weighted characters, more than %d", n, twittertext.MaxLength)}
		}
		return nil
	}); err != nil {
		return Persona{}, err
	}
	if p.AvoidTopics, err = list("avoid_topics", p.AvoidTopics, MaxAvoidTopics, func(field, t string) error {
		return checkText(field, t, MaxAvoidTopic, true)
	}); err != nil {
		return Persona{}, err
	}
	return p, nil
}

// checkText refuses text that is not valid UTF-8, holds control characters
// or bidirectional overrides (post.CheckText), a line break when oneLine,
// or is longer than max characters (no limit when max is zero).
func checkText(field, text string, max int, oneLine bool) error {
	if oneLine && strings.ContainsAny(text, "\n\r") {
		return &settings.FieldError{Field: field, Problem: "must be one line"}
	}
	if err := post.CheckText(text); err != nil {
		return &settings.FieldError{Field: field, Problem: err.Error()}
	}
	if n := utf8.RuneCountInString(text); max > 0 && n > max {
		return &settings.FieldError{Field: field, Problem: fmt.Sprintf("is %d characters, more than %d", n, max)}
	}
	return nil
}

// list trims the entries of a list named field, drops the empty ones and
// checks the rest with check; a list of more than max entries is refused.
func list(field string, in []string, max int, check func(field, entry string) error) ([]string, error) {
	if len(in) > max {
		return nil, &settings.FieldError{Field: field, Problem: fmt.Sprintf("holds %d entries, more than %d", len(in), max)}
	}
	out := make([]string, 0, len(in))
	for i, e := range in {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if err := check(fmt.Sprintf("%s[%d]", field, i), e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
