package api

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"infernal/pkg/knowledge"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/spend"
	"infernal/pkg/upstream"
)

const (
	// knowledgePath is the upload's route, whose body limitBody lets grow
	// to maxKnowledgeBody.
	knowledgePath = "/api/knowledge"
	// maxKnowledgeBody is the largest upload body: a 1 MB document, with
	// room for JSON's escapes or a multipart envelope; the document itself
	// is held to knowledge.MaxDocumentBytes.
	maxKnowledgeBody = 3 * knowledge.MaxDocumentBytes
)

// documentView is a knowledge document as the API answers it.
type documentView struct {
	ID        int64     `json:"id"`
	Title     string    `json:"title"`
	Bytes     int       `json:"bytes"`
	Chunks    int       `json:"chunks"`
	Enabled   bool      `json:"enabled"`
	CreatedAt time.Time `json:"created_at"`
}

func viewDocument(d knowledge.Document) documentView {
	return documentView{ID: d.ID, Title: d.Title, Bytes: d.Bytes, Chunks: d.Chunks, Enabled: d.Enabled, CreatedAt: d.CreatedAt.UTC()}
}

// factView is a knowledge chunk as the API answers it: what a search
// would put into a prompt, or what a draft's prompt held.
type factView struct {
	DocumentID int64  `json:"document_id"`
	ChunkID    int64  `json:"chunk_id"`
	Title      string `json:"title"`
	Text       string `json:"text"`
	// Score is the chunk's similarity to the text searched, 0 to 1; null
	// for a draft's facts.
	Score *float64 `json:"score"`
}

type documentListResponse struct {
	Documents []documentView `json:"documents"`
}

// listKnowledge answers every knowledge document, the newest first.
func (s *Server) listKnowledge(w http.ResponseWriter, r *http.Request) error {
	ds, err := s.store.Documents(r.Context())
	if err != nil {
		return err
	}
	out := documentListResponse{Documents: make([]documentView, 0, len(ds))}
	for _, d := range ds {
		out.Documents = append(out.Documents, viewDocument(d))
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// uploadError is the answer to a bad document: 413 too large or too
// many, 415 not .md or .txt, 400 not UTF-8 or empty.
func uploadError(err error) error {
	switch {
	case errors.Is(err, knowledge.ErrTooLarge), errors.Is(err, knowledge.ErrTooMany):
		return &Error{Status: http.StatusRequestEntityTooLarge, Message: err.Error()}
	case errors.Is(err, knowledge.ErrType):
		return &Error{Status: http.StatusUnsupportedMediaType, Message: err.Error()}
	case errors.Is(err, knowledge.ErrNotUTF8):
		return &settings.FieldError{Field: "text", Problem: "is not UTF-8 text"}
	case errors.Is(err, knowledge.ErrEmpty):
		return &settings.FieldError{Field: "text", Problem: "is empty"}
	}
	return err
}

// createKnowledge stores a document: a .md or .txt file in the multipart
// field "file", or JSON {"title", "text"}. It is cut into chunks and
// stored in one transaction: all of it or nothing.
func (s *Server) createKnowledge(w http.ResponseWriter, r *http.Request) error {
	title, text, err := readDocument(r)
	if err != nil {
		return uploadError(err)
	}
	title, text, err = knowledge.CheckText(title, text)
	if err != nil {
		return uploadError(err)
	}
	d, err := s.store.AddDocument(r.Context(), title, len(text), knowledge.Split(text))
	if err != nil {
		return uploadError(err)
	}
	respondJSON(w, http.StatusCreated, viewDocument(d))
	return nil
}

// readDocument reads an upload's title and text, by its Content-Type.
func readDocument(r *http.Request) (string, string, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		mt = ""
	}
	switch mt {
	case "application/json":
		var req struct {
			Title *string `json:"title"`
			Text  *string `json:"text"`
		}
		if err := decodeJSON(r, &req, false); err != nil {
			return "", "", err
		}
		if req.Title == nil {
			return "", "", &settings.FieldError{Field: "title", Problem: "is required"}
		}
		if req.Text == nil {
			return "", "", &settings.FieldError{Field: "text", Problem: "is required"}
		}
		if len(*req.Text) > knowledge.MaxDocumentBytes {
			return "", "", knowledge.ErrTooLarge
		}
		return *req.Title, *req.Text, nil
	case "multipart/form-data":
		return readFile(r)
	}
	return "", "", &Error{Status: http.StatusUnsupportedMediaType, Message: "send a .md or .txt file as multipart/form-data (field file), or JSON {\"title\", \"text\"}"}
}

// readFile reads the multipart field "file": its name gives the title and
// the type; at most knowledge.MaxDocumentBytes.
func readFile(r *http.Request) (string, string, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return "", "", &settings.FieldError{Field: "file", Problem: "is required: " + err.Error()}
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return "", "", &settings.FieldError{Field: "file", Problem: "is required"}
		}
		if err != nil {
			return "", "", multipartError(err)
		}
		if part.FormName() != "file" {
			continue
		}
		name := part.FileName()
		if err := knowledge.CheckFilename(name); err != nil {
			return "", "", err
		}
		body, err := io.ReadAll(io.LimitReader(part, knowledge.MaxDocumentBytes+1))
		if err != nil {
			return "", "", multipartError(err)
		}
		if len(body) > knowledge.MaxDocumentBytes {
			return "", "", knowledge.ErrTooLarge
		}
		if !utf8.Valid(body) {
			return "", "", knowledge.ErrNotUTF8
		}
		return knowledge.TitleFromFilename(name), string(body), nil
	}
}

