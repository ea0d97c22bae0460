package settings_test

import (
	"errors"
	"reflect"
	"testing"

	"infernal/pkg/settings"
)

func TestPlatformOptionsApply(t *testing.T) {
	t.Parallel()
	on, off := true, false
	stored := settings.PlatformOptions{"mastodon": {"reply_to_direct": true}}
	tests := []struct {
		name    string
		changes map[string]map[string]*bool
		want    settings.PlatformOptions
		field   string
	}{
		{name: "nothing named keeps the stored", changes: nil, want: stored},
		{name: "a platform named gives its options", changes: map[string]map[string]*bool{"mastodon": {"reply_to_direct": &off}},
			want: settings.PlatformOptions{"mastodon": {"reply_to_direct": false}}},
		{name: "and again", changes: map[string]map[string]*bool{"mastodon": {"reply_to_direct": &on}}, want: stored},
		{name: "an option missing", changes: map[string]map[string]*bool{"mastodon": {}}, field: "platforms.mastodon.reply_to_direct"},
		{name: "an option nil", changes: map[string]map[string]*bool{"mastodon": {"reply_to_direct": nil}}, field: "platforms.mastodon.reply_to_direct"},
		{name: "an option unknown", changes: map[string]map[string]*bool{"mastodon": {"reply_to_direct": &on, "boost": &on}}, field: "platforms.mastodon.boost"},
		{name: "of two unknown options, the first by name", changes: map[string]map[string]*bool{"mastodon": {"reply_to_direct": &on, "zz": &on, "aa": &on}}, field: "platforms.mastodon.aa"},
		{name: "a platform without options", changes: map[string]map[string]*bool{"x": {}}, field: "platforms.x"},
		{name: "a platform unknown", changes: map[string]map[string]*bool{"friendica": {"quiet": &on}}, field: "platforms.friendica"},
		{name: "of two bad, the first by name", changes: map[string]map[string]*bool{"zzz": {}, "aaa": {}}, field: "platforms.aaa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := stored.Apply(tt.changes)
			var fe *settings.FieldError
			switch {
			case tt.field != "":
				if !errors.As(err, &fe) || fe.Field != tt.field {
					t.Errorf("Apply = %v, %v; want a FieldError on %s", got, err, tt.field)
				}
			case err != nil || !reflect.DeepEqual(got, tt.want):
				t.Errorf("Apply = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	// Apply never changes the options it is called on.
	if !reflect.DeepEqual(stored, settings.PlatformOptions{"mastodon": {"reply_to_direct": true}}) {
		t.Errorf("stored changed: %v", stored)
	}
}

func TestPlatformOptionsWithDefaults(t *testing.T) {
	t.Parallel()
	if got, want := settings.DefaultPlatformOptions(), (settings.PlatformOptions{"mastodon": {"reply_to_direct": false}}); !reflect.DeepEqual(got, want) {
		t.Errorf("defaults = %v, want %v", got, want)
	}
	old := settings.PlatformOptions{"mastodon": {"reply_to_direct": true, "gone": true}, "friendica": {"quiet": true}}
	if got, want := old.WithDefaults(), (settings.PlatformOptions{"mastodon": {"reply_to_direct": true}}); !reflect.DeepEqual(got, want) || !got.On("mastodon", "reply_to_direct") || got.On("x", "anything") {
		t.Errorf("WithDefaults = %v, want %v", got, want)
	}
}
