package openai

import (
	"bytes"
	"crypto/rand"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"text/template"

	goopenai "github.com/sashabaranov/go-openai"

	"infernal/pkg/persona"
	"infernal/pkg/post"
	"infernal/pkg/writer"
)

//go:embed prompt.tmpl
var promptFile string

func parsePrompt() (*template.Template, error) {
	t, err := template.New("prompt").Funcs(template.FuncMap{"join": strings.Join}).Parse(promptFile)
	if err != nil {
		return nil, fmt.Errorf("openai: prompt template: %w", err)
	}
	return t, nil
}

// promptData is what prompt.tmpl is executed with.
type promptData struct {
	Persona        string
	Kind           writer.Kind
	Author         string
	PostText       string
	PreviousDraft  string
	PreviousLength int
	// Avoid is a recent persona post the draft must not resemble.
	Avoid string
	// MaxLength is the room the text has, in LengthUnit, under the
	// platform's length rule (writer.LengthOf); LengthHow says how that
	// rule counts, and PreviousUnit is what the previous draft's length
	// is said in.
	MaxLength    int
	LengthUnit   string
	LengthHow    string
	PreviousUnit string
	Categories   []string
	Now          string
	// CurrentDraft is the draft the reviewer wants replaced, and
	// Instruction their wish for the new one; both are quoted in fenced tags.
	CurrentDraft string
	Instruction  string
	// Fence is this request's random suffix of the tags the mortal's text
	// and the earlier draft are quoted in, so that no text can close them.
	Fence string
	// Context is a reply's conversation, quoted in fenced blocks too, and
	// OwnContext whether it holds the persona's own earlier posts.
	Context    []contextBlock
	OwnContext bool
	// Character is the operator's persona, quoted in a fenced block as
	// data; the hard rules after it win.
	Character persona.Persona
	// Shows describes the images and link card of the mortal's post (see
	// shows), quoted in a fenced <media-…> block; AnyShows says whether
	// that post or a context post shows any.
	Shows    []string
	AnyShows bool
	// ContentWarning is the warning over the mortal's post, on one line,
	// quoted in a fenced <warning-…> block; AnyWarning says whether that
	// post or a context post has one.
	ContentWarning string
	AnyWarning     bool
	// Examples and Lessons are what the persona learned (writer.Request's),
	// quoted in fenced blocks as data; empty with learning off.
	Examples []writer.Example
	Lessons  []writer.Lesson
	// Facts are the knowledge-base chunks (writer.Request's), quoted in
	// fenced blocks as data; empty when nothing matched.
	Facts []writer.Fact
	// Rejected says the distilled decision was a rejection (distill-*).
	Rejected bool
}

// messages renders the system and user messages for req.
func (w *Writer) messages(req writer.Request) ([]goopenai.ChatCompletionMessage, error) {
	data, err := w.data(req)
	if err != nil {
		return nil, err
	}
	return w.render(data, "system", "user")
}

// render executes the system and user templates named with data.
func (w *Writer) render(data promptData, system, user string) ([]goopenai.ChatCompletionMessage, error) {
	var sys, usr bytes.Buffer
	if err := w.prompt.ExecuteTemplate(&sys, system, data); err != nil {
		return nil, fmt.Errorf("openai: %s prompt: %w", system, err)
	}
	if err := w.prompt.ExecuteTemplate(&usr, user, data); err != nil {
		return nil, fmt.Errorf("openai: %s prompt: %w", user, err)
	}
	return []goopenai.ChatCompletionMessage{
		{Role: goopenai.ChatMessageRoleSystem, Content: sys.String()},
		{Role: goopenai.ChatMessageRoleUser, Content: usr.String()},
	}, nil
}

