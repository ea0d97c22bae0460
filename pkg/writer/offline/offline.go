// Package offline is the embedded default writer: a deterministic,
// in-character generator that needs no network and no model. It files each
// post under a sin by keyword cues, picks one of several dozen lines written
// for that sin, and weaves in the post's topic, always within the platform's
// limit as its length rule counts (writer.LengthOf: X's weighted 280,
// Bluesky's 300 graphemes, Mastodon's server limit in characters less the
// "@author " its replies start with).
package offline

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"infernal/pkg/guard"
	"infernal/pkg/persona"
	"infernal/pkg/post"
	"infernal/pkg/writer"
)

//go:embed lines.txt
var linesFile string

// Name is what the offline writer calls itself in logs.
const Name = "offline"

// anySin is the header of the lines that serve every sin.
const anySin = "any"

// maxTopicRunes caps a word taken from a post, so that no line outgrows the limit.
const maxTopicRunes = 24

// Writer is the offline writer. Its zero value is not usable; call New.
type Writer struct {
	persona string
	// lines holds the lines per kind and sin; sin anySin serves every sin.
	lines map[lineKey][]string
	// now seeds profile posts that carry no text; see Write.
	now func() time.Time
}

type lineKey struct {
	kind writer.Kind
	sin  string
}

// New returns an offline writer speaking as persona (the handle, without the
// @), used when a request names no persona. It panics if the embedded lines
// are malformed, which the package's tests rule out.
func New(persona string) *Writer {
	lines, err := parseLines(linesFile)
	if err != nil {
		panic(err)
	}
	return &Writer{persona: strings.TrimPrefix(persona, "@"), lines: lines, now: time.Now}
}

// Name identifies the writer in logs.
func (w *Writer) Name() string { return Name }

