package writer

import "infernal/pkg/post"

// Length is how the platform of a request counts the text asked for, and
// how much of it the text may take: what both writers tell the model, or
// keep to, and what Compose checks.
type Length struct {
	// Rule is the platform's length rule (its descriptor's).
	Rule post.LengthRule
	// Room is the most the text may count: the limit (Request.MaxLength,
	// else the platform's own) less Prefix.
	Room int
	// Prefix is what the "@author " a reply is sent with counts, on a
	// platform whose replies start with it (post.PrefixReply); 0 elsewhere
	// and for a profile post.
	Prefix int
}

// LengthOf is the Length of req's platform ("" is X's).
func LengthOf(req Request) Length {
	d := post.DescriptorOf(req.Platform)
	limit := req.MaxLength
	if limit <= 0 {
		limit = d.MaxLength
	}
	l := Length{Rule: d.Length, Room: limit}
	if req.Kind == KindReply {
		// The prefix counts as much as the prefixed text counts more.
		l.Prefix = d.Length.Count(post.PrefixReply(req.Platform, req.Author, "x")) - d.Length.Count("x")
		l.Room = max(1, limit-l.Prefix)
	}
	return l
}

// Count is text's length under l's rule.
func (l Length) Count(text string) int { return l.Rule.Count(text) }

// Previous is the length of req.PreviousDraft as the text alone counts,
// without the prefix: req.PreviousLength (which Compose measures with it)
// less Prefix, or counted when unset; 0 without a previous draft.
func (l Length) Previous(req Request) int {
	if req.PreviousDraft == "" {
		return 0
	}
	if req.PreviousLength > 0 {
		return max(1, req.PreviousLength-l.Prefix)
	}
	text := req.PreviousDraft
	if req.Kind == KindReply {
		text = post.PrefixReply(req.Platform, req.Author, text)
	}
	return max(1, l.Count(text)-l.Prefix)
}

// Unit is what l counts, as a reason says it: "weighted characters" (X's
// rule), "graphemes", "characters".
func (l Length) Unit() string {
	if l.Rule == post.LengthWeighted {
		return "weighted characters"
	}
	return l.Rule.Unit()
}