// data is what the templates render req from.
func (w *Writer) data(req writer.Request) (promptData, error) {
	if req.Kind != writer.KindReply && req.Kind != writer.KindProfile {
		return promptData{}, fmt.Errorf("openai: unknown kind %q", req.Kind)
	}
	// Both handles are reduced like the context's, so that no handle can
	// carry a line of its own into the prompt outside the fences.
	persona := handle(req.Persona)
	if persona == "" {
		persona = "infernal"
	}
	data := promptData{
		Persona:       persona,
		Kind:          req.Kind,
		Author:        handle(req.Author),
		PostText:      strings.TrimSpace(req.PostText),
		PreviousDraft: strings.TrimSpace(req.PreviousDraft),
		Avoid:         strings.TrimSpace(req.Avoid),
		Now:           w.cfg.Now().UTC().Format("Monday 2 January 2006, 15:04 MST"),
		CurrentDraft:  strings.TrimSpace(req.CurrentDraft),
		Instruction:   strings.TrimSpace(req.Instruction),
		Character:     writer.CharacterOf(req),
	}
	texts := []string{data.PostText, data.PreviousDraft, data.Avoid, data.CurrentDraft, data.Instruction,
		data.Character.Name, data.Character.Bio, data.Character.Voice}
	texts = append(texts, data.Character.Examples...)
	texts = append(texts, data.Character.AvoidTopics...)
	if req.Kind == writer.KindReply {
		data.Context = contextBlocks(req.Context)
		data.Shows = shows(req.Media, req.Link)
		data.ContentWarning = oneLine(req.ContentWarning)
		texts = append(texts, data.ContentWarning)
		for _, e := range req.Examples {
			ex := writer.Example{Post: singleLine(e.Post), Reply: singleLine(e.Reply)}
			data.Examples = append(data.Examples, ex)
			texts = append(texts, ex.Post, ex.Reply)
		}
		for _, l := range req.Lessons {
			ls := writer.Lesson{Text: singleLine(l.Text), Rejection: l.Rejection}
			data.Lessons = append(data.Lessons, ls)
			texts = append(texts, ls.Text)
		}
		for _, f := range req.Facts {
			fc := writer.Fact{Title: oneLine(f.Title), Text: strings.TrimSpace(f.Text)}
			if fc.Text == "" {
				continue
			}
			data.Facts = append(data.Facts, fc)
			texts = append(texts, fc.Title, fc.Text)
		}
	}
	texts = append(texts, data.Shows...)
	data.AnyShows = len(data.Shows) > 0
	data.AnyWarning = data.ContentWarning != ""
	for _, b := range data.Context {
		texts = append(texts, b.Text, b.Author, b.ContentWarning)
		texts = append(texts, b.Shows...)
		data.OwnContext = data.OwnContext || b.Tag == "own"
		data.AnyShows = data.AnyShows || len(b.Shows) > 0
		data.AnyWarning = data.AnyWarning || b.ContentWarning != ""
	}
	data.Fence = fence(texts...)
	length := writer.LengthOf(req)
	words, ok := lengthWords[length.Rule]
	if !ok {
		// A rule without words counts as weighted (post.LengthRule.Count).
		words = lengthWords[post.LengthWeighted]
	}
	data.MaxLength, data.LengthUnit, data.LengthHow, data.PreviousUnit = length.Room, words.unit, words.how, words.previous
	data.PreviousLength = length.Previous(req)
	for _, c := range post.Categories {
		data.Categories = append(data.Categories, string(c))
	}
	return data, nil
}

// lengthRule is how the prompt says a length rule counts: the unit of
// the limit, how the rule counts in it, and the unit of the previous
// draft's length.
type lengthRule struct{ unit, how, previous string }

// lengthWords are the words of each platform's length rule
// (post.Descriptor.Length). X's (and the sandbox's) are the prompt's words
// from before there were others, unchanged.
var lengthWords = map[post.LengthRule]lengthRule{
	post.LengthWeighted: {unit: "weighted characters",
		how: "emoji and Chinese, Japanese or Korean characters count two, a link counts 23", previous: "characters"},
	post.LengthGraphemes: {unit: "graphemes",
		how: "user-perceived characters, so an emoji or a letter with its accents counts one, and a link counts every character it has", previous: "graphemes"},
	post.LengthCharacters: {unit: "characters",
		how: "every link counts 23, and a mention @user@domain counts as @user", previous: "characters"},
}

// fence returns a random suffix for the quoting tags (<post-…>, </post-…>)
// that none of texts contains, so none can close or imitate them: a text
// cannot guess the suffix, and the rare one that holds it gets another.
func fence(texts ...string) string {
	for {
		f := rand.Text()
		if !slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(strings.ToUpper(t), f) }) {
			return f
		}
	}
}

// singleLine is text on one line, its runs of white space made one space:
// an example or a lesson is quoted as data, and keeps to its own lines.
func singleLine(text string) string {
	return strings.Join(strings.Fields(text), " ")
}
