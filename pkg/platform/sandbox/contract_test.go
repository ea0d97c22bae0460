package sandbox

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/platform/platformtest"
	"infernal/pkg/platform/sandbox/corpus"
	"infernal/pkg/store/storetest"
)

// TestContract runs the platform contract against the sandbox, with the
// suite's mortals' posts written straight into the simulated microblog and
// a clock that stands still, so that the world adds none of its own.
func TestContract(t *testing.T) {
	t.Parallel()
	now := time.Now()
	entries := []corpus.Entry{
		{Username: "m1", Name: "M One", Kind: "mention", Text: "@{persona} hello"},
		{Username: "t1", Name: "T One", Kind: "topic", Text: "mondays again"},
		{Username: "g1", Name: "G One", Kind: "target", Text: "buy my course"},
	}
	s, err := New(storetest.New(t).Pool(), "devil", time.Hour, entries, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	write := func(t *testing.T, kind, text, parent string) string {
		t.Helper()
		r, err := s.world.insert(ctx, row{AuthorUsername: "contract_mortal", AuthorName: "Contract Mortal", Kind: kind, Text: text,
			InReplyToID: parseID(parent), CreatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		return s.toPost(r).ID
	}
	platformtest.Run(t, platformtest.Harness{
		Platform: s,
		Post:     func(t *testing.T, text string) string { return write(t, corpus.KindTopic, text, "") },
		Mention:  func(t *testing.T, text, parent string) string { return write(t, corpus.KindMention, text, parent) },
		Delete: func(t *testing.T, id string) {
			if _, err := s.world.pool.Exec(ctx, `DELETE FROM sandbox_posts WHERE id = $1`, parseID(id)); err != nil {
				t.Fatal(err)
			}
		},
	})
}
