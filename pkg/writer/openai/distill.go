package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"

	"infernal/pkg/writer"
)

// maxLesson is the longest lesson kept, in characters.
const maxLesson = 200

// Distill asks the model, in a call of its own, for the one lesson an edit
// or a rejection teaches: the post, the draft, the final text and the
// reason are quoted in fenced blocks as data, and the call's tokens are
// told to Config.Usage like a draft's, so it counts in the model spend and
// budget. The answer is {"lesson": "..."}: one line of at most 200
// characters, "" when the decision teaches nothing.
func (w *Writer) Distill(ctx context.Context, e writer.Edit) (string, error) {
	req := writer.Request{Kind: writer.KindReply, PostText: e.Post, PreviousDraft: e.Draft, CurrentDraft: e.Final, Instruction: e.Reason}
	data, err := w.data(req)
	if err != nil {
		return "", err
	}
	data.Rejected = e.Rejected
	msgs, err := w.render(data, "distill-system", "distill-user")
	if err != nil {
		return "", err
	}
	creq := goopenai.ChatCompletionRequest{
		Model:       w.cfg.Model,
		Messages:    msgs,
		Temperature: judgeTemperature,
		MaxTokens:   w.cfg.MaxTokens, //nolint:staticcheck // SA1019, as in Write
	}
	if !w.cfg.PlainText {
		creq.ResponseFormat = &goopenai.ChatCompletionResponseFormat{Type: goopenai.ChatCompletionResponseFormatTypeJSONObject}
	}
	resp, err := w.client.CreateChatCompletion(ctx, creq)
	if err != nil {
		if busy(err) {
			return "", fmt.Errorf("openai: distill: %w: %w", writer.ErrBusy, err)
		}
		return "", fmt.Errorf("openai: distill: %w", err)
	}
	if w.cfg.Usage != nil {
		model := resp.Model
		if model == "" {
			model = w.cfg.Model
		}
		w.cfg.Usage(ctx, model, resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	}
	if len(resp.Choices) == 0 {
		return "", errors.New("openai: distill: no choices in the answer")
	}
	return parseLesson(resp.Choices[0].Message.Content)
}

// parseLesson reads {"lesson": "..."}, possibly in a code fence or after a
// <think> block; the lesson is made one line and cut to maxLesson
// characters.
func parseLesson(content string) (string, error) {
	s := strings.TrimSpace(thinkBlock.ReplaceAllString(content, ""))
	if m := codeFence.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	var a struct {
		Lesson *string `json:"lesson"`
	}
	if err := json.Unmarshal([]byte(s), &a); err != nil || a.Lesson == nil {
		return "", fmt.Errorf("openai: distill: the answer is not {\"lesson\": \"...\"}: %.80q", s)
	}
	l := singleLine(*a.Lesson)
	if utf8.RuneCountInString(l) > maxLesson {
		l = string([]rune(l)[:maxLesson-1]) + "…"
	}
	return l, nil
}
