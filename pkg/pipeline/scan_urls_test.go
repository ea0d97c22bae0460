package pipeline_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/tasks"
)

// urlPlatform is the sandbox under another name, whose mentions carry the
// avatar and media URLs a hostile or broken platform might send.
type urlPlatform struct {
	platform.Platform
	name, avatar, media string
}

func (u urlPlatform) Name() string { return u.name }

func (u urlPlatform) Mentions(ctx context.Context, userID string, r platform.Range) (platform.Page, error) {
	page, err := u.Platform.Mentions(ctx, userID, r)
	for i := range page.Posts {
		page.Posts[i].Author.ProfileImage = u.avatar
		page.Posts[i].MediaURL = u.media
	}
	return page, err
}

// A found post keeps its avatar and media URLs only when they are https (or
// http on the sandbox): the admin renders them as an image and a link.
func TestScanKeepsOnlyWebURLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		platform   string
		avatar     string
		media      string
		wantAvatar string
		wantMedia  string
	}{
		{name: "x keeps https", platform: "x", avatar: "https://pbs.twimg.com/profile_images/1/a.jpg", media: "https://pbs.twimg.com/media/b.jpg",
			wantAvatar: "https://pbs.twimg.com/profile_images/1/a.jpg", wantMedia: "https://pbs.twimg.com/media/b.jpg"},
		{name: "x drops http and javascript", platform: "x", avatar: "http://pbs.twimg.com/a.jpg", media: "javascript:alert(document.cookie)"},
		{name: "sandbox keeps http, drops data and relative", platform: post.SandboxPlatform, avatar: "http://127.0.0.1:8080/a.png",
			media: "data:text/html,<script>alert(1)</script>", wantAvatar: "http://127.0.0.1:8080/a.png"},
		{name: "sandbox drops relative", platform: post.SandboxPlatform, avatar: "/diaries666op/queues", media: "//evil.example/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			ctx := context.Background()
			e.pipe.Scanner.Platform = urlPlatform{Platform: e.plat, name: tt.platform, avatar: tt.avatar, media: tt.media}
			if err := e.pipe.Scanner.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
				t.Fatal(err)
			}
			ids, err := e.store.IDsInStatus(ctx, post.StatusDrafting, time.Now().Add(time.Minute), 100)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) == 0 {
				t.Fatal("no mention recorded")
			}
			for _, id := range ids {
				p, err := e.store.Post(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if p.AuthorProfileImage != tt.wantAvatar || p.MediaURL != tt.wantMedia {
					t.Errorf("post %d stored avatar %q media %q, want %q and %q", id, p.AuthorProfileImage, p.MediaURL, tt.wantAvatar, tt.wantMedia)
				}
			}
		})
	}
}
