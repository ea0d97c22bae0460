package api

import (
	"testing"
	"time"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/spend"
)

// Rows stored before the scan checked URLs are checked again on the way out.
func TestViewPostKeepsOnlyWebURLs(t *testing.T) {
	t.Parallel()
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

// A post the send caps hold shows "queued: cap" in queued, not as an error;
// any other note stays an error.
func TestViewPostQueued(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		p          post.Post
		wantQueued string
		wantError  string
	}{
		{name: "held by the cap", p: post.Post{Status: post.StatusApproved, Error: guard.ReasonSendCap}, wantQueued: guard.ReasonSendCap},
		{name: "approved with a transient error", p: post.Post{Status: post.StatusApproved, Error: "503"}, wantError: "503"},
		{name: "failed", p: post.Post{Status: post.StatusFailed, Error: guard.ReasonSendCap}, wantError: guard.ReasonSendCap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := viewPost(tt.p, time.Now(), spend.DefaultPrices())
			queued := ""
			if v.Queued != nil {
				queued = *v.Queued
			}
			if queued != tt.wantQueued || v.Error != tt.wantError {
				t.Errorf("queued %q error %q, want %q and %q", queued, v.Error, tt.wantQueued, tt.wantError)
			}
		})
	}
}

// The reason shown in the Skipped and failed view is a skipped post's
// guard reason or a failed post's error; other posts have none.
func TestViewPostReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    post.Post
		want string
	}{
		{name: "skipped", p: post.Post{Status: post.StatusSkipped, SkipReason: "opt-out: \"stop\""}, want: "opt-out: \"stop\""},
		{name: "failed", p: post.Post{Status: post.StatusFailed, Error: "send: 403"}, want: "send: 403"},
		{name: "approved with a transient error", p: post.Post{Status: post.StatusApproved, Error: "503"}, want: ""},
		{name: "pending", p: post.Post{Status: post.StatusPending}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := viewPost(tt.p, time.Now(), spend.DefaultPrices()).Reason; got != tt.want {
				t.Errorf("reason %q, want %q", got, tt.want)
			}
		})
	}
}