// Write drafts a response to req.
//
// A reply is a pure function of the request: the same post gets the same
// answer. Its sin comes from keyword cues in the post (see writer.FindCue) or, when
// there are none, from a hash of the post; its topic is the cue's subject, or
// a word quoted from the post, or a stand-in when the post has no usable word.
//
// A thin mention ("@persona thoughts?", see thin) with no cue of its own
// takes its subject from req.Context instead (see subjectText): from the
// quoted post, the parent or an ancestor with a cue, else from a word of
// the quoted post or the parent; its line is then one that names that
// topic. A reply never repeats verbatim one of the persona's own posts in
// the context (compared without leading @handles, case or extra spaces).
//
// A profile post uses req.PostText, when set, as its theme and seed, so it is
// deterministic too; with no PostText it is seeded by the clock, so that each
// "Generate New Profile Tweet" gives a new post.
//
// A regenerated draft (req.CurrentDraft, Instruction or Variant set) is
// seeded by the variant and the instruction too, and differs from the
// current draft; a wish for a shorter one ("shorter", "brief") is answered
// with a shorter line when there is one, and "mention X" weaves X in as the
// topic.
//
// When req.Avoid is set the reply starts from another line and passes over
// those that render too like Avoid.
//
// When req.PreviousDraft is set the answer is shorter than PreviousLength (or
// than the previous draft's length). Every answer fits the platform's limit,
// counted by its length rule (writer.LengthOf). The parameters recorded are
// post.DefaultLLMParameter.
func (w *Writer) Write(ctx context.Context, req writer.Request) (writer.Draft, error) {
	if err := ctx.Err(); err != nil {
		return writer.Draft{}, fmt.Errorf("offline: %w", err)
	}
	var sin post.Category
	var topic string
	var seed uint64
	// fromContext is set when a thin mention answers a context post: its
	// reply names that post's topic, to show what it is answering.
	fromContext := false
	switch req.Kind {
	case writer.KindReply:
		subject := subjectText(req.PostText, withShown(req))
		parts := []string{string(req.Kind), req.Author, req.PostText}
		if subject != req.PostText {
			// A thin mention's line depends on what it answers too.
			parts = append(parts, subject)
			fromContext = true
		}
		if req.Avoid != "" {
			// A redraft starts from another line than the first draft did.
			parts = append(parts, req.Avoid)
		}
		seed = hash(parts...)
		sin, topic = replySubject(subject, seed)
	case writer.KindProfile:
		if req.PostText != "" {
			seed = hash(string(req.Kind), req.PostText)
		} else {
			seed = hash(string(req.Kind), w.now().UTC().Format(time.RFC3339Nano))
		}
		sin, topic = profileSubject(req.PostText, seed)
	default:
		return writer.Draft{}, fmt.Errorf("offline: unknown kind %q", req.Kind)
	}
	regenerating := req.CurrentDraft != "" || req.Instruction != "" || req.Variant > 0
	if regenerating {
		// Each regenerated draft of a post starts from a line of its own.
		seed = hash(strconv.FormatUint(seed, 16), strconv.Itoa(req.Variant), req.Instruction)
		if t, ok := mentionWish(req.Instruction); ok {
			topic = t
		}
	}

	persona := strings.TrimPrefix(req.Persona, "@")
	if persona == "" {
		persona = w.persona
	}
	if persona == "" {
		persona = "infernal"
	}
	length := writer.LengthOf(req)
	limit := fit{rule: length.Rule, max: length.Room}
	if req.PreviousDraft != "" {
		limit = limit.under(length.Previous(req) - 1)
	}
	avoid := req.PreviousDraft
	if avoid == "" {
		avoid = req.CurrentDraft
	}
	full := limit
	if req.CurrentDraft != "" && shorterWish(req.Instruction) {
		limit = limit.under(limit.count(req.CurrentDraft) - 1)
	}

	pool := append(append([]string(nil), w.lines[lineKey{req.Kind, string(sin)}]...), w.lines[lineKey{req.Kind, anySin}]...)
	if fromContext {
		pool = topicLines(pool)
	}
	own := ownTexts(req.Context)
	unfit := func(text string) bool {
		// A redraft keeps clear of the post it would repeat, well below the
		// near-duplicate guard's threshold; no reply repeats one of the
		// persona's own posts in the conversation.
		return text == avoid || (req.Avoid != "" && guard.Similarity(text, req.Avoid) >= avoidSimilarity) || own[comparable(text)]
	}
	character := writer.CharacterOf(req)
	fitting := unfit
	unfit = func(text string) bool {
		_, avoided := guard.MatchPhrase(text, character.AvoidTopics)
		return avoided || fitting(text)
	}
	draw := func(line string) string { return render(line, topic, sin, persona) }
	text := choose(pool, seed, limit, unfit, draw)
	if own := operatorExamples(character); len(own) > 0 && req.Kind == writer.KindReply {
		// A persona the operator wrote examples for speaks in them, so that
		// its preview and its drafts show the change on the embedded
		// default too; the pool's lines serve when none of them fits.
		if t := choose(own, seed, limit, unfit, draw); limit.holds(t) && !unfit(t) {
			text = t
		}
	}
	if limit.max < full.max && (!limit.holds(text) || text == avoid) {
		// No line is shorter than the current draft: the draft cut short
		// is; a one-word draft gets a different line.
		if cut := shortened(req.CurrentDraft, limit); cut != "" {
			text = cut
		} else {
			text = choose(pool, seed, full, unfit, draw)
		}
	}
	if req.Kind == writer.KindReply && (len(req.Examples) > 0 || len(req.Lessons) > 0) {
		// What the persona learned from its editor reshapes the line.
		if t := learned(req, text, limit); t != "" {
			text = t
		}
	}
	if req.Kind == writer.KindReply {
		// A fact from the operator's knowledge base grounds the line.
		if t := grounded(req, text, limit); t != "" {
			text = t
		}
	}
	return writer.Draft{
		Text:             text,
		Category:         sin,
		Temperature:      post.DefaultLLMParameter,
		PresencePenalty:  post.DefaultLLMParameter,
		FrequencyPenalty: post.DefaultLLMParameter,
	}, nil
}

// operatorExamples are the example posts of c that the built-in persona
// does not have: the operator's own.
func operatorExamples(c persona.Persona) []string {
	builtIn := persona.Default().Examples
	var out []string
	for _, e := range c.Examples {
		if !slices.Contains(builtIn, e) {
			out = append(out, e)
		}
	}
	return out
}

