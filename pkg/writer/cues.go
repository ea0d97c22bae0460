package writer

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"infernal/pkg/post"
)

// cue ties words found in a mortal's post to the sin they betray and to the
// topic the persona will talk about. Topics are singular noun phrases that
// read well after "about" and before "is", so that every line fits them.
type cue struct {
	sin   post.Category
	topic string
	// words are lower-case forms in any language. A word in a spaced script
	// (Latin, Cyrillic, Greek) matches as a whole word; a trailing * lets any
	// letters follow. Words in other scripts (CJK, Hangul, Arabic) match
	// anywhere, since those scripts glue particles to their words.
	words []string
	// weak cues name a mood rather than a subject (rage, love); they count
	// only when no other cue is found, so "I hate Mondays" is about Monday.
	weak bool
}

// cues is cueTable, built once: FindCue reads it for every draft.
var cues = sync.OnceValue(cueTable)

// cueTable lists the keyword cues, most specific first where two could match
// at the same place ("pineapple pizza" before "pizza").
func cueTable() []cue {
	return []cue{
		// Gluttony.
		strongCue("gluttony", "pineapple pizza", "pineapple pizza", "pineapple on pizza", "pizza hawaiana", "pizza hawaï", "pizza hawaienne", "pizza havaiana", "hawaii pizza", "pizza hawaii", "ananas", "piña en la pizza", "パイナップルピザ", "하와이안 피자", "菠萝披萨", "пицца с ананасами"),
		strongCue("gluttony", "pizza", "pizza", "pizzas", "ピザ", "피자", "披萨", "пицца", "بيتزا"),
		strongCue("gluttony", "coffee", "coffee", "espresso", "latte", "cappuccino", "café", "cafe", "cafezinho", "kaffee", "コーヒー", "커피", "咖啡", "кофе", "قهوة", "coffees", "caffè", "caffe"),
		strongCue("gluttony", "brunch", "brunch", "avocado toast", "mimosas", "bottomless"),
		strongCue("gluttony", "dessert", "cake", "cakes", "donut", "donuts", "doughnut*", "croissant*", "chocolate", "dessert*", "cookies", "pastel", "gâteau", "kuchen", "bolo", "ケーキ", "케이크", "蛋糕", "торт", "шоколад"),
		strongCue("gluttony", "cheese", "cheese", "fromage", "käse", "queso", "queijo", "formaggio", "churros", "チーズ", "치즈", "奶酪", "сыр"),
		strongCue("gluttony", "ramen", "ramen", "ラーメン", "라면", "拉面"),
		strongCue("gluttony", "takeaway", "burger*", "taco", "tacos", "fries", "sushi", "kebab", "takeaway", "takeout", "delivery", "寿司", "치킨", "火锅", "шаурм*"),
		strongCue("gluttony", "the diet", "diet", "dieting", "calories", "dieta", "régime", "diät", "ダイエット", "다이어트", "减肥", "диет*"),
		strongCue("gluttony", "wine o'clock", "wine", "beer", "beers", "cocktail*", "vino", "cerveza", "vin", "bière", "wein", "bier", "cerveja", "vinho", "ビール", "맥주", "啤酒", "пиво"),
		weakCue("gluttony", "snack o'clock", "hungry", "snack", "snacks", "snacking", "buffet", "hambre", "faim", "hunger", "fome", "お腹すいた", "배고파", "饿了", "голоден", "голодн*", "dinner", "lunch", "breakfast", "eat", "ate", "eating", "comer", "comí", "manger", "mangé", "essen", "comi", "mangiare"),

		// Sloth.
		strongCue("sloth", "Monday", "monday", "mondays", "lunes", "lundi", "montag", "segunda-feira", "月曜", "월요일", "星期一", "周一", "понедельник*", "الاثنين", "الإثنين", "lunedì"),
		strongCue("sloth", "the alarm clock", "alarm", "alarms", "snooze", "despertador", "réveil", "wecker", "目覚まし", "알람", "闹钟", "будильник*"),
		strongCue("sloth", "the nap", "nap", "naps", "napping", "sleep", "asleep", "sleepy", "siesta", "sieste", "schlafen", "müde", "dormir", "sono", "眠い", "昼寝", "졸려", "낮잠", "睡觉", "困了", "спать", "сплю", "نوم", "sleeping", "slept", "insomnia", "3am"),
		strongCue("sloth", "procrastination", "procrastinat*", "procrastinar", "procrastiner", "prokrastin*", "先延ばし", "미루", "拖延", "прокрастин*", "writer's block"),
		strongCue("sloth", "the weekend", "weekend", "weekends", "couch", "sofa", "netflix", "binge*", "fin de semana", "week-end", "wochenende", "fim de semana", "週末", "주말", "周末", "выходные"),
		strongCue("sloth", "working from home", "work from home", "working from home", "wfh", "home office", "homeoffice", "teletrabajo", "télétravail"),
		weakCue("sloth", "exhaustion", "tired", "exhausted", "burnout", "cansado", "cansada", "fatigué", "fatiguée", "erschöpft", "疲れ", "피곤", "好累", "устал*"),

		// Greed.
		strongCue("greed", "crypto", "crypto", "cryptos", "bitcoin", "btc", "ethereum", "nft", "nfts", "blockchain", "memecoin*", "dogecoin", "hodl", "altcoin*", "cripto", "criptomoneda*", "krypto", "暗号資産", "ビットコイン", "비트코인", "코인", "比特币", "加密货币", "крипт*", "биткоин*", "بيتكوين", "bought the dip", "buy the dip", "criptomoeda*", "criptovalut*"),
		strongCue("greed", "tax season", "tax", "taxes", "irs", "impuestos", "hacienda", "impôts", "steuer*", "finanzamt", "impostos", "imposto de renda", "税金", "確定申告", "세금", "交税", "налог*", "ضرائب", "tasse"),
		strongCue("greed", "rent", "rent", "landlord*", "alquiler", "loyer", "miete", "aluguel", "家賃", "월세", "房租", "аренд*", "إيجار", "affitto"),
		strongCue("greed", "the stock market", "stocks", "stock market", "portfolio", "trading", "invest*", "bolsa de valores", "bourse", "aktien", "ações", "株価", "주식", "股票", "акци*"),
		strongCue("greed", "money", "money", "salary", "paycheck", "payday", "bonus", "sueldo", "dinero", "salaire", "argent", "gehalt", "geld", "salário", "dinheiro", "給料", "お金", "월급", "돈", "工资", "钱", "зарплат*", "деньги", "راتب", "فلوس", "bank statement", "subscription*", "budget", "bills", "dollars", "salary"),
		strongCue("greed", "shopping", "black friday", "shopping", "cart", "compras", "soldes", "買い物", "쇼핑", "购物", "шопинг"),

		// Wrath.
		strongCue("wrath", "the deadline", "deadline", "deadlines", "due date", "plazo", "fecha límite", "échéance", "abgabe*", "prazo", "締め切り", "締切", "마감", "截止", "дедлайн*", "urgent", "asap", "scadenza"),
		strongCue("wrath", "traffic", "traffic", "commute", "tráfico", "atasco", "embouteillage*", "bouchons", "stau", "trânsito", "渋滞", "출근길", "교통체증", "堵车", "пробк*", "زحمة", "traffico"),
		strongCue("wrath", "the meeting", "meeting", "meetings", "zoom call", "standup", "stand-up", "reunión", "réunion", "besprechung", "reunião", "会議", "회의", "开会", "совещани*", "riunione"),
		strongCue("wrath", "the printer", "printer", "wifi", "wi-fi", "router", "impresora", "imprimante", "drucker", "impressora", "プリンター", "프린터", "打印机", "принтер"),
		strongCue("wrath", "the bug", "bug", "bugs", "deploy", "deployed", "prod", "compile*", "code review", "merge conflict", "stack trace"),
		strongCue("wrath", "the queue", "queue", "queues", "airport", "delayed", "cancelled", "canceled", "file d'attente", "warteschlange", "fila", "行列", "排队", "очеред*"),
		strongCue("wrath", "the neighbour", "neighbor", "neighbors", "neighbour", "neighbours", "vecino", "vecinos", "voisin", "voisins", "nachbar*", "vizinho", "隣人", "이웃", "邻居", "сосед*"),
		weakCue("wrath", "rage", "angry", "furious", "rage", "hate", "enojado", "furioso", "furieux", "wütend", "raiva", "ムカつく", "화나", "生气", "бесит", "злой"),

		// Envy.
		strongCue("envy", "your ex", "ex", "exes", "ex-boyfriend", "ex-girlfriend", "ex-husband", "ex-wife", "元カレ", "元カノ", "전남친", "전여친", "前任", "бывш*"),
		strongCue("envy", "the influencer", "influencer*", "instagram", "insta", "tiktok", "followers", "インスタ", "인스타", "网红", "инстаграм*", "блогер*"),
		strongCue("envy", "someone else's holiday", "vacation", "holiday", "holidays", "beach", "maldives", "bali", "vacaciones", "vacances", "urlaub", "férias", "旅行", "휴가", "度假", "отпуск*"),
		strongCue("envy", "the promotion", "promotion", "promoted", "coworker", "coworkers", "colleague", "colleagues", "ascenso", "beförderung", "promoção", "昇進", "승진", "升职", "повышени*"),
		weakCue("envy", "jealousy", "jealous", "envy", "envious", "celos", "envidia", "jaloux", "jalouse", "neidisch", "inveja", "ciúmes", "羨ましい", "嫉妬", "부럽", "질투", "羡慕", "嫉妒", "завид*"),
		strongCue("envy", "the new phone", "iphone", "new phone", "new car", "tesla", "upgrade"),

		// Lust.
		strongCue("lust", "the dating app", "tinder", "bumble", "hinge", "dating app", "dating apps", "swipe", "swiping", "マッチングアプリ", "소개팅", "相亲", "знакомств*"),
		strongCue("lust", "the date", "first date", "date night", "date", "dates", "cita", "rendez-vous", "encontro", "デート", "데이트", "约会", "свидани*", "موعد"),
		strongCue("lust", "the crush", "crush", "crushing", "flirt*", "kiss", "beso", "bisou", "kuss", "beijo", "キス", "키스", "暗恋", "поцелу*"),
		strongCue("lust", "the wedding", "valentine*", "wedding", "weddings", "boda", "mariage", "hochzeit", "casamento", "バレンタイン", "결혼", "婚礼", "свадьб*"),
		weakCue("lust", "love", "love", "in love", "romance", "romantic", "amor", "enamorad*", "amour", "amoureux", "liebe", "verliebt", "apaixonad*", "恋", "사랑", "爱情", "любовь", "влюб*", "حب"),

		// Pride.
		strongCue("pride", "the gym", "gym", "workout", "leg day", "gains", "protein", "lifting", "crossfit", "gimnasio", "salle de sport", "muscu", "fitnessstudio", "academia", "ジム", "筋トレ", "헬스", "健身", "спортзал", "качалк*", "نادي رياضي", "pushups", "push-ups", "palestra"),
		strongCue("pride", "the marathon", "marathon", "half marathon", "5k", "10k", "jogging", "run club", "maratón", "laufen", "corrida", "マラソン", "마라톤", "马拉松", "марафон*"),
		strongCue("pride", "AI", "ai", "a.i.", "chatgpt", "gpt", "llm", "llms", "artificial intelligence", "machine learning", "inteligencia artificial", "intelligence artificielle", "künstliche intelligenz", "inteligência artificial", "人工知能", "生成ai", "인공지능", "人工智能", "ии", "нейросет*", "ذكاء اصطناعي"),
		strongCue("pride", "the hustle", "startup", "startups", "founder", "hustle", "grind", "grindset", "linkedin", "ceo", "emprendedor", "entrepreneur", "gründer", "empreendedor", "起業", "창업", "创业", "стартап*", "9-5", "9 to 5", "masterclass", "mindset", "morning routine", "cold plunge", "livestream", "podcast", "sponsor*", "brand deal"),
		strongCue("pride", "the wellness routine", "crystal", "crystals", "green juice", "detox", "inner child", "self-care", "manifest", "manifesting", "journaling", "retreat"),
		strongCue("pride", "the selfie", "selfie", "selfies", "outfit", "ootd", "自撮り", "셀카", "自拍", "селфи"),
		weakCue("pride", "bragging", "proud", "nailed it", "humble brag", "humblebrag", "orgulloso", "orgullosa", "fier", "fière", "stolz", "orgulho", "誇り", "자랑", "骄傲", "горжусь"),
	}
}

