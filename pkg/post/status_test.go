package post

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"infernal/pkg/twittertext"
)

func TestCanMove(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		from, to Status
		want     bool
	}{
		{name: "draft written", from: StatusDrafting, to: StatusPending, want: true},
		{name: "draft refused", from: StatusDrafting, to: StatusFailed, want: true},
		{name: "a failed post regenerated", from: StatusFailed, to: StatusPending, want: true},
		{name: "a rejected post regenerated", from: StatusRejected, to: StatusPending},
		{name: "approve", from: StatusPending, to: StatusApproved, want: true},
		{name: "approve a failed post again", from: StatusFailed, to: StatusApproved, want: true},
		{name: "reject", from: StatusPending, to: StatusRejected, want: true},
		{name: "reject a failed post", from: StatusFailed, to: StatusRejected, want: true},
		{name: "auto-approval cancelled or withdrawn", from: StatusApproved, to: StatusPending, want: true},
		{name: "posted", from: StatusApproved, to: StatusPosted, want: true},
		{name: "send failed", from: StatusApproved, to: StatusFailed, want: true},
		{name: "approve for hand-posting", from: StatusPending, to: StatusAwaitingManual, want: true},
		{name: "approve a failed post for hand-posting", from: StatusFailed, to: StatusAwaitingManual, want: true},
		{name: "API refused the reply", from: StatusApproved, to: StatusAwaitingManual, want: true},
		{name: "hand-posted reply found", from: StatusAwaitingManual, to: StatusPosted, want: true},
		{name: "give up hand-posting", from: StatusAwaitingManual, to: StatusRejected, want: true},
		{name: "a guard skips the post", from: StatusDrafting, to: StatusSkipped, want: true},
		{name: "draft anyway", from: StatusSkipped, to: StatusDrafting, want: true},
		{name: "approve a skipped post", from: StatusSkipped, to: StatusApproved},
		{name: "skip a written draft", from: StatusPending, to: StatusSkipped},
		{name: "hand-post a draft not written", from: StatusDrafting, to: StatusAwaitingManual},
		{name: "hand-posting fails", from: StatusAwaitingManual, to: StatusFailed},
		{name: "hand-posting back to the API", from: StatusAwaitingManual, to: StatusApproved},
		{name: "unpost to hand-posting", from: StatusPosted, to: StatusAwaitingManual},
		{name: "approve a draft not written", from: StatusDrafting, to: StatusApproved},
		{name: "post without approval", from: StatusPending, to: StatusPosted},
		{name: "approve twice", from: StatusApproved, to: StatusApproved},
		{name: "reject after approval", from: StatusApproved, to: StatusRejected},
		{name: "reject twice", from: StatusRejected, to: StatusRejected},
		{name: "revive a rejected post", from: StatusRejected, to: StatusApproved},
		{name: "unpost", from: StatusPosted, to: StatusFailed},
		{name: "back to drafting", from: StatusFailed, to: StatusDrafting},
		{name: "post a failed post directly", from: StatusFailed, to: StatusPosted},
		{name: "unknown status", from: Status("limbo"), to: StatusPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CanMove(tt.from, tt.to); got != tt.want {
				t.Errorf("CanMove(%s, %s) = %v, want %v", tt.from, tt.to, got, tt.want)
			}
		})
	}
}

// Every allowed move is named in TestCanMove: the table holds nothing more.
func TestMovesAreExactlyTheListedOnes(t *testing.T) {
	t.Parallel()
	allowed := 0
	for _, from := range Statuses {
		for _, to := range Statuses {
			if CanMove(from, to) {
				allowed++
			}
		}
	}
	if allowed != 17 || len(Moves()) != 17 {
		t.Errorf("%d allowed pairs, %d moves in the table; want the 17 of TestCanMove", allowed, len(Moves()))
	}
	for _, m := range Moves() {
		if !m.From.Valid() || !m.To.Valid() || m.From == m.To {
			t.Errorf("move %s → %s is not between two known statuses", m.From, m.To)
		}
	}
}

func TestFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		to   Status
		want []Status
	}{
		{name: "drafting, again only after a skip", to: StatusDrafting, want: []Status{StatusSkipped}},
		{name: "skipped", to: StatusSkipped, want: []Status{StatusDrafting}},
		{name: "pending, usually from drafting", to: StatusPending, want: []Status{StatusDrafting, StatusFailed, StatusApproved}},
		{name: "approved, usually from pending", to: StatusApproved, want: []Status{StatusPending, StatusFailed}},
		{name: "rejected, usually from pending", to: StatusRejected, want: []Status{StatusPending, StatusFailed, StatusAwaitingManual}},
		{name: "posted", to: StatusPosted, want: []Status{StatusApproved, StatusAwaitingManual}},
		{name: "awaiting manual, usually from pending", to: StatusAwaitingManual, want: []Status{StatusPending, StatusFailed, StatusApproved}},
		{name: "failed", to: StatusFailed, want: []Status{StatusDrafting, StatusApproved}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := From(tt.to); !slices.Equal(got, tt.want) {
				t.Errorf("From(%s) = %v, want %v", tt.to, got, tt.want)
			}
		})
	}
}

func TestStatusValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status Status
		want   bool
	}{
		{name: "drafting", status: StatusDrafting, want: true},
		{name: "failed", status: StatusFailed, want: true},
		{name: "empty", status: "", want: false},
		{name: "unknown", status: "limbo", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.status.Valid(); got != tt.want {
				t.Errorf("Status(%q).Valid() = %v, want %v", tt.status, got, tt.want)
			}
		})
	}
}

func TestCheckResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		text       string
		wantLength int    // the length a refusal reports
		wantReason string // part of a *ContentError's reason
		wantOK     bool
	}{
		{name: "short", text: "burn, mortal", wantOK: true},
		{name: "exactly the limit", text: strings.Repeat("x", twittertext.MaxLength), wantOK: true},
		{name: "empty", text: "", wantLength: 0},
		{name: "one over", text: strings.Repeat("x", twittertext.MaxLength+1), wantLength: twittertext.MaxLength + 1},
		{name: "emoji weigh two", text: strings.Repeat("🔥", 141), wantLength: 282},
		{name: "only whitespace", text: " \n\t\u3000 ", wantReason: "only whitespace"},
		{name: "byte-order mark", text: "burn\ufeff", wantReason: "U+FEFF"},
		{name: "noncharacter", text: "burn\uffff", wantReason: "U+FFFF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckResponse(tt.text)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("CheckResponse: %v, want nil", err)
				}
				return
			}
			if tt.wantReason != "" {
				var contentErr *ContentError
				if !errors.As(err, &contentErr) || !errors.Is(err, ErrInvalid) || !strings.Contains(contentErr.Reason, tt.wantReason) {
					t.Fatalf("CheckResponse: %v, want a *ContentError about %q that is ErrInvalid", err, tt.wantReason)
				}
				return
			}
			var lengthErr *LengthError
			if !errors.As(err, &lengthErr) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("CheckResponse: %v, want a *LengthError that is ErrInvalid", err)
			}
			if lengthErr.Length != tt.wantLength || lengthErr.Max != twittertext.MaxLength {
				t.Errorf("LengthError = %+v, want length %d of at most %d", lengthErr, tt.wantLength, twittertext.MaxLength)
			}
		})
	}
}

func TestStateError(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("store: approve post 7: %w", &StateError{ID: 7, Have: StatusApproved, Want: StatusPending})
	var stateErr *StateError
	if !errors.Is(err, ErrConflict) || errors.Is(err, ErrInvalid) || !errors.As(err, &stateErr) {
		t.Fatalf("%v must be an ErrConflict carrying a *StateError", err)
	}
	if stateErr.ID != 7 || stateErr.Have != StatusApproved || stateErr.Want != StatusPending {
		t.Errorf("StateError = %+v", stateErr)
	}
	if want := "store: approve post 7: conflict: post 7 is approved, not pending"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestCheckResponseForBluesky(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		text       string
		wantLength int // the length a refusal reports, 0 for none
	}{
		{name: "300 graphemes of two weights each on X", text: strings.Repeat("🔥", MaxLengthBluesky)},
		{name: "300 flags (two code points each)", text: strings.Repeat("🇫🇷", MaxLengthBluesky)},
		{name: "301 graphemes", text: strings.Repeat("é", MaxLengthBluesky+1), wantLength: MaxLengthBluesky + 1},
		{name: "empty", text: "", wantLength: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckResponseFor(BlueskyPlatform, 0, tt.text)
			if tt.wantLength == 0 {
				if err != nil {
					t.Fatalf("CheckResponseFor: %v, want nil", err)
				}
				return
			}
			var lengthErr *LengthError
			if !errors.As(err, &lengthErr) || lengthErr.Max != MaxLengthBluesky || lengthErr.Unit != "graphemes" {
				t.Fatalf("CheckResponseFor: %v, want a *LengthError of at most 300 graphemes", err)
			}
			if tt.wantLength > 0 && lengthErr.Length != tt.wantLength {
				t.Fatalf("Length = %d, want %d", lengthErr.Length, tt.wantLength)
			}
		})
	}
	// The same text is over X's limit: each platform counts against its own.
	if err := CheckResponseFor("x", 0, strings.Repeat("🔥", MaxLengthBluesky)); err == nil {
		t.Fatal("300 emoji pass X's weighted limit")
	}
	if MaxLengthFor("x") != 280 || MaxLengthFor("sandbox") != 280 || MaxLengthFor(BlueskyPlatform) != 300 {
		t.Fatal("MaxLengthFor")
	}
}
