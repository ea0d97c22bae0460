package post

import "testing"

func TestSummoned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    Post
		want bool
	}{
		{name: "a mention", p: Post{Source: SourceMention, OriginalPostText: "hm"}, want: true},
		{name: "conversation naming the persona", p: Post{Source: SourceConversation, OriginalPostText: "ask @Infernal_AI about it"}, want: true},
		{name: "full-width at sign", p: Post{Source: SourceTargeted, OriginalPostText: "＠infernal_ai hi"}, want: true},
		{name: "conversation without the persona", p: Post{Source: SourceConversation, OriginalPostText: "coffee again"}, want: false},
		{name: "a longer handle", p: Post{Source: SourceConversation, OriginalPostText: "@infernal_ai2 hi"}, want: false},
		{name: "an e-mail address", p: Post{Source: SourceConversation, OriginalPostText: "me@infernal_ai"}, want: false},
		{name: "at the end", p: Post{Source: SourceConversation, OriginalPostText: "thoughts, @infernal_ai"}, want: true},
	}
	for _, tt := range tests {
		if got := tt.p.Summoned("@infernal_ai"); got != tt.want {
			t.Errorf("%s: Summoned = %v, want %v", tt.name, got, tt.want)
		}
	}
	if (Post{Source: SourceConversation, OriginalPostText: "@ hi"}).Summoned("") {
		t.Error("an empty handle is summoned")
	}
}
