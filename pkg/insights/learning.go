package insights

import (
	"time"
)

// The kinds of a learning Event.
const (
	EventDraft    = "draft"
	EventApproved = "approved"
	EventEdited   = "edited"
	EventRejected = "rejected"
)

// Event is one step of a draft: a first draft written, an approval as
// written, an approval after an edit (with the writer's Draft and the
// Final text) or a rejection.
type Event struct {
	Kind  string
	At    time.Time
	Draft string
	Final string
}

// Week is one week of the learning series: is the persona learning?
type Week struct {
	// Week is the week's Monday, YYYY-MM-DD, in the series' time zone.
	Week             string `json:"week"`
	Drafts           int64  `json:"drafts"`
	ApprovedUnedited int64  `json:"approved_unedited"`
	Edited           int64  `json:"edited"`
	Rejected         int64  `json:"rejected"`
	// MeanEditDistance is the mean Levenshtein distance, in characters,
	// between the draft and the text approved over the week's edits; nil
	// in a week without edits.
	MeanEditDistance *float64 `json:"mean_edit_distance"`
}

// Weekly counts events into the weeks (Monday to Sunday in loc) from
// from's week to to's, oldest first, every week present.
func Weekly(events []Event, from, to time.Time, loc *time.Location) []Week {
	first, last := monday(from, loc), monday(to, loc)
	var out []Week
	index := map[string]int{}
	for d := first; !d.After(last); d = d.AddDate(0, 0, 7) {
		key := d.Format(time.DateOnly)
		index[key] = len(out)
		out = append(out, Week{Week: key})
	}
	sums := make([]float64, len(out))
	for _, e := range events {
		i, ok := index[monday(e.At, loc).Format(time.DateOnly)]
		if !ok {
			continue
		}
		w := &out[i]
		switch e.Kind {
		case EventDraft:
			w.Drafts++
		case EventApproved:
			w.ApprovedUnedited++
		case EventEdited:
			w.Edited++
			sums[i] += float64(Levenshtein(e.Draft, e.Final))
		case EventRejected:
			w.Rejected++
		}
	}
	for i := range out {
		if out[i].Edited > 0 {
			m := sums[i] / float64(out[i].Edited)
			out[i].MeanEditDistance = &m
		}
	}
	return out
}

// monday is the Monday of t's week in loc, at midnight.
func monday(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	back := (int(t.Weekday()) + 6) % 7
	return time.Date(t.Year(), t.Month(), t.Day()-back, 0, 0, 0, 0, loc)
}

// Levenshtein is the edit distance of a and b in characters (runes):
// the fewest insertions, deletions and substitutions from one to the other.
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
