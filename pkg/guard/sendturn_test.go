package guard_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"infernal/pkg/guard"
)

func TestSendTurn(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ago := func(d ...time.Duration) []time.Time {
		out := make([]time.Time, len(d))
		for i, x := range d {
			out[i] = now.Add(-x)
		}
		return out
	}
	caps := guard.SendCaps{PerWindow: 3, Window: 3 * time.Hour, PerDay: 5}
	tests := []struct {
		name     string
		sent     []time.Time
		ahead    int
		wantOK   bool
		wantNext time.Time
	}{
		{name: "nothing sent, nobody ahead", wantOK: true, wantNext: now},
		{name: "room for the ones ahead and this one", sent: ago(time.Hour), ahead: 1, wantOK: true, wantNext: now},
		{name: "the last slot goes to the one ahead", sent: ago(time.Hour, 2*time.Hour), ahead: 1, wantNext: now.Add(time.Hour)},
		{name: "window full", sent: ago(time.Minute, 2*time.Hour, 150*time.Minute), wantNext: now.Add(30 * time.Minute)},
		{name: "day full", sent: ago(4*time.Hour, 5*time.Hour, 6*time.Hour, 7*time.Hour, 23*time.Hour), wantNext: now.Add(time.Hour)},
		{name: "one ahead of a full window waits for two sends to leave", sent: ago(time.Minute, 2*time.Hour, 150*time.Minute), ahead: 1,
			wantNext: now.Add(time.Hour)},
		{name: "two ahead fill the day too", sent: ago(time.Minute, 2*time.Hour, 150*time.Minute), ahead: 2,
			wantNext: now.Add(24*time.Hour - 150*time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, ok := guard.SendTurn(tt.sent, tt.ahead, now, caps)
			if ok != tt.wantOK || !next.Equal(tt.wantNext) {
				t.Errorf("SendTurn() = %v, %v; want %v, %v", next, ok, tt.wantNext, tt.wantOK)
			}
		})
	}
}

// TestSendCapsBounds checks what the send caps' store relies on to read
// little: under least nothing is held, and the most recent most send
// times (and at most most posts ahead) decide as all of them do.
func TestSendCapsBounds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	caps := guard.SendCaps{PerWindow: 4, Window: 3 * time.Hour, PerDay: 9}
	least, most, longest := caps.Bounds()
	if least != 4 || most != 9 || longest != 24*time.Hour {
		t.Fatalf("Bounds() = %d, %d, %s, want 4, 9, 24h", least, most, longest)
	}
	if l, m, w := (guard.SendCaps{}).Bounds(); l != guard.DefaultSendsPerWindow || m != guard.DefaultSendsPerDay || w != 24*time.Hour {
		t.Errorf("zero caps: Bounds() = %d, %d, %s, want the defaults", l, m, w)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		// Up to 30 sends over the last 30 hours, a few of them a minute in the future (a clock step).
		sent := make([]time.Time, rng.IntN(30))
		for j := range sent {
			sent[j] = now.Add(-time.Duration(rng.IntN(30*60)-2) * time.Minute)
		}
		ahead := rng.IntN(12)
		wantNext, wantOK := guard.SendTurn(sent, ahead, now, caps)

		inLongest := 0
		for _, s := range sent {
			if s.After(now.Add(-longest)) {
				inLongest++
			}
		}
		if inLongest+ahead < least && !wantOK {
			t.Fatalf("case %d: %d sent and %d ahead, under least %d, but held", i, inLongest, ahead, least)
		}
		newest := slices.SortedFunc(slices.Values(sent), func(a, b time.Time) int { return b.Compare(a) })
		newest = newest[:min(len(newest), most)]
		gotNext, gotOK := guard.SendTurn(newest, min(ahead, most), now, caps)
		if gotOK != wantOK || !gotNext.Equal(wantNext) {
			t.Fatalf("case %d: the newest %d of %d sends, %d ahead: (%s, %v), all of them: (%s, %v)",
				i, len(newest), len(sent), ahead, gotNext, gotOK, wantNext, wantOK)
		}
	}
}
