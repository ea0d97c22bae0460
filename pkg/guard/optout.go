package guard

import (
	"slices"
	"strings"
	"sync"
)

// optOutRules are one language's ways of telling the persona to stop, each
// written as people type them; they are compared in Canonical form, so
// accents, case and look-alike letters do not matter.
type optOutRules struct {
	// anywhere are opt-outs wherever they appear, unless negated
	// ("don't leave me alone").
	anywhere []string
	// start are opt-outs only at the start of a clause, after filler words
	// at most: "go away" and "please go away", not "the pain won't go away"
	// or "make the rain go away".
	start []string
	// alone are opt-outs when a clause holds nothing else but filler
	// ("stop", "please stop!!", "stop it now"), not "bus stop", "don't
	// stop" or "can't stop laughing".
	alone []string
	// negators cancel an anywhere or start phrase right after them (one word
	// may come between: "don't you leave me alone"), unless a question word
	// comes before them ("why can't you leave me alone").
	negators []string
	// questions are the question words that turn a negator back.
	questions []string
}

// optOutLanguages returns the rules of English and of the corpus's other
// languages (Spanish, French, German, Portuguese, Japanese, Korean,
// Chinese, Arabic, Russian, Italian).
func optOutLanguages() []optOutRules {
	return []optOutRules{
		{ // English; STOP, CANCEL, END, QUIT and UNSUBSCRIBE are the SMS opt-out keywords.
			anywhere: []string{
				"leave me alone", "leave me the fuck alone", "unsubscribe", "opt out",
				"stop replying", "stop responding", "stop answering", "stop messaging", "stop texting",
				"stop tagging", "stop mentioning", "stop talking to me", "stop commenting", "stop spamming",
				"stop bothering me", "stop harassing me", "stop following me", "stop it bot", "stop bot",
				"quit replying", "quit tagging me", "quit bothering me",
				"don't reply", "do not reply", "don't respond", "do not respond", "don't answer me",
				"don't talk to me", "do not talk to me", "don't tag me", "do not tag me",
				"don't mention me", "do not mention me", "don't message me", "don't contact me",
				"do not contact me", "never reply to me", "never talk to me", "no more replies",
				"block me", "block you", "blocking you", "block this bot", "blocking this bot",
				"reported and blocked", "mute you", "muting you",
			},
			start:     []string{"go away", "get lost", "piss off", "fuck off", "back off", "shut up bot"},
			alone:     []string{"stop", "stop it", "unsubscribe", "block", "blocked", "enough", "cancel", "end", "quit", "go away"},
			negators:  []string{"don't", "do not", "dont", "never", "can't", "cannot", "cant", "won't", "wont", "not", "doesn't", "didn't", "wouldn't", "shouldn't"},
			questions: []string{"why"},
		},
		{ // Spanish
			anywhere: []string{
				"déjame en paz", "déjame tranquilo", "déjame tranquila", "dejadme en paz",
				"no me respondas", "no respondas", "no me contestes", "no me escribas", "no me menciones",
				"no me etiquetes", "deja de responder", "deja de responderme", "deja de contestarme",
				"deja de escribirme", "deja de mencionarme", "deja de etiquetarme", "deja de molestarme",
				"para de responder", "para de responderme", "darme de baja", "cancelar suscripción",
				"te voy a bloquear", "te bloqueo", "te bloqueé",
			},
			start:     []string{"vete", "lárgate", "piérdete"},
			alone:     []string{"basta", "ya basta", "para", "alto", "bloqueado", "baja"},
			negators:  []string{"no", "nunca"},
			questions: []string{"por qué", "porque"},
		},
		{ // French
			anywhere: []string{
				"laisse-moi tranquille", "laissez-moi tranquille", "fous-moi la paix", "fiche-moi la paix",
				"foutez-moi la paix", "ne me réponds pas", "ne me répondez pas", "ne réponds pas",
				"ne réponds plus", "arrête de me répondre", "arrêtez de me répondre", "arrête de répondre",
				"arrête de me mentionner", "arrête de m'écrire", "arrête de me taguer", "arrête de me harceler",
				"je vais te bloquer", "je te bloque", "me désabonner", "désabonne-moi",
			},
			start:     []string{"va-t'en", "allez-vous-en", "dégage", "casse-toi"},
			alone:     []string{"arrête", "arrêtez", "stop", "assez", "ça suffit", "bloqué"},
			negators:  []string{"ne", "n", "jamais"},
			questions: []string{"pourquoi"},
		},
		{ // German
			anywhere: []string{
				"lass mich in ruhe", "lasst mich in ruhe", "lassen sie mich in ruhe", "antworte mir nicht",
				"antworte nicht mehr", "antworten sie mir nicht", "hör auf zu antworten", "hör auf mir zu antworten",
				"hör auf mich zu erwähnen", "hör auf mich zu markieren", "hör auf mir zu schreiben",
				"schreib mir nicht", "ich blockiere dich", "ich werde dich blockieren", "abmelden", "abbestellen",
			},
			start:     []string{"verschwinde", "hau ab", "geh weg", "zieh leine"},
			alone:     []string{"stopp", "halt", "aufhören", "hör auf", "hört auf", "blockiert", "genug", "es reicht"},
			negators:  []string{"nicht", "nie", "niemals"},
			questions: []string{"warum", "wieso"},
		},
		{ // Portuguese
			anywhere: []string{
				"me deixa em paz", "me deixe em paz", "deixa-me em paz", "deixe-me em paz",
				"não me responda", "não me responde", "não responda", "não me marque", "não me mencione",
				"para de me responder", "pare de me responder", "para de responder", "pare de responder",
				"para de me marcar", "pare de me marcar", "para de me mencionar", "pare de me mencionar",
				"vou te bloquear", "vou bloquear você", "te bloqueei", "cancelar inscrição", "descadastrar",
			},
			start:     []string{"vai embora", "sai daqui", "some daqui", "vaza"},
			alone:     []string{"para", "pare", "chega", "basta", "bloqueado"},
			negators:  []string{"não", "nunca"},
			questions: []string{"por que", "porque"},
		},
		{ // Japanese
			anywhere: []string{
				"ほっといて", "ほっとけ", "放っておいて", "構わないで", "返信しないで", "返信やめて",
				"リプしないで", "リプやめて", "リプライしないで", "話しかけないで", "絡まないで",
				"ブロックします", "ブロックする", "配信停止",
			},
			start:    []string{"消えろ", "あっち行って"},
			alone:    []string{"やめて", "やめろ", "やめてください", "ストップ", "停止", "もういい"},
			negators: []string{},
		},
		{ // Korean
			anywhere: []string{
				"답장하지 마", "답장하지 마세요", "답장 하지 마", "답글 달지 마", "답글 달지 마세요",
				"댓글 달지 마", "나한테 말 걸지 마", "말 걸지 마세요", "날 내버려 둬", "나 좀 내버려 둬",
				"귀찮게 하지 마", "차단할게", "차단합니다", "차단할게요", "구독 취소",
			},
			start:    []string{"꺼져", "저리 가"},
			alone:    []string{"그만", "그만해", "그만해요", "그만하세요", "멈춰", "차단"},
			negators: []string{},
		},
		{ // Chinese, simplified and traditional
			anywhere: []string{
				"别回复我", "不要回复我", "別回覆我", "不要回覆我", "别回我", "不要回我", "别理我", "別理我",
				"别烦我", "別煩我", "离我远点", "離我遠點", "取消订阅", "取消訂閱", "退订", "退訂",
				"拉黑你", "屏蔽你", "封锁你", "封鎖你",
			},
			start:    []string{"走开", "走開", "滚开", "滾開"},
			alone:    []string{"停", "停止", "别说了", "別說了", "够了", "夠了", "滚", "滾", "拉黑"},
			negators: []string{},
		},
		{ // Arabic
			anywhere: []string{
				"اتركني وشأني", "اتركني في حالي", "دعني وشأني", "لا ترد علي", "لا ترد عليّ", "لا ترد",
				"لا تراسلني", "لا تذكرني", "توقف عن الرد", "كف عن الرد", "توقف عن مراسلتي",
				"سأحظرك", "سوف أحظرك", "إلغاء الاشتراك",
			},
			start:    []string{"ابتعد عني", "اذهب بعيدا", "انقلع"},
			alone:    []string{"توقف", "قف", "كفى", "كفاية", "خلاص", "حظر"},
			negators: []string{},
		},
		{ // Russian
			anywhere: []string{
				"оставь меня в покое", "оставьте меня в покое", "отстань от меня", "не отвечай мне",
				"не отвечай", "не отвечайте", "не пиши мне", "не пишите мне", "не упоминай меня",
				"не отмечай меня", "перестань отвечать", "прекрати отвечать", "хватит отвечать",
				"хватит мне писать", "перестань мне писать", "я тебя заблокирую", "я тебя блокирую",
				"заблокирую тебя", "отпишись", "отписаться",
			},
			start:     []string{"отстань", "отстаньте", "отвали", "уходи", "уйди", "исчезни"},
			alone:     []string{"стоп", "хватит", "прекрати", "перестань", "заблокирован", "довольно"},
			negators:  []string{"не", "никогда"},
			questions: []string{"почему", "зачем"},
		},
		{ // Italian
			anywhere: []string{
				"lasciami in pace", "lasciatemi in pace", "lasciami stare", "non rispondermi",
				"non mi rispondere", "non rispondere", "smettila di rispondere", "smettila di rispondermi",
				"smetti di rispondere", "smetti di rispondermi", "smettila di taggarmi", "smettila di scrivermi",
				"ti blocco", "ti bloccherò", "disiscrivimi", "cancellami",
			},
			start:     []string{"vattene", "sparisci", "levati"},
			alone:     []string{"basta", "smettila", "smetti", "fermati", "bloccato"},
			negators:  []string{"non", "mai"},
			questions: []string{"perché", "perchè"},
		},
	}
}