// shorterWish reports whether a reviewer's instruction asks for a shorter
// draft, in a few words of the corpus's languages.
func shorterWish(instruction string) bool {
	lower := strings.ToLower(instruction)
	for _, w := range []string{"short", "brief", "concise", "terse", "court", "kürzer", "kurz", "corto", "breve"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// mentionPrefix reads a wish such as "mention the coffee".
var mentionPrefix = regexp.MustCompile(`(?i)^\s*(?:mention|talk about|about)\s+(.+?)\s*[.!]*$`)

// mentionWish returns the subject of a "mention …" wish, when it is short
// enough to weave in as the topic.
func mentionWish(instruction string) (string, bool) {
	m := mentionPrefix.FindStringSubmatch(instruction)
	if m == nil || utf8.RuneCountInString(m[1]) > maxTopicRunes {
		return "", false
	}
	return m[1], true
}

// fit is a limit on a text's length, counted by a platform's length rule.
type fit struct {
	rule post.LengthRule
	max  int
}

// count is text's length under f's rule.
func (f fit) count(text string) int { return f.rule.Count(text) }

// holds reports whether text is within f.
func (f fit) holds(text string) bool { return f.count(text) <= f.max }

// under is f with its max lowered to n when n is lower.
func (f fit) under(n int) fit { return fit{rule: f.rule, max: min(f.max, n)} }

// shortened returns text cut to at most limit: its leading whole sentences
// when they fit, else its leading words and "…"; "" when not even one word
// fits.
func shortened(text string, limit fit) string {
	if cut := leadingSentences(text, limit); cut != "" {
		return cut
	}
	words := strings.Fields(text)
	for n := len(words) - 1; n >= 1; n-- {
		cut := strings.TrimRight(strings.Join(words[:n], " "), ",;:—-") + "…"
		if limit.holds(cut) {
			return cut
		}
	}
	return ""
}

// leadingSentences returns the longest run of text's first whole sentences
// (each ending in ".", "!", "?" or "…") within limit, trimmed; "" when
// not even the first sentence fits or the text is one sentence.
func leadingSentences(text string, limit fit) string {
	out := ""
	for i, r := range text {
		if !strings.ContainsRune(".!?…", r) {
			continue
		}
		end := i + utf8.RuneLen(r)
		if end < len(text) && !unicode.IsSpace(rune(text[end])) {
			// Not a sentence's end: "3.5", "...", "?!" go on.
			continue
		}
		cut := strings.TrimSpace(text[:end])
		if cut == strings.TrimSpace(text) || !limit.holds(cut) {
			break
		}
		out = cut
	}
	return out
}

// avoidSimilarity is the guard.Similarity to req.Avoid from which a
// redraft's line is passed over.
const avoidSimilarity = 0.5

// choose renders the lines of pool from the one seed picks onwards and
// returns the first whose length is within limit and which is not
// unfit (the previous draft, or too like the post to avoid); when none is,
// it returns the shortest rendering.
func choose(pool []string, seed uint64, limit fit, unfit func(string) bool, render func(string) string) string {
	start := int(seed % uint64(len(pool)))
	shortest, shortestLen := "", 0
	for i := range pool {
		text := render(pool[(start+i)%len(pool)])
		n := limit.count(text)
		if n > 0 && n <= limit.max && !unfit(text) {
			return text
		}
		if shortest == "" || n < shortestLen {
			shortest, shortestLen = text, n
		}
	}
	return shortest
}

// replySubject returns the sin and topic of a mortal's post.
func replySubject(text string, seed uint64) (post.Category, string) {
	if c, ok := writer.FindCue(text); ok {
		return c.Sin, c.Topic
	}
	sin := post.Categories[seed%uint64(len(post.Categories))]
	if word := salientWord(text, seed); word != "" {
		return sin, "\u201c" + word + "\u201d"
	}
	standIns := []string{"this confession", "this little post", "that thought", "this mood", "your take", "this whole situation"}
	return sin, standIns[(seed>>8)%uint64(len(standIns))]
}

// profileSubject returns the sin and topic of a profile post: the theme's cue
// when it has one, else a sin and one of its subjects picked by seed.
func profileSubject(theme string, seed uint64) (post.Category, string) {
	if c, ok := writer.FindCue(theme); ok {
		return c.Sin, c.Topic
	}
	sin := post.Categories[seed%uint64(len(post.Categories))]
	topics := writer.CueTopics(sin)
	return sin, topics[(seed>>8)%uint64(len(topics))]
}

var (
	linkPattern    = regexp.MustCompile(`(?i)\b(?:https?://|www\.)\S+`)
	mentionPattern = regexp.MustCompile(`@\w+`)
)

// salientWord picks a word of the post worth quoting back, or "" when the
// post has none (a post in a script written without spaces, say). It takes a
// hashtag's word when there is one; else, by seed, one of the two longest
// words that are no stop words, preferring those that are not the post's
// first word (often a verb or an interjection) and do not look like an
// English verb form or adverb (-ed, -ing, -ly).
func salientWord(text string, seed uint64) string {
	text = linkPattern.ReplaceAllString(text, " ")
	text = mentionPattern.ReplaceAllString(text, " ")
	var tags, words, weak []string
	seen, stop := map[string]bool{}, stopWords()
	first := true
	for _, field := range strings.Fields(text) {
		isTag := strings.HasPrefix(field, "#")
		for _, w := range strings.FieldsFunc(field, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsMark(r) }) {
			lw := strings.ToLower(w)
			wasFirst := first
			first = false
			if seen[lw] || stop[lw] || !wordSized(w) {
				continue
			}
			seen[lw] = true
			switch {
			case isTag:
				tags = append(tags, w)
			case wasFirst || strings.HasSuffix(lw, "ed") || strings.HasSuffix(lw, "ing") || strings.HasSuffix(lw, "ly"):
				weak = append(weak, w)
			default:
				words = append(words, w)
			}
		}
	}
	if len(tags) > 0 {
		return tags[seed%uint64(len(tags))]
	}
	if len(words) == 0 {
		words = weak
	}
	if len(words) == 0 {
		return ""
	}
	sort.SliceStable(words, func(i, j int) bool {
		return utf8.RuneCountInString(words[i]) > utf8.RuneCountInString(words[j])
	})
	// Among the two longest words, short ones only when nothing longer exists.
	n := 1
	if len(words) > 1 && utf8.RuneCountInString(words[1]) >= 5 {
		n = 2
	}
	return words[(seed>>16)%uint64(n)]
}

// wordSized reports whether w is long enough to mean something and short
// enough to quote: four letters or more, two or more in Hangul or Han.
func wordSized(w string) bool {
	n := utf8.RuneCountInString(w)
	if n > maxTopicRunes {
		return false
	}
	r, _ := utf8.DecodeRuneInString(w)
	if unicode.In(r, unicode.Hangul, unicode.Han, unicode.Hiragana, unicode.Katakana) {
		return n >= 2 && n <= 8
	}
	return n >= 4
}

// stopWordList holds common words of the spaced languages mortals post in
// that say nothing about a post.
const stopWordList = `
		this that with have from they what when your just like about been were will would there their them then than
		some more very really only also into over after before because could should being doing going every still even
		much make made know think today time here where which while these those thing things people again never always
		something anything nothing everyone someone anyone everything guys literally actually right need want getting
		said says tell told went back well good sure maybe yeah okay gonna wanna kinda pretty another first last
		para pero como esto esta este todo todos porque cuando donde algo nada mucho tengo estoy otra otro hace
		pour avec dans mais plus tout tous cette comme sont suis être avoir fait quand aussi très jour encore rien
		oder aber nicht eine einen sich auch noch schon heute wieder mein meine dass wenn immer für über sehr habe
		isso esse essa está estou muito hoje ainda tudo mais quem você
		это что как когда меня очень сегодня опять снова потому просто тоже`

// stopWords returns stopWordList as a set.
func stopWords() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(stopWordList) {
		m[w] = true
	}
	return m
}

