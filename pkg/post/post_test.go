package post

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestStorableText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "plain", in: "burn", want: "burn"},
		{name: "nul inside", in: "bu\x00rn", want: "burn"},
		{name: "only nul", in: "\x00\x00", want: ""},
		{name: "emoji kept", in: "🔥\x00🔥", want: "🔥🔥"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StorableText(tt.in); got != tt.want {
				t.Errorf("StorableText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCheckFieldRefusesNUL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{name: "plain", in: "burn, mortal"},
		{name: "empty", in: ""},
		{name: "newlines and tabs kept", in: "burn\n\tmortal"},
		{name: "nul inside", in: "bu\x00rn", wantErr: true},
		{name: "only nul", in: "\x00", wantErr: true},
		{name: "nul after an emoji", in: "🔥\x00", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckField("reason", tt.in)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("CheckField(%q) = %v, want nil", tt.in, err)
				}
				return
			}
			var te *TextError
			if !errors.As(err, &te) || te.Field != "reason" || te.Rune != 0 || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "reason: holds the control character U+0000") {
				t.Fatalf("CheckField(%q) = %v, want a *TextError on reason at U+0000 wrapping ErrInvalid", tt.in, err)
			}
		})
	}
}

func TestDerivedFigures(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{name: "engagement weighs reposts and replies twice", got: float64(EngagementScore(3, 2, 1)), want: 9},
		{name: "age", got: float64(AgeSeconds(now.Add(-90*time.Second), now)), want: 90},
		{name: "age never negative", got: float64(AgeSeconds(now.Add(time.Minute), now)), want: 0},
		{name: "success rate one decimal", got: SuccessRate(2, 1), want: 66.7},
		{name: "success rate none judged", got: SuccessRate(0, 0), want: 0},
		{name: "success rate all posted", got: SuccessRate(5, 0), want: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestParsers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		sort    string
		want    Sort
		wantErr bool
	}{
		{name: "default", sort: "", want: SortDate},
		{name: "likes", sort: "likes", want: SortLikes},
		{name: "unknown", sort: "chaos", wantErr: true},
		{name: "case matters", sort: "Likes", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSort(tt.sort)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("ParseSort(%q) = %q, %v", tt.sort, got, err)
			}
		})
	}
	if c, err := ParseCategory("wrath"); err != nil || c != "wrath" {
		t.Errorf("ParseCategory(wrath) = %q, %v", c, err)
	}
	if _, err := ParseCategory("boredom"); err == nil {
		t.Error("ParseCategory accepted a sin that is not deadly")
	}
}

func TestIntentURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, id, text, want string
	}{
		{name: "plain", id: "123", text: "burn", want: "https://x.com/intent/post?in_reply_to=123&text=burn"},
		{name: "encoded", id: "9", text: "a&b #hell 🔥?+1", want: "https://x.com/intent/post?in_reply_to=9&text=a%26b%20%23hell%20%F0%9F%94%A5%3F%2B1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IntentURL(tt.id, tt.text); got != tt.want {
				t.Errorf("IntentURL = %q, want %q", got, tt.want)
			}
		})
	}
}