// optOutFiller are the words that may stand beside an alone or start
// phrase without changing what it asks, in every language of
// optOutLanguages, with the emoji that go with a refusal.
func optOutFiller() []string {
	return []string{
		"please", "pls", "plz", "just", "it", "now", "already", "bot", "ok", "okay", "seriously",
		"dude", "man", "thanks", "thank you", "omg", "oh", "my god", "i said", "again", "right now", "for real",
		"por favor", "porfa", "ya", "ahora", "en serio",
		"s'il te plaît", "s'il vous plaît", "stp", "svp", "maintenant", "tout de suite", "merci",
		"bitte", "jetzt", "sofort", "einfach", "danke",
		"pf", "agora", "já", "obrigado", "obrigada",
		"per favore", "per piacere", "ora", "adesso", "subito", "grazie",
		"пожалуйста", "уже", "просто", "сейчас", "спасибо",
		"من فضلك", "رجاء", "الآن",
		"ください", "お願い", "お願いします", "もう", "今すぐ",
		"请", "吧", "了", "马上", "馬上",
		"제발", "좀", "이제",
		"🛑", "✋", "🙏", "😡", "😠", "🤬", "🙄", "😤", "❌", "🚫", "⛔", "👋",
	}
}

// optOutLaughter marks a text as a joke: "stop 😂" and "stop it lol" are
// not opt-outs. A word that starts with one of these counts ("hahaha").
func optOutLaughter() []string {
	return []string{
		"lol", "lmao", "lmfao", "rofl", "haha", "ahah", "hehe", "jaja", "jeje", "kkk", "rsrs", "mdr", "ptdr",
		"xd", "хаха", "ахах", "ㅋㅋ", "ㅎㅎ", "哈哈", "笑", "www", "😂", "🤣", "😆", "😹", "💀", "😭",
	}
}

