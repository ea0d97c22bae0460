package x

import (
	"encoding/json"
	"testing"
)

// FuzzTimelineDecode feeds arbitrary bodies to the timeline decoding and
// resolution: it must never panic, keep only posts with an id, and sort them
// newest first.
func FuzzTimelineDecode(f *testing.F) {
	for _, seed := range []string{
		mentionsPage1,
		mentionsPage2,
		emptyTimeline,
		`{"data":[{"id":"9"},{"id":"10"},{"id":""},{"id":"1a"}],"includes":{"users":[{"id":""}]}}`,
		`{"data":[{"id":"1","attachments":{"media_keys":["k","k"]},"referenced_tweets":[{"type":"replied_to"}]}],"includes":{"media":[{"media_key":"k"}]}}`,
		`{"errors":[{"title":"Not Found Error"}]}`,
		`{"data":null,"meta":{"next_token":""}}`,
		`[]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var r timelineResponse
		if err := json.Unmarshal(body, &r); err != nil {
			return
		}
		posts := r.posts()
		if len(posts) > len(r.Data) {
			t.Fatalf("%d posts from %d tweets", len(posts), len(r.Data))
		}
		for _, p := range posts {
			if p.ID == "" {
				t.Fatal("post without id")
			}
		}
		sortNewestFirst(posts)
		for i := 1; i < len(posts); i++ {
			if idLess(posts[i-1].ID, posts[i].ID) {
				t.Fatalf("posts not newest first: %q before %q", posts[i-1].ID, posts[i].ID)
			}
		}
		if len(r.Errors) > 0 {
			if pe := partialError(r.Errors[0]); pe.Status < 400 || pe.Title == "" {
				t.Fatalf("partial error %+v has no refusal status or title", pe)
			}
		}
	})
}
