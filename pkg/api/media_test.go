package api_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"infernal/pkg/api"
	"infernal/pkg/post"
	"infernal/pkg/store"
)

// A post's media and link card, and its context posts', come back in the
// admin's answers as stored (every answer is checked against the spec);
// an address that is not http(s) with a host, stored before the scan
// checked them, is dropped. The statistics name MEDIA_HOSTS.
func TestMediaAndLinkInAnswers(t *testing.T) {
	t.Parallel()
	e := setupWith(t, func(c *api.Config) { c.MediaHosts = []string{"pbs.twimg.com", "127.0.0.1:8443"} })
	ctx := context.Background()
	goat := post.Media{Type: post.MediaPhoto, URL: "https://pbs.twimg.com/media/goat.jpg", Alt: "a goat in a red cape"}
	err := e.store.SaveContextPosts(ctx, []store.ContextPost{{Platform: "sandbox", PlatformPostID: "p1", AuthorUsername: "elder",
		Text: "behold", Media: []post.Media{goat}, Link: &post.Link{URL: "https://pit.example/hours", Title: "The pit's hours"}}})
	if err != nil {
		t.Fatal(err)
	}
	pid, _, err := e.store.UpsertFound(ctx, post.Post{Platform: "sandbox", Source: post.SourceMention, OriginalPostID: "m1",
		ConversationID: "p1", InReplyToID: "p1", OriginalPostText: "@devil what is this?", AuthorUsername: "m", CreatedAt: time.Now(),
		MediaURL: goat.URL,
		Media: []post.Media{goat, {Type: "hologram", URL: "javascript:alert(1)", PreviewURL: "https://pbs.twimg.com/media/still.jpg"},
			{Type: post.MediaPhoto, URL: "javascript:alert(1)"}},
		Link: &post.Link{URL: "https://pit.example/hours", Title: "The pit's hours", Description: "Open all night."}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SaveDraft(ctx, pid, store.Draft{Response: "burn", Category: "wrath", Temperature: 0.3, PresencePenalty: 0.3, FrequencyPenalty: 0.3}); err != nil {
		t.Fatal(err)
	}
	status, body := e.do("GET", "/api/posts/mentions", e.token, "")
	if status != 200 {
		t.Fatalf("mentions: %d %s", status, body)
	}
	var list struct {
		Posts []struct {
			MediaURL string       `json:"media_url"`
			Media    []post.Media `json:"media"`
			Link     *post.Link   `json:"link"`
		} `json:"posts"`
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list.Posts) != 1 {
		t.Fatalf("list %s: %v", body, err)
	}
	p := list.Posts[0]
	want := []post.Media{goat, {Type: post.MediaPhoto, PreviewURL: "https://pbs.twimg.com/media/still.jpg"}}
	if len(p.Media) != 2 || p.Media[0] != want[0] || p.Media[1] != want[1] {
		t.Errorf("media %+v, want %+v", p.Media, want)
	}
	if p.MediaURL != goat.URL || p.Link == nil || p.Link.Title != "The pit's hours" || p.Link.Description != "Open all night." {
		t.Errorf("media_url %q, link %+v", p.MediaURL, p.Link)
	}
	status, body = e.do("GET", "/api/posts/"+id(pid)+"/context", e.token, "")
	var c struct {
		Items []struct {
			Media []post.Media `json:"media"`
			Link  *post.Link   `json:"link"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &c); status != 200 || err != nil || len(c.Items) != 1 {
		t.Fatalf("context: %d %s %v", status, body, err)
	}
	if it := c.Items[0]; len(it.Media) != 1 || it.Media[0] != goat || it.Link == nil || it.Link.URL != "https://pit.example/hours" {
		t.Errorf("context item %+v", it)
	}
	status, body = e.do("GET", "/api/posts/stats", e.token, "")
	var stats struct {
		MediaHosts []string `json:"media_hosts"`
	}
	if err := json.Unmarshal([]byte(body), &stats); status != 200 || err != nil || len(stats.MediaHosts) != 2 || stats.MediaHosts[1] != "127.0.0.1:8443" {
		t.Errorf("stats: %d %s", status, body)
	}
}

// The Spend page says MODEL_VISION and the models that refused images.
func TestSpendModelVision(t *testing.T) {
	t.Parallel()
	blind := fixedBlind{"llama3.2": time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)}
	e := setupWith(t, func(c *api.Config) { c.ModelVision = "auto"; c.Blind = blind })
	status, body := e.do("GET", "/api/spend", e.token, "")
	var s struct {
		ModelVision struct {
			Mode          string `json:"mode"`
			WithoutImages []struct {
				Model string     `json:"model"`
				Since *time.Time `json:"since"`
			} `json:"without_images"`
		} `json:"model_vision"`
	}
	if err := json.Unmarshal([]byte(body), &s); status != 200 || err != nil {
		t.Fatalf("spend: %d %s %v", status, body, err)
	}
	v := s.ModelVision
	if v.Mode != "auto" || len(v.WithoutImages) != 1 || v.WithoutImages[0].Model != "llama3.2" || v.WithoutImages[0].Since == nil {
		t.Errorf("model_vision %+v", v)
	}
	// Without the shared memory (nor MODEL_VISION), none is listed and the mode is auto.
	e = setup(t)
	_, body = e.do("GET", "/api/spend", e.token, "")
	if err := json.Unmarshal([]byte(body), &s); err != nil || s.ModelVision.Mode != "auto" || len(s.ModelVision.WithoutImages) != 0 {
		t.Errorf("default model_vision %+v (%v)", s.ModelVision, err)
	}
}

// fixedBlind lists fixed models without images.
type fixedBlind map[string]time.Time

func (f fixedBlind) ModelsWithoutImages(context.Context) (map[string]time.Time, error) { return f, nil }
