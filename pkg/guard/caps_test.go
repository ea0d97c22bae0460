package guard

import (
	"testing"
	"time"
)

func TestCapDecision(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		inConversation int
		toAuthorToday  int
		caps           Caps
		wantReason     string
		wantOK         bool
	}{
		{name: "first reply", wantOK: true},
		{name: "conversation cap by default", inConversation: 1, wantReason: "cap: conversation (1 of 1)"},
		{name: "author cap by default", toAuthorToday: 3, wantReason: "cap: author (3 of 3 today)"},
		{name: "under the author cap", toAuthorToday: 2, wantOK: true},
		{name: "conversation cap first", inConversation: 2, toAuthorToday: 5, wantReason: "cap: conversation (2 of 1)"},
		{name: "configured caps", inConversation: 2, toAuthorToday: 9, caps: Caps{PerConversation: 3, PerAuthorPerDay: 10}, wantOK: true},
		{name: "configured conversation cap reached", inConversation: 3, caps: Caps{PerConversation: 3}, wantReason: "cap: conversation (3 of 3)"},
		{name: "negative caps take the defaults", inConversation: 1, caps: Caps{PerConversation: -1}, wantReason: "cap: conversation (1 of 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reason, ok := CapDecision(tt.inConversation, tt.toAuthorToday, tt.caps)
			if reason != tt.wantReason || ok != tt.wantOK {
				t.Errorf("CapDecision(%d, %d, %+v) = %q, %v, want %q, %v", tt.inConversation, tt.toAuthorToday, tt.caps, reason, ok, tt.wantReason, tt.wantOK)
			}
		})
	}
}

func TestCapsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		caps    Caps
		wantErr string
	}{
		{name: "defaults", caps: Caps{}},
		{name: "set", caps: Caps{PerConversation: 2, PerAuthorPerDay: 5}},
		{name: "negative", caps: Caps{PerConversation: -1}, wantErr: "per_conversation: -1 is out of range 0 to 1000 (0 takes the default)"},
		{name: "too large", caps: Caps{PerAuthorPerDay: 1001}, wantErr: "per_author_per_day: 1001 is out of range 0 to 1000 (0 takes the default)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.caps.Validate()
			if got := errString(err); got != tt.wantErr {
				t.Errorf("Validate() = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

func TestSendCapsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		caps    SendCaps
		wantErr string
	}{
		{name: "defaults", caps: SendCaps{}},
		{name: "negative", caps: SendCaps{PerDay: -5}, wantErr: "sends_per_day: -5 is out of range 0 to 1000 (0 takes the default)"},
		{name: "window above day", caps: SendCaps{PerWindow: 60}, wantErr: "sends_per_window: 60 is more than sends_per_day (50)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errString(tt.caps.Validate()); got != tt.wantErr {
				t.Errorf("Validate() = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSendSlot(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	// every returns n sends, step apart, the newest at newest ago.
	every := func(n int, newest, step time.Duration) []time.Time {
		var out []time.Time
		for i := range n {
			out = append(out, ago(newest+time.Duration(i)*step))
		}
		return out
	}
	tests := []struct {
		name     string
		sent     []time.Time
		caps     SendCaps
		wantNext time.Time
		wantOK   bool
	}{
		{name: "nothing sent", wantNext: now, wantOK: true},
		{name: "under both caps", sent: every(9, time.Minute, time.Minute), wantNext: now, wantOK: true},
		// Ten sends 1 to 10 minutes ago: the oldest leaves the window at 10 minutes ago + 3h.
		{name: "window full", sent: every(10, time.Minute, time.Minute), wantNext: ago(10 * time.Minute).Add(3 * time.Hour)},
		{name: "window full, in any order", sent: []time.Time{ago(time.Minute), ago(2 * time.Hour), ago(time.Hour)}, caps: SendCaps{PerWindow: 3, PerDay: 10}, wantNext: ago(2 * time.Hour).Add(3 * time.Hour)},
		{name: "a send exactly a window ago has left it", sent: []time.Time{ago(3 * time.Hour), ago(time.Hour)}, caps: SendCaps{PerWindow: 2, PerDay: 10}, wantNext: now, wantOK: true},
		// Fifty sends, one every 25 minutes from 3h05 ago: none in the
		// window, the day is full; the oldest (3h05 + 49·25min ago) leaves
		// the day first.
		{name: "day full", sent: every(50, 3*time.Hour+5*time.Minute, 25*time.Minute), wantNext: ago(3*time.Hour + 5*time.Minute + 49*25*time.Minute).Add(24 * time.Hour)},
		// Four sends 1 to 4 minutes ago, cap 2: three must leave, the third
		// oldest 2 minutes ago.
		{name: "over the cap, several must leave", sent: every(4, time.Minute, time.Minute), caps: SendCaps{PerWindow: 2, PerDay: 10}, wantNext: ago(2 * time.Minute).Add(3 * time.Hour)},
		{name: "the later of two windows", sent: every(3, time.Minute, time.Hour), caps: SendCaps{PerWindow: 2, PerDay: 3}, wantNext: ago(time.Minute + 2*time.Hour).Add(24 * time.Hour)},
		{name: "custom window", sent: every(2, time.Minute, time.Minute), caps: SendCaps{PerWindow: 2, Window: time.Hour, PerDay: 10}, wantNext: ago(2 * time.Minute).Add(time.Hour)},
		{name: "a send in the future counts", sent: []time.Time{now.Add(time.Minute)}, caps: SendCaps{PerWindow: 1, PerDay: 10}, wantNext: now.Add(time.Minute).Add(3 * time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, ok := SendSlot(tt.sent, now, tt.caps)
			if !next.Equal(tt.wantNext) || ok != tt.wantOK {
				t.Errorf("SendSlot() = %v, %v, want %v, %v", next, ok, tt.wantNext, tt.wantOK)
			}
		})
	}
}