func strongCue(sin post.Category, topic string, words ...string) cue {
	return cue{sin: sin, topic: topic, words: words}
}

func weakCue(sin post.Category, topic string, words ...string) cue {
	return cue{sin: sin, topic: topic, words: words, weak: true}
}

// Cue is what a keyword cue found in a text says about it: the sin the text
// betrays and the topic it is about.
type Cue struct {
	Sin post.Category
	// Topic is a singular noun phrase that reads well after "about" and
	// before "is" ("coffee", "the deadline").
	Topic string
}

// FindCue returns the cue whose word occurs earliest in text; at the same
// place the longer word wins, then the cue listed first. Weak cues (a mood
// rather than a subject) are looked at only when no other cue is found. ok
// is false when no cue is found.
func FindCue(text string) (c Cue, ok bool) {
	lower := strings.ToLower(norm.NFC.String(splitHashtags(text)))
	for _, weak := range []bool{false, true} {
		var best cue
		found, bestPos, bestLen := false, -1, 0
		for _, c := range cues() {
			if c.weak != weak {
				continue
			}
			for _, w := range c.words {
				pos, n := indexWord(lower, w)
				if pos < 0 {
					continue
				}
				if bestPos < 0 || pos < bestPos || (pos == bestPos && n > bestLen) {
					best, found, bestPos, bestLen = c, true, pos, n
				}
			}
		}
		if found {
			return Cue{Sin: best.sin, Topic: best.topic}, true
		}
	}
	return Cue{}, false
}

