package persona_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"infernal/pkg/persona"
	"infernal/pkg/settings"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        persona.Persona
		want      persona.Persona
		wantField string
	}{
		{name: "the default is valid", in: persona.Default(), want: func() persona.Persona {
			p := persona.Default()
			p.Version = 0
			return p
		}()},
		{name: "trimmed, empties dropped, nil lists made empty", in: persona.Persona{Version: 9, Name: " Imp ", Voice: " v ", Examples: []string{" a ", "  "}},
			want: persona.Persona{Name: "Imp", Voice: "v", Examples: []string{"a"}, AvoidTopics: []string{}}},
		{name: "empty voice", in: persona.Persona{Voice: " \n "}, wantField: "voice"},
		{name: "voice too long", in: persona.Persona{Voice: strings.Repeat("x", persona.MaxVoice+1)}, wantField: "voice"},
		{name: "voice at the limit", in: persona.Persona{Voice: strings.Repeat("ж", persona.MaxVoice)},
			want: persona.Persona{Voice: strings.Repeat("ж", persona.MaxVoice), Examples: []string{}, AvoidTopics: []string{}}},
		{name: "too many examples", in: persona.Persona{Voice: "v", Examples: slices.Repeat([]string{"a"}, persona.MaxExamples+1)}, wantField: "examples"},
		{name: "an example over 280 weighted", in: persona.Persona{Voice: "v", Examples: []string{"a", strings.Repeat("日", 141)}}, wantField: "examples[1]"},
		{name: "an example at 280 weighted", in: persona.Persona{Voice: "v", Examples: []string{strings.Repeat("日", 140)}},
			want: persona.Persona{Voice: "v", Examples: []string{strings.Repeat("日", 140)}, AvoidTopics: []string{}}},
		{name: "name on two lines", in: persona.Persona{Name: "a\nb", Voice: "v"}, wantField: "name"},
		{name: "invalid UTF-8", in: persona.Persona{Bio: "\xff", Voice: "v"}, wantField: "bio"},
		{name: "control character", in: persona.Persona{Voice: "a\x00b"}, wantField: "voice"},
		{name: "topic on two lines", in: persona.Persona{Voice: "v", AvoidTopics: []string{"a\nb"}}, wantField: "avoid_topics[0]"},
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
			if got.Version != tt.want.Version || got.Name != tt.want.Name || got.Bio != tt.want.Bio || got.Voice != tt.want.Voice ||
				!slices.Equal(got.Examples, tt.want.Examples) || !slices.Equal(got.AvoidTopics, tt.want.AvoidTopics) ||
				got.Examples == nil || got.AvoidTopics == nil {
				t.Errorf("Normalize() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
