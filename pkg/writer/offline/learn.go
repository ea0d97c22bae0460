package offline

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/twittertext"
	"infernal/pkg/writer"
)

// The lessons the offline writer distils, and honours (see learned).
const (
	LessonNoEmoji       = "No emoji"
	LessonNoHashtags    = "No hashtags"
	LessonNoExclamation = "No exclamation marks"
	LessonLanguage      = "Reply in the language of the mortal's post"
	lessonShorterFormat = "Keep replies under about %d characters"
	lessonLongerFormat  = "Replies may run longer, about %d characters"
	lessonOpeningFormat = "Don't open with %q"
)

// quickReasonLessons are the lessons of Telegram's quick rejection reasons;
// "Other" teaches nothing by itself.
var quickReasonLessons = map[string]string{
	"off-topic":  "Stay on the topic of the mortal's post",
	"wrong tone": "Keep to the persona's tone; a draft in another was rejected",
	"too long":   "Keep replies short",
	"unsafe":     "Stay well clear of anything that could be unsafe",
	"other":      "",
}

// Distill derives one lesson from an edit or a rejection, deterministically,
// from the difference between the draft and the final text, checked in
// this order: a rejection's reason; emoji, hashtags or exclamation marks
// removed; the reply's language changed (to the post's, by its
// platform's word when it gave one); much shorter (at most 60 %) or
// longer (at least 160 %); the opening changed. "" when none applies.
func (w *Writer) Distill(ctx context.Context, e writer.Edit) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("offline: distill: %w", err)
	}
	return distill(e), nil
}

func distill(e writer.Edit) string {
	if e.Rejected {
		reason := strings.TrimSpace(e.Reason)
		if l, ok := quickReasonLessons[strings.ToLower(reason)]; ok {
			return l
		}
		if reason == "" {
			return ""
		}
		return cut("Avoid drafts like one rejected as: "+reason, 200)
	}
	draft, final := strings.TrimSpace(e.Draft), strings.TrimSpace(e.Final)
	if draft == "" || final == "" || draft == final {
		return ""
	}
	switch {
	case hasEmoji(draft) && !hasEmoji(final):
		return LessonNoEmoji
	case hashtag.MatchString(draft) && !hashtag.MatchString(final):
		return LessonNoHashtags
	case strings.Contains(draft, "!") && !strings.Contains(final, "!"):
		return LessonNoExclamation
	}
	// The post's language is the platform's word when it gave one, else
	// guessed like the draft's and the final text's.
	pl := post.PrimaryLanguage(e.Language)
	if pl == "" {
		pl = language(e.Post)
	}
	if dl, fl := language(draft), language(final); dl != "" && fl != "" && dl != fl && (pl == "" || pl == fl) {
		return LessonLanguage
	}
	dn, fn := twittertext.WeightedLength(draft), twittertext.WeightedLength(final)
	switch {
	case fn*10 <= dn*6:
		return fmt.Sprintf(lessonShorterFormat, roundUp(fn, 10))
	case fn*10 >= dn*16:
		return fmt.Sprintf(lessonLongerFormat, roundUp(fn, 10))
	}
	dw, fw := strings.Fields(draft), strings.Fields(final)
	if len(dw) > 1 && len(fw) > 1 && !strings.EqualFold(dw[0], fw[0]) && wordOnly(dw[0]) &&
		guard.Similarity(strings.Join(dw[1:], " "), strings.Join(fw[1:], " ")) >= 0.5 {
		return fmt.Sprintf(lessonOpeningFormat, dw[0])
	}
	return ""
}

