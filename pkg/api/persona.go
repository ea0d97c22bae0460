package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"infernal/pkg/persona"
	"infernal/pkg/settings"
	"infernal/pkg/tasks"
)

// maxPreviewText is the longest post text a preview answers, in characters.
const maxPreviewText = 2000

// personaView is a persona version as GET /api/persona answers it.
type personaView = persona.Persona

func viewPersona(p persona.Persona) personaView {
	p.UpdatedAt = p.UpdatedAt.UTC()
	if p.Examples == nil {
		p.Examples = []string{}
	}
	if p.AvoidTopics == nil {
		p.AvoidTopics = []string{}
	}
	return p
}

type personaVersionsResponse struct {
	Versions []personaView `json:"versions"`
}

// getPersona answers the persona in use, its newest version.
func (s *Server) getPersona(w http.ResponseWriter, r *http.Request) error {
	p, err := s.store.Persona(r.Context())
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, viewPersona(p))
	return nil
}

// personaVersions answers every version of the persona, newest first.
func (s *Server) personaVersions(w http.ResponseWriter, r *http.Request) error {
	vs, err := s.store.PersonaVersions(r.Context())
	if err != nil {
		return err
	}
	out := personaVersionsResponse{Versions: make([]personaView, 0, len(vs))}
	for _, v := range vs {
		out.Versions = append(out.Versions, viewPersona(v))
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// personaRequest is a persona as PUT /api/persona and a preview take it:
// every field is required, so that a client that forgets one does not
// empty it by accident; version and updated_at are the server's, taken
// (so that a persona as GET answers it may be sent back) and ignored.
type personaRequest struct {
	Name        *string   `json:"name"`
	Bio         *string   `json:"bio"`
	Voice       *string   `json:"voice"`
	Examples    *[]string `json:"examples"`
	AvoidTopics *[]string `json:"avoid_topics"`
	// Version is the version answered; a PUT always stores a new one.
	Version answerOnly `json:"version"`
	// UpdatedAt is when the version answered was stored; the server stamps its own.
	UpdatedAt answerOnly `json:"updated_at"`
}

// persona checks req, every field present and valid, and returns it
// normalised; a bad field is a *settings.FieldError whose path starts with
// prefix.
func (req personaRequest) persona(prefix string) (persona.Persona, error) {
	for _, f := range []struct {
		name  string
		unset bool
	}{
		{"name", req.Name == nil}, {"bio", req.Bio == nil}, {"voice", req.Voice == nil},
		{"examples", req.Examples == nil}, {"avoid_topics", req.AvoidTopics == nil},
	} {
		if f.unset {
			return persona.Persona{}, &settings.FieldError{Field: prefix + f.name, Problem: "is required"}
		}
	}
	p, err := persona.Persona{Name: *req.Name, Bio: *req.Bio, Voice: *req.Voice, Examples: *req.Examples, AvoidTopics: *req.AvoidTopics}.Normalize()
	var fieldErr *settings.FieldError
	if errors.As(err, &fieldErr) {
		return persona.Persona{}, &settings.FieldError{Field: prefix + fieldErr.Field, Problem: fieldErr.Problem}
	}
	return p, err
}

// putPersona stores the body as the persona's newest version and answers
// it; a bad body is a 400 naming its field, and stores nothing.
func (s *Server) putPersona(w http.ResponseWriter, r *http.Request) error {
	var req personaRequest
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	p, err := req.persona("")
	if err != nil {
		return err
	}
	stored, err := s.store.PutPersona(r.Context(), p)
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, viewPersona(stored))
	return nil
}

// previewRequest is POST /api/persona/preview's body.
type previewRequest struct {
	PostText *string `json:"post_text"`
	// Persona, when given, is an unsaved persona to write with instead of
	// the stored one.
	Persona *personaRequest `json:"persona"`
}

type previewResponse struct {
	Response string `json:"response"`
	Category string `json:"category"`
}

// previewPersona has a worker write one draft answering post_text with
// the stored persona, or the given unsaved one, and answers it: no post is
// made, the model's spend is metered as a draft's. Without a worker's
// answer within previewWait it is a 503 (and the waiting task is
// dropped); so is a draft the budget holds back or the writer refuses.
func (s *Server) previewPersona(w http.ResponseWriter, r *http.Request) error {
	var req previewRequest
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	payload := tasks.PreviewPayload{}
	if req.PostText != nil {
		payload.PostText = strings.TrimSpace(*req.PostText)
	}
	switch {
	case payload.PostText == "":
		return &settings.FieldError{Field: "post_text", Problem: "must not be empty"}
	case utf8.RuneCountInString(payload.PostText) > maxPreviewText:
		return &settings.FieldError{Field: "post_text", Problem: fmt.Sprintf("is longer than %d characters", maxPreviewText)}
	}
	if req.Persona != nil {
		p, err := req.Persona.persona("persona.")
		if err != nil {
			return err
		}
		payload.Persona = &p
	}
	release, err := s.beginModelCall(r)
	if err != nil {
		return err
	}
	defer release()
	ctx := r.Context()
	id, err := s.queue.EnqueuePreview(ctx, payload)
	if err != nil {
		return fmt.Errorf("preview: %w: %w", errQueueDown, err)
	}
	var result tasks.PreviewResult
	done, err := pollUntil(ctx, s.previewWait, func() (bool, error) {
		var done bool
		var err error
		result, done, err = s.queue.PreviewResult(ctx, id)
		return done, err
	})
	if err != nil {
		return err
	}
	if !done {
		if err := s.queue.DropPreview(ctx, id); err != nil {
			s.log.WarnContext(ctx, "preview left in the queue", "task_id", id, "error", err)
		}
		return &Error{Status: http.StatusServiceUnavailable, Message: "no worker wrote the preview in time; try again shortly"}
	}
	if result.Error != "" {
		return &Error{Status: http.StatusServiceUnavailable, Message: result.Error}
	}
	respondJSON(w, http.StatusOK, previewResponse{Response: result.Response, Category: result.Category})
	return nil
}
