package offline

import (
	"context"
	"strings"
	"testing"

	"infernal/pkg/writer"
)

func TestDistill(t *testing.T) {
	t.Parallel()
	long := "Your third coffee today, mortal? Hell approves of every drop you pour into that sleepless little body of yours."
	tests := []struct {
		name string
		e    writer.Edit
		want string
	}{
		{"emoji removed", writer.Edit{Draft: "Hell is warm 🔥", Final: "Hell is warm"}, LessonNoEmoji},
		{"hashtags removed", writer.Edit{Draft: "Sloth wins #monday", Final: "Sloth wins"}, LessonNoHashtags},
		{"exclamation removed", writer.Edit{Draft: "Sloth wins!", Final: "Sloth wins."}, LessonNoExclamation},
		{"language changed", writer.Edit{Post: "le café est froid et tu es là", Draft: "the coffee is cold and you are not warm", Final: "le café est froid et tu es pas là"}, LessonLanguage},
		{"language changed to the platform's", writer.Edit{Post: "ok 🔥", Language: "fr-CA", Draft: "the coffee is cold and you are not warm", Final: "le café est froid et tu es pas là"}, LessonLanguage},
		{"language changed, not to the platform's", writer.Edit{Post: "ok 🔥", Language: "de", Draft: "the coffee is cold and you are not warm", Final: "le café est froid et tu es pas là"}, ""},
		{"much shorter", writer.Edit{Draft: long, Final: "Hell approves."}, "Keep replies under about 40 characters"},
		{"much longer", writer.Edit{Draft: "Hell approves.", Final: long}, "Replies may run longer, about 120 characters"},
		{"opening changed", writer.Edit{Draft: "Ah, mortal, sloth suits you well today", Final: "Mortal, sloth suits you well today"}, `Don't open with "Ah,"`},
		{"nothing", writer.Edit{Draft: "same", Final: "same"}, ""},
		{"quick reason", writer.Edit{Rejected: true, Reason: "Too long"}, "Keep replies short"},
		{"other teaches nothing", writer.Edit{Rejected: true, Reason: "Other"}, ""},
		{"own reason", writer.Edit{Rejected: true, Reason: "jokes about grief"}, "Avoid drafts like one rejected as: jokes about grief"},
		{"no reason", writer.Edit{Rejected: true}, ""},
	}
	w := New("devil")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := w.Distill(context.Background(), tt.e)
			if err != nil || got != tt.want {
				t.Fatalf("Distill = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// The offline writer honours the lessons it knows and prefers an
// example's length; without them its draft is as before.
func TestWriteLearned(t *testing.T) {
	t.Parallel()
	w := New("devil")
	ctx := context.Background()
	req := writer.Request{Kind: writer.KindReply, Persona: "devil", Author: "mortal", PostText: "my third coffee today and it is not even noon!!"}
	plain, err := w.Write(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Lessons = []writer.Lesson{{Text: "No exclamation marks"}, {Text: "Keep replies under about 60 characters"}}
	got, err := w.Write(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got.Text, "!") || len([]rune(got.Text)) > 61 || got.Text == "" {
		t.Fatalf("lessons not honoured: %q (was %q)", got.Text, plain.Text)
	}
	req.Lessons = nil
	req.Examples = []writer.Example{{Post: "coffee again", Reply: "Hell brews it."}}
	ex, err := w.Write(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len([]rune(ex.Text)) > len([]rune(plain.Text)) {
		t.Fatalf("with a short example the draft grew: %q (was %q)", ex.Text, plain.Text)
	}
	judged, err := w.Judge(ctx, writer.Request{Kind: writer.KindReply, PostText: "coffee", Lessons: []writer.Lesson{{Text: "No emoji", Rejection: true}}}, "coffee burns 🔥")
	if err != nil || judged.Score != 2 || !strings.Contains(judged.Reason, "No emoji") {
		t.Fatalf("judge of a broken rejection lesson = %+v, %v", judged, err)
	}
}
