package guard

import "testing"

func TestOptOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		text   string
		want   string
		wantOK bool
	}{
		// English requests.
		{name: "stop alone", text: "stop", want: "stop", wantOK: true},
		{name: "STOP with mention and shouting", text: "@infernal STOP!!!", want: "stop", wantOK: true},
		{name: "please stop", text: "@infernal please stop.", want: "stop", wantOK: true},
		// Bluesky's handles are domains: the whole handle is the mention.
		{name: "domain handle then stop", text: "@infernal.test stop", want: "stop", wantOK: true},
		{name: "long domain handle then stop it", text: "@infernal.bsky.social stop it", want: "stop it", wantOK: true},
		{name: "two domain handles then please stop", text: "@a-b.example.com @infernal.test please stop!!", want: "stop", wantOK: true},
		{name: "a sentence's dot after a domain handle", text: "thanks @infernal.test. the bus stop is near", want: "", wantOK: false},
		{name: "stop it now", text: "stop it now", want: "stop it", wantOK: true},
		{name: "stop as its own sentence", text: "Stop. You are a bot and I don't care.", want: "stop", wantOK: true},
		{name: "leave me alone", text: "@infernal just leave me alone", want: "leave me alone", wantOK: true},
		{name: "why can't you leave me alone", text: "why can't you leave me alone", want: "leave me alone", wantOK: true},
		{name: "unsubscribe", text: "how do I unsubscribe from this thing", want: "unsubscribe", wantOK: true},
		{name: "block", text: "Block.", want: "block", wantOK: true},
		{name: "I will block you", text: "one more reply and I will block you", want: "block you", wantOK: true},
		{name: "go away", text: "@infernal go away", want: "go away", wantOK: true},
		{name: "please go away", text: "ugh. please go away bot", want: "go away", wantOK: true},
		{name: "don't reply", text: "don't reply to me again", want: "don't reply", wantOK: true},
		{name: "do not reply, curly apostrophe", text: "Don’t reply.", want: "don't reply", wantOK: true},
		{name: "stop replying", text: "can you stop replying to everything I post", want: "stop replying", wantOK: true},
		// Evasions.
		{name: "spaced out", text: "s t o p", want: "stop", wantOK: true},
		{name: "zero-width split", text: "st\u200bop", want: "stop", wantOK: true},
		{name: "full-width", text: "ＳＴＯＰ", want: "stop", wantOK: true},
		{name: "Cyrillic look-alikes", text: "lеаvе mе аlоnе", want: "leave me alone", wantOK: true},
		// English non-requests.
		{name: "can't stop laughing", text: "I can't stop laughing at this", wantOK: false},
		{name: "bus stop", text: "waiting at the bus stop again", wantOK: false},
		{name: "don't stop", text: "don't stop!", wantOK: false},
		{name: "never stop", text: "never stop posting these", wantOK: false},
		{name: "stop with laughter", text: "stop 😂😂", wantOK: false},
		{name: "stop it lol", text: "STOP IT lol", wantOK: false},
		{name: "stopped", text: "stopped", wantOK: false},
		{name: "don't leave me alone", text: "please don't leave me alone with this coffee", wantOK: false},
		{name: "won't go away", text: "this headache won't go away", wantOK: false},
		{name: "make it go away", text: "make the rain go away", wantOK: false},
		{name: "don't stop replying", text: "don't stop replying, this is gold", wantOK: false},
		{name: "block party", text: "the block party was great", wantOK: false},
		{name: "handle containing stop", text: "@stop_bot hello there", wantOK: false},
		{name: "ordinary post", text: "@infernal is it a sin to eat churros at 2am?", wantOK: false},
		// The corpus's other languages.
		{name: "Spanish", text: "@infernal déjame en paz", want: "déjame en paz", wantOK: true},
		{name: "Spanish without accent", text: "dejame en paz porfa", want: "déjame en paz", wantOK: true},
		{name: "Spanish basta", text: "¡Basta!", want: "basta", wantOK: true},
		{name: "Spanish negated", text: "no para de responder, qué risa", wantOK: false},
		{name: "French", text: "arrête de me répondre", want: "arrête de me répondre", wantOK: true},
		{name: "French negated", text: "n'arrête pas de me répondre", wantOK: false},
		{name: "German", text: "Lass mich in Ruhe!", want: "lass mich in ruhe", wantOK: true},
		{name: "German alone", text: "Hör auf, bitte", want: "hör auf", wantOK: true},
		{name: "Portuguese", text: "me deixa em paz", want: "me deixa em paz", wantOK: true},
		{name: "Italian", text: "lasciami in pace", want: "lasciami in pace", wantOK: true},
		{name: "Italian negated", text: "non smettila di rispondere", wantOK: false},
		{name: "Russian", text: "Оставь меня в покое", want: "оставь меня в покое", wantOK: true},
		{name: "Russian alone", text: "Хватит!", want: "хватит", wantOK: true},
		{name: "Arabic", text: "لا ترد علي", want: "لا ترد علي", wantOK: true},
		{name: "Japanese", text: "返信しないでください", want: "返信しないで", wantOK: true},
		{name: "Japanese alone", text: "やめて", want: "やめて", wantOK: true},
		{name: "Japanese joke", text: "笑わせるのやめて😂", wantOK: false},
		{name: "Korean without the space", text: "답장하지마", want: "답장하지 마", wantOK: true},
		{name: "Chinese", text: "别回复我了", want: "别回复我", wantOK: true},
		{name: "Chinese traditional", text: "別理我", want: "別理我", wantOK: true},
		{name: "corpus post in Russian", text: "понедельник, пробки, дедлайн. Это уже ад или ещё нет?", wantOK: false},
		{name: "corpus post in Japanese", text: "月曜日の朝、コーヒーがないと生きていけない☕ これは罪ですか？", wantOK: false},
		{name: "corpus post in Spanish", text: "¿es pecado comer churros con chocolate a las 2 de la madrugada?", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := OptOut(tt.text)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("OptOut(%q) = %q, %v, want %q, %v", tt.text, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestOptOutRulesAreCanonicalWords(t *testing.T) {
	t.Parallel()
	// Every phrase must survive canonicalisation with at least one word, or
	// it could never match.
	for _, lang := range optOutLanguages() {
		for _, list := range [][]string{lang.anywhere, lang.start, lang.alone, lang.negators, lang.questions} {
			for _, p := range list {
				if joined(p) == "" {
					t.Errorf("phrase %q has no words in Canonical form", p)
				}
			}
		}
	}
}
