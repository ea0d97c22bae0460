package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"

	"infernal/pkg/post"
	"infernal/pkg/upstream"
	"infernal/pkg/writer"
)

// maxReason is the longest reason a review keeps, in characters.
const maxReason = 200

// judgeTemperature keeps the judge steady rather than creative (zero would
// not be sent: the API takes an absent temperature for its default).
const judgeTemperature = 0.1

// Judge asks the model for a second opinion on draft, written for req: one
// call, answered {"score": 1-5, "reason": "..."}, its tokens told to
// Config.Usage like a draft's. The review is by the model that answered.
// An answer without a score from 1 to 5, or any failure of the call, is an
// error: the draft then stays unjudged.
func (w *Writer) Judge(ctx context.Context, req writer.Request, draft string) (post.Review, error) {
	// The judged draft takes CurrentDraft's place, so the fence is chosen
	// against it too; the other drafts of a request play no part.
	req.CurrentDraft, req.PreviousDraft, req.Avoid, req.Instruction = draft, "", "", ""
	data, err := w.data(req)
	if err != nil {
		return post.Review{}, err
	}
	msgs, err := w.render(data, "judge-system", "judge-user")
	if err != nil {
		return post.Review{}, err
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
	resp, err := w.complete(ctx, creq, req)
	if err != nil {
		// The client's error quotes a body that is not the API's JSON whole.
		return post.Review{}, fmt.Errorf("openai: judge: %w", upstream.Error(err))
	}
	model := resp.Model
	if model == "" {
		model = w.cfg.Model
	}
	if w.cfg.Usage != nil {
		w.cfg.Usage(ctx, model, resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	}
	if len(resp.Choices) == 0 {
		return post.Review{}, errors.New("openai: judge: no choices in the answer")
	}
	score, reason, err := parseReview(resp.Choices[0].Message.Content)
	if err != nil {
		return post.Review{}, fmt.Errorf("openai: judge: %w", err)
	}
	return post.Review{Score: score, Reason: reason, By: model}, nil
}

// parseReview reads {"score": n, "reason": "..."}, possibly in a code fence
// or after a reasoning model's <think> block; the score must be a whole
// number from 1 to 5, and the reason is cut to one line of maxReason
// characters.
func parseReview(content string) (score int, reason string, err error) {
	s := strings.TrimSpace(thinkBlock.ReplaceAllString(content, ""))
	if m := codeFence.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	if i, j := strings.Index(s, "{"), strings.LastIndex(s, "}"); i >= 0 && j > i {
		s = s[i : j+1]
	}
	var v struct {
		Score  *float64 `json:"score"`
		Reason string   `json:"reason"`
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return 0, "", fmt.Errorf("answer is not the JSON asked for: %.80q", s)
	}
	if v.Score == nil || *v.Score != math.Trunc(*v.Score) || *v.Score < post.MinReviewScore || *v.Score > post.MaxReviewScore {
		return 0, "", fmt.Errorf("answer has no score from %d to %d: %.80q", post.MinReviewScore, post.MaxReviewScore, s)
	}
	reason = strings.Join(strings.Fields(v.Reason), " ")
	if utf8.RuneCountInString(reason) > maxReason {
		reason = string([]rune(reason)[:maxReason-1]) + "…"
	}
	return int(*v.Score), reason, nil
}
