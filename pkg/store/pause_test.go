package store_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// ActivePause answers the pause in force, and lifts (deletes) one whose
// Until has passed: asked again as of an earlier time, it is gone.
func TestActivePauseLiftsExpired(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	later, earlier := now.Add(time.Hour), now.Add(-time.Hour)
	tests := []struct {
		name       string
		set        *store.Pause
		wantActive bool
		// wantBefore is whether the pause is still there as of an hour before now.
		wantBefore bool
	}{
		{name: "none"},
		{name: "until later", set: &store.Pause{Refusal: "rate", Reason: "429", Until: &later}, wantActive: true, wantBefore: true},
		{name: "until passed", set: &store.Pause{Refusal: "rate", Reason: "429", Until: &earlier}},
		{name: "no end", set: &store.Pause{Refusal: "suspended", Reason: "403"}, wantActive: true, wantBefore: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := storetest.New(t)
			ctx := context.Background()
			if tt.set != nil {
				if err := s.SetPause(ctx, *tt.set); err != nil {
					t.Fatal(err)
				}
			}
			p, err := s.ActivePause(ctx, now)
			if err != nil || (p != nil) != tt.wantActive {
				t.Fatalf("ActivePause = %+v, %v; want one: %v", p, err, tt.wantActive)
			}
			if p != nil && p.Reason != tt.set.Reason {
				t.Errorf("reason = %q, want %q", p.Reason, tt.set.Reason)
			}
			p, err = s.ActivePause(ctx, now.Add(-2*time.Hour))
			if err != nil || (p != nil) != tt.wantBefore {
				t.Fatalf("ActivePause an hour before = %+v, %v; want one: %v", p, err, tt.wantBefore)
			}
		})
	}
}
