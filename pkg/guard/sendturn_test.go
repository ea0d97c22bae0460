package guard_test

import (
	"testing"
	"time"

	"infernal/pkg/guard"
)

func TestSendTurn(t *testing.T) {
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
