package openai

import (
	"context"
	"fmt"

	goopenai "github.com/sashabaranov/go-openai"
)

// Embeddings turns texts into vectors with the provider's
// OpenAI-compatible /v1/embeddings, on the writer's base URL, key and
// transport (its rate-limit windows and concurrency bound): a
// retrieval.Embedder for the learned examples (EMBEDDINGS_MODEL).
type Embeddings struct {
	w     *Writer
	model string
}

// Embeddings returns the embeddings of model through w; every call's
// tokens are told to Config.Usage, so they count in the model spend and
// budget.
func (w *Writer) Embeddings(model string) *Embeddings {
	return &Embeddings{w: w, model: model}
}

// Embed returns one vector per text, in order.
func (e *Embeddings) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	resp, err := e.w.client.CreateEmbeddings(ctx, goopenai.EmbeddingRequestStrings{Input: texts, Model: goopenai.EmbeddingModel(e.model)})
	if err != nil {
		return nil, fmt.Errorf("openai: embeddings: %w", err)
	}
	if e.w.cfg.Usage != nil {
		model := string(resp.Model)
		if model == "" {
			model = e.model
		}
		e.w.cfg.Usage(ctx, model, resp.Usage.PromptTokens, 0)
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(out) {
			return nil, fmt.Errorf("openai: embeddings: index %d of %d texts", d.Index, len(texts))
		}
		out[d.Index] = d.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("openai: embeddings: none for text %d", i)
		}
	}
	return out, nil
}
