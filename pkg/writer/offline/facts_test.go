package offline

import (
	"context"
	"strings"
	"testing"

	"infernal/pkg/writer"
)

func TestGroundedDraft(t *testing.T) {
	t.Parallel()
	w := New("infernal_ai")
	req := writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", Author: "maria", PostText: "when does the pit open tonight?"}
	plain, err := w.Write(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Text, "midnight to dawn") {
		t.Fatalf("a draft without facts holds one: %q", plain.Text)
	}
	req.Facts = []writer.Fact{{Title: "Opening hours", Text: "The pit is open every night from midnight to dawn. Late sinners wait."}}
	d, err := w.Write(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text, "The pit is open every night from midnight to dawn.") || strings.Contains(d.Text, "Late sinners") {
		t.Fatalf("the fact's first sentence is not woven in: %q", d.Text)
	}
}

func TestJudgeContradiction(t *testing.T) {
	t.Parallel()
	facts := []writer.Fact{{Title: "Opening hours", Text: "The pit opens from midnight to dawn, and on Fridays the 13th."}}
	tests := []struct {
		name  string
		facts []writer.Fact
		draft string
		want  int
	}{
		{"agrees", facts, "The pit opens at midnight; Fridays the 13th all day.", 5},
		{"contradicts", facts, "The pit opens at 9 sharp, sinner.", 2},
		{"no facts", nil, "The pit opens at 9 sharp, sinner.", 5},
		{"a number about something else", facts, "Coffee number 3 today.", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := writer.Request{Kind: writer.KindReply, PostText: "when the pit opens? coffee", Facts: tt.facts}
			score, reason := judge(req, tt.draft, "infernal_ai")
			if score != tt.want {
				t.Fatalf("score %d (%s), want %d", score, reason, tt.want)
			}
		})
	}
}
