package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"infernal/pkg/post"
	"infernal/pkg/store/storetest"
)

// BenchmarkListsByPlatform reads the first and last pages of the
// mentions' review list and of the skipped list from a generated history
// of 100,000 posts, one in a hundred of them on Bluesky: of every
// platform, of the common platform, and of the rare one, whose rows the
// index walk finds among the others'.
func BenchmarkListsByPlatform(b *testing.B) {
	s := storetest.New(b)
	ctx := context.Background()
	if err := storetest.Generate(ctx, s.Pool(), 100_000, 10_000); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `UPDATE posts SET platform = 'bluesky' WHERE id % 100 = 0;
		DELETE FROM platform_counts; INSERT INTO platform_counts (platform, source, status, n)
		SELECT platform, source, status, count(*) FROM posts GROUP BY platform, source, status;
		ANALYZE posts`); err != nil {
		b.Fatal(err)
	}
	const pageSize = 20
	type list func(platform string, page int) (int, error)
	lists := []struct {
		name string
		read list
	}{
		{"pending mentions", func(platform string, page int) (int, error) {
			_, total, err := s.ListPendingOn(ctx, post.SourceMention, platform, post.SortDate, page, pageSize)
			return total, err
		}},
		{"skipped", func(platform string, page int) (int, error) {
			_, total, err := s.ListSkippedOn(ctx, platform, post.SortDate, page, pageSize)
			return total, err
		}},
	}
	for _, l := range lists {
		for _, platform := range []string{"", post.SandboxPlatform, post.BlueskyPlatform} {
			total, err := l.read(platform, 1)
			if err != nil || total == 0 {
				b.Fatalf("%s of %q = %d posts, %v", l.name, platform, total, err)
			}
			pages := (total + pageSize - 1) / pageSize
			name := platform
			if name == "" {
				name = "every platform"
			}
			for _, page := range slices.Compact([]int{1, pages}) {
				b.Run(fmt.Sprintf("%s of %s, page %d of %d", l.name, name, page, pages), func(b *testing.B) {
					for b.Loop() {
						if _, err := l.read(platform, page); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
