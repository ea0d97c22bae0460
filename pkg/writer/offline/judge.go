package offline

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/writer"
)

// Judge gives a deterministic second opinion on draft, written for req,
// with no model: it starts from 5 and takes the worst of its findings, in
// this order of weight: an empty draft (1), an outbound check's flag such
// as a link or a stranger's mention (2), a topic the persona avoids (2), a
// draft over the platform's limit (2), a near-duplicate of the persona's
// own earlier reply in the conversation (2), a reply sharing no word with
// the post it answers (3). A learned lesson it can check (see learned)
// that the draft breaks scores 2 when learned from a rejection, else 3; a
// draft that contradicts the knowledge base's facts (see contradiction) 2. The same request and draft always get the same
// review, by "offline".
func (w *Writer) Judge(ctx context.Context, req writer.Request, draft string) (post.Review, error) {
	if err := ctx.Err(); err != nil {
		return post.Review{}, fmt.Errorf("offline: judge: %w", err)
	}
	score, reason := judge(req, strings.TrimSpace(draft), w.persona)
	return post.Review{Score: score, Reason: reason, By: Name}, nil
}

// judge scores draft for req; handle is the persona's handle when req
// names none.
func judge(req writer.Request, draft, handle string) (int, string) {
	if draft == "" {
		return 1, "the draft is empty"
	}
	if req.Persona != "" {
		handle = req.Persona
	}
	if flags := guard.ReplyFlags(draft, req.Author, req.PostText, handle); len(flags) > 0 {
		return 2, fmt.Sprintf("unsafe to post as it is: %s", strings.Join(guard.Strings(flags), ", "))
	}
	if topic, ok := guard.MatchPhrase(draft, writer.CharacterOf(req).AvoidTopics); ok {
		return 2, fmt.Sprintf("touches %q, a topic the persona avoids", topic)
	}
	// The draft as it is sent (a Mastodon reply with its "@author "),
	// counted by the platform's rule against its whole limit.
	length := writer.LengthOf(req)
	sent := draft
	if req.Kind == writer.KindReply {
		sent = post.PrefixReply(req.Platform, req.Author, draft)
	}
	if n, max := length.Count(sent), length.Room+length.Prefix; n > max {
		return 2, fmt.Sprintf("too long: %d %s, more than %d", n, length.Unit(), max)
	}
	var own []string
	for _, c := range req.Context {
		if c.Relation == writer.RelationPersona {
			own = append(own, c.Text)
		}
	}
	if _, _, dup := guard.NearDuplicate(draft, own, guard.DefaultNearDuplicateThreshold); dup {
		return 2, "repeats the persona's own earlier reply in this conversation"
	}
	if why := contradiction(req, draft); why != "" {
		return 2, why
	}
	for _, l := range req.Lessons {
		if broken(l.Text, draft, length.Rule) {
			if l.Rejection {
				return 2, fmt.Sprintf("breaks a lesson learned from a rejection: %s", l.Text)
			}
			return 3, fmt.Sprintf("breaks a learned lesson: %s", l.Text)
		}
	}
	if req.Kind == writer.KindReply && strings.TrimSpace(req.PostText) != "" && !sharesWord(draft, req.PostText) {
		return 3, "in character, but picks up nothing the mortal said"
	}
	return 5, "in character, answers the post, clean and fresh"
}

// sharesWord reports whether a and b have a word of four letters or more
// in common, ignoring case.
func sharesWord(a, b string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	seen := map[string]bool{}
	for _, w := range split(b) {
		if len([]rune(w)) >= 4 {
			seen[w] = true
		}
	}
	for _, w := range split(a) {
		if seen[w] {
			return true
		}
	}
	return false
}