// learned is text reshaped by req's examples and lessons, within limit:
// with examples, a text much longer than the best one's reply is cut
// near its length; each lesson the offline writer knows (see Distill, or
// the same words in a manual lesson) is honoured. Without either, text is
// returned as it is.
func learned(req writer.Request, text string, limit fit) string {
	if len(req.Examples) > 0 {
		target := limit.count(req.Examples[0].Reply) + 20
		if limit.count(text) > target*3/2 {
			if c := shortened(text, limit.under(target)); c != "" {
				text = c
			}
		}
	}
	for _, l := range req.Lessons {
		low := strings.ToLower(l.Text)
		switch {
		case strings.Contains(low, "no emoji"):
			text = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
				if isEmoji(r) {
					return -1
				}
				return r
			}, text)), " ")
		case strings.Contains(low, "no hashtag"):
			text = strings.Join(strings.Fields(hashtag.ReplaceAllString(text, "")), " ")
		case strings.Contains(low, "no exclamation"):
			text = strings.ReplaceAll(text, "!", ".")
		case underAbout.MatchString(low):
			if n, err := strconv.Atoi(underAbout.FindStringSubmatch(low)[1]); err == nil && n > 0 && limit.count(text) > n {
				if c := shortened(text, limit.under(n)); c != "" {
					text = c
				}
			}
		case strings.HasPrefix(low, "don't open with "):
			opening := strings.Trim(l.Text[len("don't open with "):], `"`)
			if f := strings.Fields(text); len(f) > 1 && strings.EqualFold(f[0], opening) {
				text = capitalise(strings.Join(f[1:], " "))
			}
		}
	}
	return strings.TrimSpace(text)
}

// underAbout reads a length lesson ("keep replies under about 120 characters").
var underAbout = regexp.MustCompile(`^keep replies under about (\d{1,4})\b`)

// hashtag finds a hashtag.
var hashtag = regexp.MustCompile(`(^|\s)#[\p{L}\p{N}_]+`)

func hasEmoji(s string) bool {
	return strings.IndexFunc(s, isEmoji) >= 0
}

// isEmoji reports whether r is a pictograph, a dingbat or an emoji's
// joiner or presentation selector.
func isEmoji(r rune) bool {
	return (r >= 0x1F000 && r <= 0x1FAFF) || (r >= 0x2600 && r <= 0x27BF) || r == 0xFE0F || r == 0x200D
}

// wordOnly reports whether w is letters with at most trailing punctuation:
// a safe opening to quote in a lesson.
func wordOnly(w string) bool {
	w = strings.TrimRight(w, ",.!?:;…")
	if w == "" {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '\'' {
			return false
		}
	}
	return true
}

// languageWords are a few of each language's commonest words.
var languageWords = map[string][]string{
	"en": {"the", "and", "you", "is", "are", "this", "that", "with", "your", "not"},
	"fr": {"le", "la", "les", "et", "est", "vous", "tu", "une", "des", "pas"},
	"de": {"der", "die", "das", "und", "ist", "nicht", "du", "ich", "ein", "mit"},
	"es": {"el", "los", "las", "y", "es", "que", "una", "por", "pero", "tu"},
}

// language guesses text's language among English, French, German and
// Spanish by their commonest words; "" when none stands out.
func language(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) })
	best, bestN, second := "", 0, 0
	for _, lang := range []string{"en", "fr", "de", "es"} {
		n := 0
		for _, w := range words {
			for _, c := range languageWords[lang] {
				if w == c {
					n++
				}
			}
		}
		switch {
		case n > bestN:
			best, second, bestN = lang, bestN, n
		case n > second:
			second = n
		}
	}
	if bestN < 2 || bestN == second {
		return ""
	}
	return best
}

func roundUp(n, step int) int {
	return max((n+step-1)/step*step, 40)
}

// cut is s at most n characters.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// broken reports whether draft breaks lesson, among those the offline
// writer knows how to check.
func broken(lesson, draft string, rule post.LengthRule) bool {
	low := strings.ToLower(lesson)
	switch {
	case strings.Contains(low, "no emoji"):
		return hasEmoji(draft)
	case strings.Contains(low, "no hashtag"):
		return hashtag.MatchString(draft)
	case strings.Contains(low, "no exclamation"):
		return strings.Contains(draft, "!")
	case underAbout.MatchString(low):
		n, err := strconv.Atoi(underAbout.FindStringSubmatch(low)[1])
		return err == nil && rule.Count(draft) > n
	}
	return false
}
