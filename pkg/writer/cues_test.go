package writer_test

import (
	"testing"

	"infernal/pkg/post"
	"infernal/pkg/writer"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		text   string
		want   post.Category
		wantOK bool
	}{
		{name: "coffee", text: "Third coffee and it's not even 10am", want: "gluttony", wantOK: true},
		{name: "pineapple pizza beats pizza", text: "pineapple pizza is elite, fight me", want: "gluttony", wantOK: true},
		{name: "monday beats hate", text: "I hate Mondays so much", want: "sloth", wantOK: true},
		{name: "camel hashtag", text: "#MondayMotivation who?", want: "sloth", wantOK: true},
		{name: "crypto", text: "Bought the dip. The dip kept dipping. #bitcoin", want: "greed", wantOK: true},
		{name: "deadline", text: "Deadline at 5, started at 4:30.", want: "wrath", wantOK: true},
		{name: "due date is not a date", text: "the due date moved again", want: "wrath", wantOK: true},
		{name: "ex", text: "my ex just got engaged lol", want: "envy", wantOK: true},
		{name: "date", text: "first date tonight, wish me luck", want: "lust", wantOK: true},
		{name: "gym", text: "Leg day done. Can't feel anything.", want: "pride", wantOK: true},
		{name: "ai", text: "An AI wrote my wedding speech", want: "pride", wantOK: true},
		{name: "spanish", text: "Odio los lunes, de verdad", want: "sloth", wantOK: true},
		{name: "french j'ai is not ai", text: "j'ai trop mangé de gâteau", want: "gluttony", wantOK: true},
		{name: "german", text: "Schon wieder Stau auf der A9", want: "wrath", wantOK: true},
		{name: "portuguese", text: "O aluguel subiu de novo", want: "greed", wantOK: true},
		{name: "japanese", text: "月曜日の朝はつらい", want: "sloth", wantOK: true},
		{name: "korean", text: "커피 없이는 못 살아", want: "gluttony", wantOK: true},
		{name: "chinese", text: "比特币又跌了", want: "greed", wantOK: true},
		{name: "russian", text: "Опять пробки на МКАДе", want: "wrath", wantOK: true},
		{name: "arabic", text: "أحتاج قهوة الآن", want: "gluttony", wantOK: true},
		{name: "italian", text: "Lunedì mattina, caffè numero tre", want: "sloth", wantOK: true},
		{name: "dev", text: "pushed to prod and the stack trace is longer than my will to live", want: "wrath", wantOK: true},
		{name: "wellness", text: "Healed my inner child with a crystal", want: "pride", wantOK: true},
		{name: "bought the dip", text: "bought the dip, it kept dipping", want: "greed", wantOK: true},
		{name: "weak cue alone", text: "I'm so angry right now", want: "wrath", wantOK: true},
		{name: "no cue", text: "The moon looks nice tonight", want: "", wantOK: false},
		{name: "word inside another word", text: "the synthetic syntax of rentals", want: "", wantOK: false},
		{name: "empty", text: "", want: "", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := writer.Classify(tt.text)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Classify(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestFindCue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		text   string
		want   writer.Cue
		wantOK bool
	}{
		{name: "topic of the earliest cue", text: "Need coffee before the deadline", want: writer.Cue{Sin: "gluttony", Topic: "coffee"}, wantOK: true},
		{name: "longer word at the same place", text: "pineapple pizza again", want: writer.Cue{Sin: "gluttony", Topic: "pineapple pizza"}, wantOK: true},
		{name: "weak cue only without a strong one", text: "I hate Mondays", want: writer.Cue{Sin: "sloth", Topic: "Monday"}, wantOK: true},
		{name: "none", text: "The moon looks nice tonight", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := writer.FindCue(tt.text)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("FindCue(%q) = %+v, %v; want %+v, %v", tt.text, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestCueTopics(t *testing.T) {
	t.Parallel()
	for _, sin := range post.Categories {
		if len(writer.CueTopics(sin)) == 0 {
			t.Errorf("no cue topics for %s", sin)
		}
	}
	if got := writer.CueTopics("charity"); len(got) != 0 {
		t.Errorf("CueTopics(charity) = %v, want none", got)
	}
}
