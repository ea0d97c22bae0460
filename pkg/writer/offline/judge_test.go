package offline

import (
	"strings"
	"testing"

	"infernal/pkg/persona"
	"infernal/pkg/writer"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	reply := writer.Request{Kind: writer.KindReply, Persona: "infernal_ai", Author: "maria_g", PostText: "Third coffee and it's not even 10am"}
	avoid := reply
	avoid.Character = persona.Persona{Voice: "v", AvoidTopics: []string{"espresso"}}
	repeat := reply
	repeat.Context = []writer.ContextPost{{Relation: writer.RelationPersona, Author: "infernal_ai", Text: "Coffee is hell's holy water and you are drinking the font dry."}}
	tests := []struct {
		name  string
		req   writer.Request
		draft string
		want  int
	}{
		{name: "a good reply", req: reply, draft: "Third coffee? Hell runs on it too. Filed under gluttony.", want: 5},
		{name: "empty", req: reply, draft: "  ", want: 1},
		{name: "a link", req: reply, draft: "Coffee: https://example.com", want: 2},
		{name: "a stranger mentioned", req: reply, draft: "Coffee, @someone_else, is my doing.", want: 2},
		{name: "an avoided topic", req: avoid, draft: "Coffee? Espresso is hell's holy water.", want: 2},
		{name: "too long", req: reply, draft: "Coffee " + strings.Repeat("brimstone ", 40), want: 2},
		{name: "repeats itself", req: repeat, draft: "Coffee is hell's holy water and you are drinking the font dry.", want: 2},
		{name: "off the post", req: reply, draft: "The damned queue politely.", want: 3},
		{name: "a profile post needs no post", req: writer.Request{Kind: writer.KindProfile}, draft: "The damned queue politely.", want: 5},
	}
	w := New("infernal_ai")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := w.Judge(t.Context(), tt.req, tt.draft)
			if err != nil || got.Score != tt.want || got.By != Name || got.Reason == "" {
				t.Fatalf("Judge = %+v, %v; want score %d by %s", got, err, tt.want, Name)
			}
			again, _ := w.Judge(t.Context(), tt.req, tt.draft)
			if again != got {
				t.Errorf("not deterministic: %+v then %+v", got, again)
			}
		})
	}
	var _ writer.Judge = w
}
