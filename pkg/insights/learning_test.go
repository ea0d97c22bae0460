package insights_test

import (
	"testing"
	"time"

	"infernal/pkg/insights"
)

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"héllo 🔥", "hello", 3}, {"same", "same", 0}} {
		if got := insights.Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// The weekly series counts each event in its week (Monday in the time
// zone), every week of the range present, the mean edit distance over
// the week's edits alone.
func TestWeekly(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 11, 4, 12, 0, 0, 0, time.UTC) // a Wednesday
	to := time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)
	// Sunday 23:30 UTC is already Monday in Paris.
	sundayNight := time.Date(2026, 11, 8, 23, 30, 0, 0, time.UTC)
	events := []insights.Event{
		{Kind: insights.EventDraft, At: from.Add(time.Hour)},
		{Kind: insights.EventDraft, At: from.Add(2 * time.Hour)},
		{Kind: insights.EventApproved, At: from.Add(3 * time.Hour)},
		{Kind: insights.EventEdited, At: from.Add(4 * time.Hour), Draft: "abcd", Final: "ab"},
		{Kind: insights.EventEdited, At: from.Add(5 * time.Hour), Draft: "abcd", Final: "abcd!!!!"},
		{Kind: insights.EventRejected, At: sundayNight},
		{Kind: insights.EventDraft, At: from.Add(-30 * 24 * time.Hour)},
	}
	got := insights.Weekly(events, from, to, paris)
	if len(got) != 3 || got[0].Week != "2026-11-02" || got[1].Week != "2026-11-09" || got[2].Week != "2026-11-16" {
		t.Fatalf("weeks = %+v", got)
	}
	w := got[0]
	if w.Drafts != 2 || w.ApprovedUnedited != 1 || w.Edited != 2 || w.Rejected != 0 || w.MeanEditDistance == nil || *w.MeanEditDistance != 3 {
		t.Fatalf("first week = %+v", w)
	}
	if got[1].Rejected != 1 || got[1].MeanEditDistance != nil || got[2].Drafts != 0 {
		t.Fatalf("later weeks = %+v %+v", got[1], got[2])
	}
}