// multipartError is a broken multipart body: a 413 past the body limit,
// else a 400.
func multipartError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return knowledge.ErrTooLarge
	}
	if errors.Is(err, multipart.ErrMessageTooLarge) {
		return knowledge.ErrTooLarge
	}
	return &settings.FieldError{Field: "file", Problem: "is not a readable multipart part: " + err.Error()}
}

// knowledgeID is the {id} of a knowledge route.
func knowledgeID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, &settings.FieldError{Field: "id", Problem: "must be a positive integer"}
	}
	return id, nil
}

// updateKnowledge enables or disables a document: PATCH {"enabled"}.
func (s *Server) updateKnowledge(w http.ResponseWriter, r *http.Request) error {
	id, err := knowledgeID(r)
	if err != nil {
		return err
	}
	var req struct {
		Enabled *bool `json:"enabled"`
	}
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.Enabled == nil {
		return &settings.FieldError{Field: "enabled", Problem: "is required"}
	}
	d, err := s.store.SetDocumentEnabled(r.Context(), id, *req.Enabled)
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, viewDocument(d))
	return nil
}

// deleteKnowledge removes a document and its chunks; drafts keep their
// grounded_in ids.
func (s *Server) deleteKnowledge(w http.ResponseWriter, r *http.Request) error {
	id, err := knowledgeID(r)
	if err != nil {
		return err
	}
	if err := s.store.DeleteDocument(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type knowledgeSearchResponse struct {
	// Chunks is the settings' knowledge.chunks: the most a prompt gets.
	Chunks  int         `json:"chunks"`
	Facts   []factView  `json:"facts"`
	Ranking rankingView `json:"ranking"`
}

// rankingView says how the facts were ranked.
type rankingView struct {
	// By is rankedByEmbeddings or rankedByText.
	By string `json:"by"`
	// Reason is why by text alone; "" by embeddings.
	Reason string `json:"reason"`
}

// How a search ranked its facts.
const (
	rankedByText       = "text"
	rankedByEmbeddings = "embeddings"
)

// The reasons a search ranked by text alone, besides a failed call.
const (
	reasonNoEmbeddings = "EMBEDDINGS_MODEL is not set"
	reasonNoCandidates = "no chunk shares a word with the text"
	reasonNoChunks     = "knowledge.chunks is 0: a prompt gets no facts"
)

// searchKnowledge answers what a post of text q would get as facts: the
// best knowledge.chunks chunks of enabled documents above the floor,
// ranked as the worker ranks a draft's, with the embeddings when
// EMBEDDINGS_MODEL is set, and how they were ranked. While a model budget
// is spent no embeddings are asked for (drafts wait then too); a failed
// call leaves the ranking by text, as it does in the worker.
func (s *Server) searchKnowledge(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query().Get("q")
	if !utf8.ValidString(q) || strings.ContainsRune(q, 0) {
		return &settings.FieldError{Field: "q", Problem: "is not UTF-8 text"}
	}
	if strings.TrimSpace(q) == "" {
		return &settings.FieldError{Field: "q", Problem: "is required"}
	}
	if n := utf8.RuneCountInString(q); n > knowledge.MaxQuery {
		return &settings.FieldError{Field: "q", Problem: "is longer than " + strconv.Itoa(knowledge.MaxQuery) + " characters"}
	}
	set, err := s.store.Settings(r.Context())
	if err != nil {
		return err
	}
	ret := knowledge.Retriever{Store: s.store, Log: s.log}
	ranking := rankingView{By: rankedByText, Reason: reasonNoEmbeddings}
	if s.embedder != nil {
		why, err := s.modelBlocked(r.Context())
		if err != nil {
			return err
		}
		ranking.Reason = why
		if why == "" {
			ret.Embedder = s.embedder
		}
	}
	facts, rk, err := ret.Search(r.Context(), q, set.Knowledge.Chunks)
	if err != nil {
		return err
	}
	switch {
	case rk.Embeddings:
		ranking = rankingView{By: rankedByEmbeddings}
	case rk.Fallback != nil:
		ranking.Reason = "the embeddings call failed: " + upstream.Excerpt(rk.Fallback.Error())
	case ret.Embedder != nil && set.Knowledge.Chunks == 0:
		ranking.Reason = reasonNoChunks
	case ret.Embedder != nil:
		ranking.Reason = reasonNoCandidates
	}
	out := knowledgeSearchResponse{Chunks: set.Knowledge.Chunks, Facts: make([]factView, 0, len(facts)), Ranking: ranking}
	for _, f := range facts {
		score := f.Score
		out.Facts = append(out.Facts, factView{DocumentID: f.DocumentID, ChunkID: f.ChunkID, Title: f.Title, Text: f.Text, Score: &score})
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// modelBlocked says why no model call may be made now (a model budget
// spent), "" when one may; without a model ceiling the ledger is not read.
func (s *Server) modelBlocked(ctx context.Context) (string, error) {
	if !s.budgets.LimitsModel() {
		return "", nil
	}
	spent, err := spend.SpentAt(ctx, s.store, s.now())
	if err != nil {
		return "", err
	}
	return s.budgets.ModelBlocked(spent), nil
}

// factsOf details a draft's grounded_in, in its order: each chunk still
// stored with its text and its document's title; deleted ones left out.
func (s *Server) factsOf(r *http.Request, ground []post.Ground) ([]factView, error) {
	out := []factView{}
	if len(ground) == 0 {
		return out, nil
	}
	ids := make([]int64, len(ground))
	for i, g := range ground {
		ids[i] = g.ChunkID
	}
	facts, err := s.store.FactsByChunk(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]knowledge.Fact, len(facts))
	for _, f := range facts {
		byID[f.ChunkID] = f
	}
	for _, g := range ground {
		if f, ok := byID[g.ChunkID]; ok {
			out = append(out, factView{DocumentID: f.DocumentID, ChunkID: f.ChunkID, Title: f.Title, Text: f.Text})
		}
	}
	return out, nil
}
