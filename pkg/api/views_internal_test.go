package api

import (
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/spend"
)

// Rows stored before the scan checked URLs are checked again on the way out.
func TestViewPostKeepsOnlyWebURLs(t *testing.T) {
	tests := []struct {
		name       string
		p          post.Post
		wantAvatar string
		wantMedia  string
	}{
		{name: "x https", p: post.Post{Platform: "x", AuthorProfileImage: "https://pbs.twimg.com/a.jpg", MediaURL: "https://pbs.twimg.com/b.jpg"},
			wantAvatar: "https://pbs.twimg.com/a.jpg", wantMedia: "https://pbs.twimg.com/b.jpg"},
		{name: "x javascript and http", p: post.Post{Platform: "x", AuthorProfileImage: "http://pbs.twimg.com/a.jpg", MediaURL: "javascript:alert(1)"}},
		{name: "sandbox http and data", p: post.Post{Platform: post.SandboxPlatform, AuthorProfileImage: "http://127.0.0.1/a.png", MediaURL: "data:text/html,x"},
			wantAvatar: "http://127.0.0.1/a.png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := viewPost(tt.p, time.Now(), spend.DefaultPrices())
			if v.AuthorProfileImage != tt.wantAvatar || v.MediaURL != tt.wantMedia {
				t.Errorf("avatar %q media %q, want %q and %q", v.AuthorProfileImage, v.MediaURL, tt.wantAvatar, tt.wantMedia)
			}
		})
	}
}
