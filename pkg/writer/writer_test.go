package writer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"infernal/pkg/post"
	"infernal/pkg/twittertext"
	"infernal/pkg/writer"
)

// fakeWriter answers each call with the next of its drafts or errors, and
// keeps the requests it was given.
type fakeWriter struct {
	answers []answer
	calls   []writer.Request
}

type answer struct {
	text string
	err  error
}

func (f *fakeWriter) Name() string { return "fake" }

func (f *fakeWriter) Write(_ context.Context, req writer.Request) (writer.Draft, error) {
	f.calls = append(f.calls, req)
	if len(f.calls) > len(f.answers) {
		return writer.Draft{}, fmt.Errorf("fake: call %d not expected", len(f.calls))
	}
	a := f.answers[len(f.calls)-1]
	if a.err != nil {
		return writer.Draft{}, a.err
	}
	return writer.Draft{Text: a.text, Category: "sloth", Temperature: 0.3}, nil
}

func TestCompose(t *testing.T) {
	t.Parallel()
	short := "Short enough."
	long := strings.Repeat("x", twittertext.MaxLength+1)
	longer := strings.Repeat("y", twittertext.MaxLength+20)
	exact := strings.Repeat("z", twittertext.MaxLength)
	boom := errors.New("boom")
	tests := []struct {
		name      string
		answers   []answer
		want      string
		wantCalls int
		// wantPrev are the PreviousLength values of the calls, in order.
		wantPrev []int
		wantErr  error
	}{
		{name: "within limit first time", answers: []answer{{text: short}}, want: short, wantCalls: 1, wantPrev: []int{0}},
		{name: "exactly the limit", answers: []answer{{text: exact}}, want: exact, wantCalls: 1, wantPrev: []int{0}},
		{name: "shortened once", answers: []answer{{text: long}, {text: short}}, want: short, wantCalls: 2, wantPrev: []int{0, 281}},
		{name: "shortened twice", answers: []answer{{text: longer}, {text: long}, {text: short}}, want: short, wantCalls: 3, wantPrev: []int{0, 300, 281}},
		{name: "still too long after two shortenings", answers: []answer{{text: longer}, {text: longer}, {text: long}, {text: short}}, want: long, wantCalls: 3, wantPrev: []int{0, 300, 300}},
		{name: "emoji weigh two", answers: []answer{{text: strings.Repeat("🔥", 141)}, {text: short}}, want: short, wantCalls: 2, wantPrev: []int{0, 282}},
		{name: "first write fails", answers: []answer{{err: boom}}, wantCalls: 1, wantErr: boom},
		{name: "shortening fails", answers: []answer{{text: long}, {err: boom}}, wantCalls: 2, wantErr: boom},
		{name: "refusal passes through", answers: []answer{{err: fmt.Errorf("fake: %w", writer.ErrRefused)}}, wantCalls: 1, wantErr: writer.ErrRefused},
		{name: "refusal while shortening", answers: []answer{{text: long}, {text: long}, {err: writer.ErrRefused}}, wantCalls: 3, wantErr: writer.ErrRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeWriter{answers: tt.answers}
			req := writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", PostText: "hello", Author: "mortal"}
			d, err := writer.Compose(context.Background(), f, req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
				if err != nil && !strings.Contains(err.Error(), "fake") {
					t.Errorf("err = %v does not name the writer", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if d.Text != tt.want {
				t.Errorf("text = %.20q… (%d), want %.20q… (%d)", d.Text, len(d.Text), tt.want, len(tt.want))
			}
			if len(f.calls) != tt.wantCalls {
				t.Fatalf("%d calls, want %d", len(f.calls), tt.wantCalls)
			}
			for i, want := range tt.wantPrev {
				c := f.calls[i]
				if c.PreviousLength != want {
					t.Errorf("call %d: PreviousLength = %d, want %d", i, c.PreviousLength, want)
				}
				if i > 0 && c.PreviousDraft != tt.answers[i-1].text {
					t.Errorf("call %d: PreviousDraft is not the last draft", i)
				}
				if c.PostText != req.PostText || c.Kind != req.Kind || c.Persona != req.Persona || c.Author != req.Author {
					t.Errorf("call %d lost the request: %+v", i, c)
				}
			}
		})
	}
}

func TestComposeKeepsDraftFields(t *testing.T) {
	t.Parallel()
	f := &fakeWriter{answers: []answer{{text: "ok"}}}
	d, err := writer.Compose(context.Background(), f, writer.Request{Kind: writer.KindProfile})
	if err != nil {
		t.Fatal(err)
	}
	want := writer.Draft{Text: "ok", Category: "sloth", Temperature: 0.3}
	if d != want {
		t.Errorf("draft = %+v, want %+v", d, want)
	}
}

// On Mastodon a reply is counted with the "@author " prefix it is sent
// with, in characters, against the limit the server announced (or 500).
func TestComposeMastodonLimit(t *testing.T) {
	t.Parallel()
	prefix := len("@alice@m.example ") - len("@m.example") // a mention counts as @alice
	tests := []struct {
		name      string
		max       int
		text      string
		wantCalls int
	}{
		{name: "fits with the prefix", text: strings.Repeat("a", 500-prefix), wantCalls: 1},
		{name: "over with the prefix", text: strings.Repeat("a", 500-prefix+1), wantCalls: 2},
		{name: "already prefixed counts once", text: "@alice@m.example " + strings.Repeat("a", 500-prefix), wantCalls: 1},
		{name: "the server's larger limit", max: 1000, text: strings.Repeat("a", 900), wantCalls: 1},
		{name: "the server's smaller limit", max: 100, text: strings.Repeat("a", 100), wantCalls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeWriter{answers: []answer{{text: tt.text}, {text: "short"}, {text: "short"}}}
			req := writer.Request{Kind: writer.KindReply, Persona: "infernal", PostText: "hello", Author: "alice@m.example",
				Platform: post.MastodonPlatform, MaxLength: tt.max}
			if _, err := writer.Compose(context.Background(), f, req); err != nil {
				t.Fatal(err)
			}
			if len(f.calls) != tt.wantCalls {
				t.Fatalf("%d calls, want %d", len(f.calls), tt.wantCalls)
			}
		})
	}
}
