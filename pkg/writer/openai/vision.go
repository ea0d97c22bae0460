package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"infernal/pkg/post"
	"infernal/pkg/writer"
)

// Vision says whether drafts send the images of the posts they answer
// (MODEL_VISION).
type Vision string

// The vision modes.
const (
	// VisionAuto sends images until the model refuses them (a 400 saying
	// it takes no image input), then drafts again without them and
	// remembers the model as one without images. The default.
	VisionAuto Vision = "auto"
	// VisionOn always sends images; a refusal is an error like any other.
	VisionOn Vision = "true"
	// VisionOff never sends images; their alt texts are in the prompt all the same.
	VisionOff Vision = "false"
)

// MaxImages is how many images one draft (and its judge) sends at most.
const MaxImages = post.MaxMedia

// BlindModels keeps the models found to take no image input, for every
// process (*tasks.Client is one): every worker stops sending them images
// after one refusal, and the web tier shows them on the Spend page.
type BlindModels interface {
	// WithoutImages reports whether model was found to take no images.
	WithoutImages(ctx context.Context, model string) (bool, error)
	// MarkWithoutImages keeps model as one without images since at; first
	// is true for the process that marked it first.
	MarkWithoutImages(ctx context.Context, model string, at time.Time) (first bool, err error)
}

// sendsImages reports whether a request to the model may carry images:
// never under VisionOff; under VisionAuto not once the model refused them
// (kept in Config.Blind, else in this writer).
func (w *Writer) sendsImages(ctx context.Context) bool {
	switch w.cfg.Vision {
	case VisionOff:
		return false
	case VisionOn:
		return true
	}
	if w.blind.Load() {
		return false
	}
	if w.cfg.Blind != nil {
		blind, err := w.cfg.Blind.WithoutImages(ctx, w.cfg.Model)
		if err != nil {
			// Redis down: try with images; a refusal costs one call and is remembered here.
			w.cfg.Log.WarnContext(ctx, "openai: the models without images could not be read", "error", err)
			return true
		}
		if blind {
			w.blind.Store(true)
		}
		return !blind
	}
	return true
}

// rememberBlind keeps the model as one without images, here and in
// Config.Blind, and says so in the log once: by the process that marked
// it first, or by this one when the mark cannot be shared.
func (w *Writer) rememberBlind(ctx context.Context, cause error) {
	if w.blind.Swap(true) {
		return
	}
	first := true
	if w.cfg.Blind != nil {
		var err error
		first, err = w.cfg.Blind.MarkWithoutImages(ctx, w.cfg.Model, w.cfg.Now().UTC())
		if err != nil {
			w.cfg.Log.WarnContext(ctx, "openai: the model without images could not be shared", "model", w.cfg.Model, "error", err)
			first = true
		}
	}
	if first {
		w.cfg.Log.WarnContext(ctx, "openai: the model takes no image input: drafts go on without images, with their descriptions in the prompt (MODEL_VISION=auto)",
			"model", w.cfg.Model, "refusal", cause.Error())
	}
}

// refusesImages reports whether err is the provider refusing a request for
// its images: a 400 whose message speaks of images, vision or multimodal
// input (OpenAI: "Invalid content type. image_url is only supported by
// certain models."; vLLM: "... is not a multimodal model"; Ollama: "...
// does not support images").
func refusesImages(err error) bool {
	status, msg := 0, ""
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr):
		status, msg = reqErr.HTTPStatusCode, string(reqErr.Body)
	}
	if status != http.StatusBadRequest {
		return false
	}
	msg = strings.ToLower(msg)
	for _, word := range []string{"image", "vision", "multimodal", "multi-modal"} {
		if strings.Contains(msg, word) {
			return true
		}
	}
	return false
}

// images are the addresses of the images a draft for req sends, at most
// MaxImages: the mortal's post's first, then the context's, in its order.
// Only addresses the platform returned are here (see writer.Request): the
// writer never fetches what the mortal wrote.
func images(req writer.Request) []string {
	var out []string
	add := func(media []post.Media) {
		for _, m := range media {
			if u := m.Image(); u != "" && len(out) < MaxImages {
				out = append(out, u)
			}
		}
	}
	if req.Kind != writer.KindReply {
		return nil
	}
	add(req.Media)
	for _, c := range req.Context {
		add(c.Media)
	}
	return out
}

// withImages is msgs with urls attached to its last (user) message as
// image_url parts at detail low, after its text.
func withImages(msgs []goopenai.ChatCompletionMessage, urls []string) []goopenai.ChatCompletionMessage {
	if len(urls) == 0 || len(msgs) == 0 {
		return msgs
	}
	out := append([]goopenai.ChatCompletionMessage(nil), msgs...)
	last := &out[len(out)-1]
	parts := []goopenai.ChatMessagePart{{Type: goopenai.ChatMessagePartTypeText, Text: last.Content},
		{Type: goopenai.ChatMessagePartTypeText, Text: fmt.Sprintf("The %d image(s) described above, in the same order (the mortal's post first):", len(urls))}}
	for _, u := range urls {
		parts = append(parts, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeImageURL,
			ImageURL: &goopenai.ChatMessageImageURL{URL: u, Detail: goopenai.ImageURLDetailLow}})
	}
	last.Content, last.MultiContent = "", parts
	return out
}

// complete sends creq, with req's images when the model may take them;
// under VisionAuto a refusal of the images sends it again at once without
// them and marks the model (rememberBlind). The refused call has no usage
// to count; the answered one's usage (image tokens included in its
// prompt_tokens) is counted by the caller.
func (w *Writer) complete(ctx context.Context, creq goopenai.ChatCompletionRequest, req writer.Request) (resp goopenai.ChatCompletionResponse, err error) {
	urls := images(req)
	if len(urls) == 0 || !w.sendsImages(ctx) {
		return w.client.CreateChatCompletion(ctx, creq)
	}
	plain := creq.Messages
	creq.Messages = withImages(plain, urls)
	resp, err = w.client.CreateChatCompletion(ctx, creq)
	if err == nil || w.cfg.Vision == VisionOn || !refusesImages(err) {
		return resp, err
	}
	w.rememberBlind(ctx, err)
	creq.Messages = plain
	resp, err = w.client.CreateChatCompletion(ctx, creq)
	if err != nil {
		return resp, fmt.Errorf("without images: %w", err)
	}
	return resp, nil
}

// ParseVision reads MODEL_VISION: true, false or auto ("" is auto).
func ParseVision(s string) (Vision, error) {
	switch v := Vision(strings.ToLower(strings.TrimSpace(s))); v {
	case "":
		return VisionAuto, nil
	case VisionAuto, VisionOn, VisionOff:
		return v, nil
	}
	return "", fmt.Errorf("openai: vision %q is not true, false or auto", s)
}