// render fills a line's placeholders.
func render(line, topic string, sin post.Category, persona string) string {
	return strings.NewReplacer(
		"{topic}", topic,
		"{Topic}", capitalise(topic),
		"{sin}", string(sin),
		"{Sin}", capitalise(string(sin)),
		"{persona}", persona,
	).Replace(line)
}

// capitalise upper-cases the first letter of s, past any opening quote.
func capitalise(s string) string {
	for i, r := range s {
		if unicode.IsLetter(r) {
			return s[:i] + string(unicode.ToUpper(r)) + s[i+utf8.RuneLen(r):]
		}
	}
	return s
}

// hash is the FNV-1a hash of parts, each followed by a zero byte, with its
// bits mixed (the SplitMix64 finaliser) since FNV's low bits vary little
// between similar texts and the writer takes several picks from them.
func hash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	x := h.Sum64()
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// parseLines reads the embedded lines file: [kind sin] headers, one line per
// line, # comments and blank lines skipped.
func parseLines(src string) (map[lineKey][]string, error) {
	lines := map[lineKey][]string{}
	var key *lineKey
	sc := bufio.NewScanner(strings.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			f := strings.Fields(strings.Trim(line, "[]"))
			if len(f) != 2 || !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("offline: lines.txt:%d: bad header %q", n, line)
			}
			k := lineKey{kind: writer.Kind(f[0]), sin: f[1]}
			if k.kind != writer.KindReply && k.kind != writer.KindProfile {
				return nil, fmt.Errorf("offline: lines.txt:%d: unknown kind %q", n, f[0])
			}
			if _, err := post.ParseCategory(k.sin); err != nil && k.sin != anySin {
				return nil, fmt.Errorf("offline: lines.txt:%d: %w", n, err)
			}
			key = &k
		case key == nil:
			return nil, fmt.Errorf("offline: lines.txt:%d: line before any header", n)
		default:
			lines[*key] = append(lines[*key], line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("offline: lines.txt: %w", err)
	}
	for _, kind := range []writer.Kind{writer.KindReply, writer.KindProfile} {
		for _, sin := range append([]string{anySin}, categoryNames()...) {
			if len(lines[lineKey{kind, sin}]) == 0 {
				return nil, fmt.Errorf("offline: lines.txt: no lines for %s %s", kind, sin)
			}
		}
	}
	return lines, nil
}

func categoryNames() []string {
	out := make([]string, len(post.Categories))
	for i, c := range post.Categories {
		out[i] = string(c)
	}
	return out
}
