package api_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"infernal/pkg/decision"
	"infernal/pkg/post"
	"infernal/pkg/store"
)

// BenchmarkHTTP loads the API over loopback, with 500 posts of each source
// in the database, 200 of them posted, from parallel clients.
func BenchmarkHTTP(b *testing.B) {
	e := setup(b)
	ctx := context.Background()
	for i := 0; i < 500; i++ {
		for _, src := range []post.Source{post.SourceConversation, post.SourceMention} {
			id := e.pending(string(src)+strconv.Itoa(i), src, i%37, "reply "+strconv.Itoa(i))
			if i < 100 {
				if _, err := e.decide().Approve(ctx, id, decision.Approval{By: post.ByWeb}); err != nil {
					b.Fatal(err)
				}
				if _, _, err := e.store.BeginSend(ctx, id); err != nil {
					b.Fatal(err)
				}
				if err := e.store.MarkPosted(ctx, id, "r"+strconv.FormatInt(id, 10), time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if err := e.store.RecordEngagement(ctx, store.Engagement{Likes: 1}, time.Now()); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name  string
		path  string
		token string
	}{
		{name: "public stats", path: "/api/public/stats"},
		{name: "public logs", path: "/api/public/logs?offset=15"},
		{name: "admin list by engagement", path: "/api/posts/pending?page=3&sortBy=engagement", token: e.token},
		{name: "admin stats", path: "/api/posts/stats", token: e.token},
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, err := http.NewRequest("GET", e.srv.URL+c.path, nil)
					if err != nil {
						b.Error(err)
						return
					}
					if c.token != "" {
						req.Header.Set("Authorization", "Bearer "+c.token)
					}
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Errorf("%s: %d", c.path, resp.StatusCode)
						return
					}
				}
			})
		})
	}
}
