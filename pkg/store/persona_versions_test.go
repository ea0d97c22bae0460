package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"infernal/pkg/persona"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/store/storetest"
)

// The persona is seeded once, then every PUT adds a version, listed newest
// first; a judged draft keeps its version and review, and a post drafted
// anyway has its review waived.
func TestPersonaVersions(t *testing.T) {
	t.Parallel()
	s := storetest.New(t)
	ctx := context.Background()
	if _, err := s.Persona(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("persona before the seed: %v, want ErrNotFound", err)
	}
	tests := []struct {
		name        string
		do          func() (bool, error)
		want        bool
		wantVersion int
	}{
		{name: "seed", do: func() (bool, error) { return s.SeedPersona(ctx, persona.Default()) }, want: true, wantVersion: 1},
		{name: "seed again", do: func() (bool, error) { return s.SeedPersona(ctx, persona.Default()) }, want: false, wantVersion: 1},
		{name: "put", do: func() (bool, error) {
			_, err := s.PutPersona(ctx, persona.Persona{Name: "Imp", Voice: "tiny menace", Examples: []string{"boo"}})
			return true, err
		}, want: true, wantVersion: 2},
		{name: "put again", do: func() (bool, error) {
			_, err := s.PutPersona(ctx, persona.Persona{Name: "Imp", Voice: "tinier menace"})
			return true, err
		}, want: true, wantVersion: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.do()
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
			p, err := s.Persona(ctx)
			if err != nil || p.Version != tt.wantVersion {
				t.Errorf("persona is version %d (%v), want %d", p.Version, err, tt.wantVersion)
			}
		})
	}
	vs, err := s.PersonaVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, v := range vs {
		got = append(got, v.Version)
	}
	if !slices.Equal(got, []int{3, 2, 1}) || vs[1].Examples[0] != "boo" || vs[0].Examples == nil || vs[2].Voice != persona.Default().Voice {
		t.Errorf("versions %v: %+v", got, vs)
	}

	id, _, err := s.UpsertFound(ctx, found("pv1", post.SourceMention))
	if err != nil {
		t.Fatal(err)
	}
	review := &post.Review{Score: 2, Reason: "flat", By: "offline"}
	if err := s.SkipDraft(ctx, id, store.Draft{Response: "meh", Category: "sloth", PersonaVersion: 3, Review: review}, "second opinion: 2/5: flat"); err != nil {
		t.Fatal(err)
	}
	p, err := s.Post(ctx, id)
	if err != nil || p.Status != post.StatusSkipped || p.PersonaVersion != 3 || p.Review == nil || *p.Review != *review || p.ReviewWaived {
		t.Fatalf("skipped draft: %+v %v", p, err)
	}
	if p, err = s.DraftAnyway(ctx, id, nil, post.ByWeb); err != nil || !p.ReviewWaived {
		t.Fatalf("drafted anyway: %+v %v", p, err)
	}
	if err := s.SaveDraft(ctx, id, store.Draft{Response: "better", Category: "sloth", PersonaVersion: 3}); err != nil {
		t.Fatal(err)
	}
	if p, err = s.Post(ctx, id); err != nil || p.Status != post.StatusPending || p.Review != nil || !p.ReviewWaived {
		t.Errorf("redrafted without a review: %+v %v", p, err)
	}
}
