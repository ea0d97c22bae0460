package store_test

import (
	"context"
	"slices"
	"testing"

	"infernal/pkg/settings"
	"infernal/pkg/store/storetest"
)

// The environment seeds the settings once; the administrator's later
// changes survive a restart's seeding, and an opt-out's blocked author
// keeps its reason through a settings save that keeps the author.
func TestSettingsSeedPutAndBlock(t *testing.T) {
	ctx := context.Background()
	s := storetest.New(t)

	got, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.TargetUsernames) != 0 || got.TargetUsernames == nil || got.Caps != settings.DefaultCaps() {
		t.Errorf("fresh settings = %+v, want empty lists and default caps", got)
	}

	seed := settings.Settings{TargetUsernames: []string{"elonmusk"}, SearchTopics: []string{"coffee"}, BlockedPhrases: []string{"scam coin", "free money"}, Caps: settings.DefaultCaps()}
	if seeded, err := s.SeedSettings(ctx, seed); err != nil || !seeded {
		t.Fatalf("first seed = %v, %v; want true", seeded, err)
	}
	if err := s.BlockAuthor(ctx, "quietplease", `opt-out: "stop"`, 0); err != nil {
		t.Fatal(err)
	}
	edited := seed
	edited.SearchTopics = []string{"monday", "gym"}
	edited.BlockedAuthors = []string{"quietplease", "spammer"}
	edited.Caps.SendsPerDay = 20
	if err := s.PutSettings(ctx, edited); err != nil {
		t.Fatal(err)
	}
	if seeded, err := s.SeedSettings(ctx, seed); err != nil || seeded {
		t.Fatalf("second seed = %v, %v; want false", seeded, err)
	}
	got, err = s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.SearchTopics, edited.SearchTopics) || got.Caps.SendsPerDay != 20 ||
		!slices.Equal(got.BlockedAuthors, edited.BlockedAuthors) || !slices.Equal(got.BlockedPhrases, seed.BlockedPhrases) {
		t.Errorf("after edit and reseed = %+v, want %+v", got, edited)
	}
	edited.BlockedAuthors = nil
	edited.BlockedPhrases = nil
	if err := s.PutSettings(ctx, edited); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Settings(ctx); err != nil || len(got.BlockedAuthors)+len(got.BlockedPhrases) != 0 {
		t.Errorf("after clearing = %+v, %v; want no blocked entries", got, err)
	}
}