// Classify guesses the sin a text betrays from keyword cues in several
// languages (coffee and pizza are gluttony, Mondays sloth, crypto greed,
// deadlines wrath, exes envy, dates lust, the gym pride). ok is false when no
// cue is found.
func Classify(text string) (c post.Category, ok bool) {
	found, ok := FindCue(text)
	return found.Sin, ok
}

// CueTopics returns the topics of the cues of sin, in the table's order.
func CueTopics(sin post.Category) []string {
	var topics []string
	for _, c := range cues() {
		if c.sin == sin {
			topics = append(topics, c.topic)
		}
	}
	return topics
}

// indexWord finds word in s, which are both lower case, and returns the byte
// position and length of the first acceptable occurrence, or -1.
func indexWord(s, word string) (int, int) {
	wild := strings.HasSuffix(word, "*")
	word = strings.TrimSuffix(word, "*")
	first, _ := utf8.DecodeRuneInString(word)
	last, _ := utf8.DecodeLastRuneInString(word)
	spaced := isSpacedScript(first)
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return -1, 0
		}
		start, end := from+i, from+i+len(word)
		if !spaced || (wordBoundaryBefore(s, start, first) && (wild || wordBoundaryAfter(s, end, last))) {
			if wild {
				for end < len(s) {
					r, size := utf8.DecodeRuneInString(s[end:])
					if !unicode.IsLetter(r) {
						break
					}
					end += size
				}
			}
			return start, end - start
		}
		_, size := utf8.DecodeRuneInString(s[start:])
		from = start + size
	}
	return -1, 0
}

// isSpacedScript reports whether r belongs to a script that separates its
// words with spaces, so that a cue must match a whole word there.
func isSpacedScript(r rune) bool {
	return r < 0x80 || unicode.In(r, unicode.Latin, unicode.Cyrillic, unicode.Greek)
}

func wordBoundaryBefore(s string, i int, first rune) bool {
	if i == 0 || !isWordChar(first) {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	// An apostrophe before a word glues it to the one before: French "j'ai"
	// is not about AI.
	return !isWordChar(r) && r != '\'' && r != '’'
}

func wordBoundaryAfter(s string, i int, last rune) bool {
	if i >= len(s) || !isWordChar(last) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return !isWordChar(r)
}

func isWordChar(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// splitHashtags spells camel-cased hashtags as words ("#MondayMotivation"
// becomes "#Monday Motivation") so that their cues can be found.
func splitHashtags(text string) string {
	var b strings.Builder
	b.Grow(len(text) + 8)
	inTag := false
	var prev rune
	for _, r := range text {
		switch {
		case r == '#':
			inTag = true
		case inTag && !isWordChar(r):
			inTag = false
		case inTag && unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}
