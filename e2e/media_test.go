package e2e

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/tasks"
)

// The real worker binary answers a mention with two photos and a link: the
// prompt holds both alt texts and the link card's title and description,
// fenced; the draft and its review get both images as image_url parts at
// detail low; the post keeps its media and card. A model that takes no
// image input refuses the first request (OpenAI's 400): the worker drafts
// again at once without the images, says so once in its log, keeps the
// model in Redis for every process, and the reply is posted as usual.
func TestMentionWithPhotosAndLink(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		blind bool
	}{
		{name: "model with vision"},
		{name: "model without vision", blind: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newProcessFixture(t)
			ctx := context.Background()
			mortal := f.fx.addUser("mortal", "A Mortal")
			text := "@" + persona + " what do you make of this? https://t.co/pit"
			reply := "A goat in a cape is a sinner in training."
			f.llm.reply(text, reply)
			if tt.blind {
				f.llm.withoutVision()
			}
			photos := [][2]string{
				{"https://pbs.twimg.com/media/goat.jpg", "a goat in a red cape"},
				{"https://pbs.twimg.com/media/fire.jpg", "a bonfire of tax forms"},
			}
			mention := f.fx.replyWithMedia(mortal, text, "", photos, xURLJSON{Start: 38, End: 61, URL: "https://t.co/pit",
				ExpandedURL: "https://bit.ly/pit", UnwoundURL: "https://pit.example/hours", Title: "The pit's hours", Description: "Open all night."})

			var logs bytes.Buffer
			cmd := startWorkerProcess(t, f.worker, f.dbURL, f.redisURL, f.fx, f.llm, &logs)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				_ = cmd.Process.Kill()
				// Killed at the end of the test: its exit status says only that.
				if err := <-exited; err != nil && t.Failed() {
					t.Logf("worker exit: %v", err)
				}
				if t.Failed() {
					t.Logf("worker output:\n%s", logs.String())
				}
			}()
			if err := f.queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
				t.Fatal(err)
			}
			id := waitDrafted(t, f.st, mention)

			prompts := f.llm.promptsWith("what do you make of this?")
			if len(prompts) != 1 {
				t.Fatalf("%d drafts answered, want 1", len(prompts))
			}
			for _, want := range []string{"Image 1: a goat in a red cape", "Image 2: a bonfire of tax forms", "Link card: The pit's hours — Open all night."} {
				if !strings.Contains(prompts[0], want) {
					t.Errorf("the prompt lacks %q:\n%s", want, prompts[0])
				}
			}
			if strings.Contains(prompts[0], "pit.example") {
				t.Error("the prompt names the link's address: only its card goes in")
			}
			sent := f.llm.imagesWith("what do you make of this?")
			wantURLs := []string{photos[0][0], photos[1][0]}
			switch {
			case tt.blind:
				if len(sent) != 1 || sent[0].judging || !slices.Equal(sent[0].urls, wantURLs) {
					t.Errorf("requests with images %+v, want the first draft's alone (refused)", sent)
				}
				blind, err := f.queue.ModelsWithoutImages(ctx)
				if err != nil || blind[liveModel].IsZero() {
					t.Errorf("models without images %v, %v; want %s kept for every process", blind, err, liveModel)
				}
			default:
				var draft, review bool
				for _, s := range sent {
					if !slices.Equal(s.urls, wantURLs) || s.details[0] != "low" || s.details[1] != "low" {
						t.Errorf("images %v at %v, want both at detail low", s.urls, s.details)
					}
					draft, review = draft || !s.judging, review || s.judging
				}
				if !draft || !review {
					t.Errorf("images went with the draft: %v, with its review: %v; want both", draft, review)
				}
			}

			p, err := f.st.Post(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Media) != 2 || p.Media[0].Alt != photos[0][1] || p.MediaURL != photos[0][0] || p.Link == nil || p.Link.Title != "The pit's hours" {
				t.Errorf("stored media %+v, media_url %q, link %+v", p.Media, p.MediaURL, p.Link)
			}
			approve(t, f.st, f.queue, id)
			if err := f.queue.EnqueueSend(ctx, id); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(liveWait)
			for time.Now().Before(deadline) {
				if p, err = f.st.Post(ctx, id); err == nil && p.Status == post.StatusPosted {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if p.Status != post.StatusPosted || len(f.fx.publishesTo(mention)) != 1 {
				t.Fatalf("post %s (%q), %d replies on X; want posted once", p.Status, p.Error, len(f.fx.publishesTo(mention)))
			}
			if n := strings.Count(logs.String(), "takes no image input"); n != map[bool]int{true: 1, false: 0}[tt.blind] {
				t.Errorf("%d log lines about a model without images", n)
			}
		})
	}
}
