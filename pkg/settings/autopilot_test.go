package settings_test

import (
	"errors"
	"reflect"
	"testing"

	"infernal/pkg/settings"
)

func TestAutopilotNormalize(t *testing.T) {
	t.Parallel()
	ok := settings.DefaultAutopilot()
	with := func(f func(*settings.Autopilot)) settings.Autopilot {
		a := settings.DefaultAutopilot()
		f(&a)
		return a
	}
	tests := []struct {
		name      string
		in        settings.Autopilot
		wantField string
		want      settings.Autopilot
	}{
		{name: "default is valid and off", in: ok, want: ok},
		{
			name: "cleans authors and categories",
			in: with(func(a *settings.Autopilot) {
				a.Authors = []string{" @Friend ", "friend", "", "Other_1"}
				a.Categories = []string{"Pride", "pride", " wrath "}
			}),
			want: with(func(a *settings.Autopilot) {
				a.Authors = []string{"friend", "other_1"}
				a.Categories = []string{"pride", "wrath"}
			}),
		},
		{name: "score 0", in: with(func(a *settings.Autopilot) { a.MinReviewScore = 0 }), wantField: "autopilot.min_review_score"},
		{name: "score 6", in: with(func(a *settings.Autopilot) { a.MinReviewScore = 6 }), wantField: "autopilot.min_review_score"},
		{name: "grace negative", in: with(func(a *settings.Autopilot) { a.GraceSeconds = -1 }), wantField: "autopilot.grace_seconds"},
		{name: "grace over an hour", in: with(func(a *settings.Autopilot) { a.GraceSeconds = 3601 }), wantField: "autopilot.grace_seconds"},
		{name: "grace 0 allowed", in: with(func(a *settings.Autopilot) { a.GraceSeconds = 0 }), want: with(func(a *settings.Autopilot) { a.GraceSeconds = 0 })},
		{name: "per hour negative", in: with(func(a *settings.Autopilot) { a.MaxPerHour = -1 }), wantField: "autopilot.max_per_hour"},
		{name: "per hour 101", in: with(func(a *settings.Autopilot) { a.MaxPerHour = 101 }), wantField: "autopilot.max_per_hour"},
		{name: "bad author", in: with(func(a *settings.Autopilot) { a.Authors = []string{"ok", "not a handle"} }), wantField: "autopilot.authors[1]"},
		{name: "unknown category", in: with(func(a *settings.Autopilot) { a.Categories = []string{"pride", "virtue"} }), wantField: "autopilot.categories[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Normalize()
			if tt.wantField != "" {
				var fe *settings.FieldError
				if !errors.As(err, &fe) || fe.Field != tt.wantField {
					t.Fatalf("Normalize() error = %v, want a FieldError on %s", err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Normalize() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// A Settings built without an autopilot (the environment's seed) gets the
// default one, which is off.
func TestSettingsNormalizeAutopilotDefaultsOff(t *testing.T) {
	t.Parallel()
	got, err := settings.Settings{}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Autopilot, settings.DefaultAutopilot()) || got.Autopilot.Enabled {
		t.Errorf("autopilot = %+v, want the default, off", got.Autopilot)
	}
	bad := settings.Settings{Autopilot: settings.Autopilot{Enabled: true}}
	var fe *settings.FieldError
	if _, err := bad.Normalize(); !errors.As(err, &fe) || fe.Field != "autopilot.min_review_score" {
		t.Errorf("enabled with score 0: error = %v, want a FieldError on autopilot.min_review_score", err)
	}
}