// OptOut reports whether text asks the persona to stop answering its
// author, and the phrase that asks it, in English or in one of the
// sandbox corpus's other languages (Spanish, French, German, Portuguese,
// Italian, Russian, Arabic, Japanese, Korean, Chinese). Texts are compared
// in Canonical form with @handles left out. Three kinds of phrase count:
// requests that are clear anywhere ("leave me alone", "don't reply",
// "unsubscribe", "stop replying"), unless negated ("don't leave me
// alone", "I can't stop replying"); dismissals at the start of a clause
// ("go away", "please go away", not "the pain won't go away"); and single
// words that are a request only on their own ("stop", "STOP!!", "please
// stop", "block"), not in "bus stop", "don't stop" or "can't stop
// laughing", nor anywhere in a text that laughs ("stop 😂", "stop lol").
func OptOut(text string) (phrase string, ok bool) {
	var ts []token
	for _, t := range words(text) {
		if !t.mention {
			ts = append(ts, t)
		}
	}
	c := optOutTable()
	laughing := laughs(ts, c.laughter)
	for _, lang := range c.langs {
		for i := range ts {
			for k, p := range lang.anywhere {
				if matchAt(ts, i, p) > 0 && !negated(ts, i, c.negators[p], c.questions[p]) {
					return lang.rules.anywhere[k], true
				}
			}
			for k, p := range lang.start {
				if matchAt(ts, i, p) > 0 && clauseStart(ts, i, c.filler) && !negated(ts, i, c.negators[p], c.questions[p]) {
					return lang.rules.start[k], true
				}
			}
		}
		if laughing {
			continue
		}
		for from := 0; from < len(ts); {
			to := from + 1
			for to < len(ts) && !ts[to].clause {
				to++
			}
			if i, ok := cover(ts[from:to], lang.alone, c.filler); ok {
				return lang.rules.alone[i], true
			}
			from = to
		}
	}
	return "", false
}

