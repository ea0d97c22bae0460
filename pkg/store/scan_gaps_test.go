package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// A cursor moves with the gap its read left in one step; gaps are listed
// oldest first, narrowed, closed or dropped, and what was dropped or put
// off is counted per timeline.
func TestCursorGaps(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	gapsOf := func(name string) []store.Gap {
		t.Helper()
		g, err := s.Gaps(ctx, "x", name)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if err := s.MoveCursor(ctx, "x", "mentions", "", "100", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveCursor(ctx, "x", "mentions", "100", "900", "600"); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveCursor(ctx, "x", "mentions", "900", "1500", "1200"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		from    string
		wantErr error
	}{
		{name: "cursor moved by another scan", from: "100", wantErr: store.ErrConflict},
		{name: "cursor exists, from none", from: "", wantErr: store.ErrConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.MoveCursor(ctx, "x", "mentions", tt.from, "2000", "1600"); !errors.Is(err, tt.wantErr) {
				t.Errorf("MoveCursor from %q: %v, want %v", tt.from, err, tt.wantErr)
			}
		})
	}
	if cur, err := s.Cursor(ctx, "x", "mentions"); err != nil || cur != "1500" {
		t.Fatalf("cursor %q (%v), want 1500", cur, err)
	}
	gaps := gapsOf("mentions")
	if len(gaps) != 2 || gaps[0].SinceID != "100" || gaps[0].UntilID != "600" || gaps[1].SinceID != "900" || gaps[1].UntilID != "1200" {
		t.Fatalf("gaps %+v, want (100, 600) then (900, 1200)", gaps)
	}
	if err := s.NarrowGap(ctx, gaps[0], "300"); err != nil {
		t.Fatal(err)
	}
	if err := s.NarrowGap(ctx, gaps[0], "200"); !errors.Is(err, store.ErrConflict) {
		t.Errorf("narrowing a stale gap: %v, want ErrConflict", err)
	}
	if err := s.CloseGap(ctx, gaps[1].ID); err != nil {
		t.Fatal(err)
	}
	if got := gapsOf("mentions"); !reflect.DeepEqual(got, []store.Gap{{ID: gaps[0].ID, SinceID: "100", UntilID: "300"}}) {
		t.Errorf("gaps %+v, want only (100, 300)", got)
	}
	if err := s.MoveCursor(ctx, "x", "search:q", "", "50", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveCursor(ctx, "x", "search:q", "50", "90", "70"); err != nil {
		t.Fatal(err)
	}
	if err := s.CountSkippedReads(ctx, "x", "search:q", 1, "budget"); err != nil {
		t.Fatal(err)
	}
	if err := s.CountSkippedReads(ctx, "x", "search:q", 2, "budget again"); err != nil {
		t.Fatal(err)
	}
	if err := s.DropGap(ctx, "x", "search:q", gapsOf("search:q")[0].ID, "too old"); err != nil {
		t.Fatal(err)
	}
	skips, err := s.AllScanSkips(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(skips) != 2 {
		t.Fatalf("skips %+v, want mentions and search:q", skips)
	}
	m, q := skips[0], skips[1]
	if m.Name != "mentions" || m.OpenGaps != 1 || m.SkippedReads != 0 || m.DroppedGaps != 0 {
		t.Errorf("mentions %+v, want one open gap and nothing skipped", m)
	}
	if q.Name != "search:q" || q.OpenGaps != 0 || q.SkippedReads != 3 || q.DroppedGaps != 1 || q.LastReason != "too old" {
		t.Errorf("search %+v, want 3 skipped reads, 1 dropped gap, reason too old", q)
	}
}