// compiledOptOut holds the phrases of optOutLanguages, optOutFiller and
// optOutLaughter in Canonical form, joined.
type compiledOptOut struct {
	langs []compiledLang
	// negators and questions are, for each anywhere and start phrase, those
	// of every language that lists it: a phrase two languages share ("para
	// de responder") is negated by either's negators ("no", "não").
	negators, questions map[string][]string
	filler, laughter    []string
}

// compiledLang is one language's rules with its phrases in Canonical form,
// index for index.
type compiledLang struct {
	rules                  optOutRules
	anywhere, start, alone []string
}

// optOutTable is compiled once, on first use, and never changes after.
var optOutTable = sync.OnceValue(compileOptOut)

func compileOptOut() compiledOptOut {
	c := compiledOptOut{
		negators: map[string][]string{}, questions: map[string][]string{},
		filler: canonicalAll(optOutFiller()), laughter: canonicalAll(optOutLaughter()),
	}
	for _, rules := range optOutLanguages() {
		l := compiledLang{rules: rules, anywhere: canonicalAll(rules.anywhere), start: canonicalAll(rules.start), alone: canonicalAll(rules.alone)}
		c.langs = append(c.langs, l)
		for _, p := range slices.Concat(l.anywhere, l.start) {
			c.negators[p] = append(c.negators[p], canonicalAll(rules.negators)...)
			c.questions[p] = append(c.questions[p], canonicalAll(rules.questions)...)
		}
	}
	return c
}

// canonicalAll returns each phrase as joined returns it.
func canonicalAll(phrases []string) []string {
	out := make([]string, len(phrases))
	for i, p := range phrases {
		out[i] = joined(p)
	}
	return out
}

// negated reports whether one of negators ends right before ts[i], or one
// word before it, with no question word right before the negator.
func negated(ts []token, i int, negators, questions []string) bool {
	for end := i; end >= i-1 && end > 0; end-- {
		for start := end - 1; start >= 0 && start >= end-3; start-- {
			for _, n := range negators {
				if matchAt(ts, start, n) != end-start {
					continue
				}
				if !followsAny(ts, start, questions) {
					return true
				}
			}
		}
	}
	return false
}

// followsAny reports whether one of phrases ends right before ts[i] or one
// word before it ("why can't", "why can you not").
func followsAny(ts []token, i int, phrases []string) bool {
	for end := i; end >= i-1 && end > 0; end-- {
		for start := end - 1; start >= 0 && start >= end-3; start-- {
			for _, p := range phrases {
				if matchAt(ts, start, p) == end-start {
					return true
				}
			}
		}
	}
	return false
}

// clauseStart reports whether ts[i] starts a clause, or only filler words
// come between the clause's start and it.
func clauseStart(ts []token, i int, filler []string) bool {
	from := i
	for from > 0 && !ts[from].clause {
		from--
	}
	if from == i {
		return true
	}
	reach := make([]bool, i-from+1)
	reach[0] = true
	for p := range i - from {
		if !reach[p] {
			continue
		}
		for _, f := range filler {
			if n := matchAt(ts[from:i], p, f); n > 0 {
				reach[p+n] = true
			}
		}
	}
	return reach[i-from]
}

// cover reports whether ts is entirely made of words from alone and
// filler, at least one from alone, and which alone word (its index) it
// used.
func cover(ts []token, alone, filler []string) (int, bool) {
	// used[p] is the index of an alone word used to reach p plus one, 0 if
	// p is reached with filler only, -1 if p is not reached.
	used := make([]int, len(ts)+1)
	for p := range used {
		used[p] = -1
	}
	used[0] = 0
	for p := range ts {
		if used[p] < 0 {
			continue
		}
		for i, a := range alone {
			if n := matchAt(ts, p, a); n > 0 && used[p+n] <= 0 {
				used[p+n] = i + 1
			}
		}
		for _, f := range filler {
			if n := matchAt(ts, p, f); n > 0 && used[p+n] < used[p] {
				used[p+n] = used[p]
			}
		}
	}
	if last := used[len(ts)]; last > 0 {
		return last - 1, true
	}
	return 0, false
}

// laughs reports whether a token starts with, or tokens spell, one of
// laughter.
func laughs(ts []token, laughter []string) bool {
	for i, t := range ts {
		for _, l := range laughter {
			if l != "" && (strings.HasPrefix(t.text, l) || matchAt(ts, i, l) > 0) {
				return true
			}
		}
	}
	return false
}
