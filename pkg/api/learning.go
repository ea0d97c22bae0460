package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"infernal/pkg/guard"
	"infernal/pkg/learning"
	"infernal/pkg/persona"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
)

// The limits of an import of cases.
const (
	// maxImportBytes is the largest NDJSON body an import takes.
	maxImportBytes = 5 << 20
	// maxImportLines is the most lines an import takes.
	maxImportLines = 10000
	// importPath is the import's route, whose body limitBody lets grow to
	// maxImportBytes.
	importPath = "/api/cases/import"
)

// caseView is a case as the API answers it.
type caseView struct {
	ID             int64      `json:"id"`
	PostID         *int64     `json:"post_id"`
	Platform       string     `json:"platform"`
	Language       string     `json:"language"`
	MentionText    string     `json:"mention_text"`
	Author         string     `json:"author"`
	DraftText      string     `json:"draft_text"`
	FinalText      string     `json:"final_text"`
	Decision       string     `json:"decision"`
	By             string     `json:"by"`
	Reason         string     `json:"reason"`
	ReviewScore    *int       `json:"review_score"`
	PersonaVersion *int       `json:"persona_version"`
	Engagement     *int       `json:"engagement"`
	UsedCount      int        `json:"used_count"`
	LastUsedAt     *time.Time `json:"last_used_at"`
	CreatedAt      time.Time  `json:"created_at"`
}

func viewCase(c learning.Case) caseView {
	v := caseView{
		ID: c.ID, Platform: c.Platform, Language: c.Language, MentionText: c.Mention, Author: c.Author,
		DraftText: c.Draft, FinalText: c.Final, Decision: string(c.Decision), By: c.By, Reason: c.Reason,
		ReviewScore: c.ReviewScore, PersonaVersion: c.PersonaVersion, Engagement: c.Engagement,
		UsedCount: c.UsedCount, LastUsedAt: utc(c.LastUsedAt), CreatedAt: c.CreatedAt.UTC(),
	}
	if c.PostID != 0 {
		id := c.PostID
		v.PostID = &id
	}
	return v
}

type caseListResponse struct {
	Cases      []caseView `json:"cases"`
	Pagination pagination `json:"pagination"`
}

// maxCaseQuery is the longest search of the cases, in characters.
const maxCaseQuery = 200

// listCases answers one page of the case memory, newest first, searched
// by q.
func (s *Server) listCases(w http.ResponseWriter, r *http.Request) error {
	page, err := intParam(r.URL.Query().Get("page"), "page", 1, 1, maxPage)
	if err != nil {
		return err
	}
	q := r.URL.Query().Get("q")
	if !utf8.ValidString(q) || utf8.RuneCountInString(q) > maxCaseQuery || strings.ContainsRune(q, 0) {
		return &settings.FieldError{Field: "q", Problem: fmt.Sprintf("must be valid text of at most %d characters", maxCaseQuery)}
	}
	cases, total, err := s.store.Cases(r.Context(), q, page)
	if err != nil {
		return err
	}
	out := caseListResponse{Cases: make([]caseView, 0, len(cases)), Pagination: pagination{
		Page: page, PageSize: store.CasesPageSize, Total: total, TotalPages: (total + store.CasesPageSize - 1) / store.CasesPageSize,
	}}
	for _, c := range cases {
		out.Cases = append(out.Cases, viewCase(c))
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// learningID is the {id} of a case or lesson route.
func learningID(r *http.Request, what string) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("%s id must be a positive integer", what)
	}
	return id, nil
}

// deleteCase takes a case out of the memory; the post and its history stay.
func (s *Server) deleteCase(w http.ResponseWriter, r *http.Request) error {
	id, err := learningID(r, "case")
	if err != nil {
		return err
	}
	if err := s.store.DeleteCase(r.Context(), id); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// importLine is one line of an import.
type importLine struct {
	Mention  *string `json:"mention"`
	Reply    *string `json:"reply"`
	Platform *string `json:"platform"`
	// Language is the mention's language, a BCP 47 tag ("en", "pt-BR");
	// optional.
	Language *string `json:"language"`
}

type importSkip struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

type importResponse struct {
	Imported int64        `json:"imported"`
	Skipped  []importSkip `json:"skipped"`
}

// importCases imports past replies as approved cases, one JSON object a
// line: each line checked like a draft (the platform's length rule and
// the limit of its latest draft, the server's own on Mastodon; the
// outbound check), imported whole or skipped whole with its reason. A
// body over maxImportBytes or maxImportLines is a 413, nothing imported.
func (s *Server) importCases(w http.ResponseWriter, r *http.Request) error {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-ndjson" {
		return &Error{Status: http.StatusUnsupportedMediaType, Message: "Content-Type must be application/x-ndjson"}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &Error{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("an import takes at most %d bytes", maxImportBytes)}
		}
		return fmt.Errorf("read the import: %w", err)
	}
	lines := bytes.Split(bytes.TrimRight(body, "\r\n"), []byte("\n"))
	if len(lines) > maxImportLines {
		return &Error{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("an import takes at most %d lines", maxImportLines)}
	}
	limits := make(map[string]int, len(s.platforms))
	for _, p := range s.platforms {
		if limits[p], err = s.store.LatestMaxLength(r.Context(), p); err != nil {
			return err
		}
	}
	out := importResponse{Skipped: []importSkip{}}
	var cases []store.ImportedCase
	for i, raw := range lines {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		c, err := s.importedCase(raw, limits)
		if err != nil {
			out.Skipped = append(out.Skipped, importSkip{Line: i + 1, Error: err.Error()})
			continue
		}
		cases = append(cases, c)
	}
	if out.Imported, err = s.store.ImportCases(r.Context(), cases); err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// importedCase is one import line checked: a JSON object with a mention
// of 1 to learning.MaxMention characters, an optional language tag, and a reply that passes the
// platform's length rule within its limit in limits (zero: the
// descriptor's) and the outbound check (no link, no @mention of anyone
// but the mentioned), on a platform the persona answers on.
func (s *Server) importedCase(raw []byte, limits map[string]int) (store.ImportedCase, error) {
	if !utf8.Valid(raw) {
		return store.ImportedCase{}, errors.New("the line is not valid UTF-8")
	}
	var l importLine
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return store.ImportedCase{}, fmt.Errorf("the line is not a JSON object of mention, reply, platform and language: %w", err)
	}
	if dec.More() {
		return store.ImportedCase{}, errors.New("the line holds more than one JSON object")
	}
	if l.Mention == nil || strings.TrimSpace(*l.Mention) == "" {
		return store.ImportedCase{}, errors.New("mention is required")
	}
	if l.Reply == nil || strings.TrimSpace(*l.Reply) == "" {
		return store.ImportedCase{}, errors.New("reply is required")
	}
	mention, reply := strings.TrimSpace(*l.Mention), strings.TrimSpace(*l.Reply)
	if utf8.RuneCountInString(mention) > learning.MaxMention || strings.ContainsRune(mention, 0) {
		return store.ImportedCase{}, fmt.Errorf("mention must be at most %d characters", learning.MaxMention)
	}
	platform := s.platform
	if l.Platform != nil && *l.Platform != "" {
		platform = *l.Platform
		if !slices.Contains(s.platforms, platform) {
			return store.ImportedCase{}, fmt.Errorf("platform %q is not one the persona answers on", platform)
		}
	}
	var language string
	if l.Language != nil {
		var ok bool
		if language, ok = post.ParseLanguage(*l.Language); !ok {
			return store.ImportedCase{}, errors.New(`language must be a language tag such as "en" or "pt-BR"`)
		}
	}
	if strings.ContainsRune(reply, 0) {
		return store.ImportedCase{}, errors.New("reply must not contain NUL characters")
	}
	if err := post.CheckResponseFor(platform, limits[platform], reply); err != nil {
		return store.ImportedCase{}, fmt.Errorf("reply: %w", err)
	}
	if flags := guard.ReplyFlags(reply, "", mention, s.handles.On(platform, s.personaHandle)); len(flags) > 0 {
		return store.ImportedCase{}, fmt.Errorf("reply fails the outbound check: %s", strings.Join(guard.Strings(flags), ", "))
	}
	return store.ImportedCase{Platform: platform, Language: language, Mention: mention, Reply: reply}, nil
}

// lessonView is a lesson as the API answers it.
type lessonView struct {
	ID            int64      `json:"id"`
	Text          string     `json:"text"`
	Kind          string     `json:"kind"`
	SourceCaseIDs []int64    `json:"source_case_ids"`
	Count         int        `json:"count"`
	Enabled       bool       `json:"enabled"`
	UsedCount     int        `json:"used_count"`
	CreatedAt     time.Time  `json:"created_at"`
	LastUsedAt    *time.Time `json:"last_used_at"`
}

func viewLesson(l learning.Lesson) lessonView {
	ids := l.SourceCaseIDs
	if ids == nil {
		ids = []int64{}
	}
	return lessonView{ID: l.ID, Text: l.Text, Kind: string(l.Kind), SourceCaseIDs: ids, Count: l.Count, Enabled: l.Enabled,
		UsedCount: l.UsedCount, CreatedAt: l.CreatedAt.UTC(), LastUsedAt: utc(l.LastUsedAt)}
}

type lessonListResponse struct {
	Lessons []lessonView `json:"lessons"`
}

// listLessons answers every lesson, the most confirmed first.
func (s *Server) listLessons(w http.ResponseWriter, r *http.Request) error {
	ls, err := s.store.Lessons(r.Context())
	if err != nil {
		return err
	}
	out := lessonListResponse{Lessons: make([]lessonView, 0, len(ls))}
	for _, l := range ls {
		out.Lessons = append(out.Lessons, viewLesson(l))
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// lessonText checks a lesson's text, a 400 naming text when it may not be one.
func lessonText(text *string) (string, error) {
	if text == nil {
		return "", &settings.FieldError{Field: "text", Problem: "is required"}
	}
	t, err := learning.CheckLesson(*text)
	if err != nil {
		return "", &settings.FieldError{Field: "text", Problem: strings.TrimPrefix(err.Error(), learning.ErrInvalid.Error()+": ")}
	}
	return t, nil
}

// createLesson adds a manual lesson: 201, or 200 with the near-duplicate
// whose count it raised.
func (s *Server) createLesson(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Text *string `json:"text"`
	}
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	text, err := lessonText(req.Text)
	if err != nil {
		return err
	}
	l, created, err := s.store.AddLesson(r.Context(), text, learning.KindManual, 0)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	respondJSON(w, status, viewLesson(l))
	return nil
}

// updateLesson changes a lesson's text or turns it on or off.
func (s *Server) updateLesson(w http.ResponseWriter, r *http.Request) error {
	id, err := learningID(r, "lesson")
	if err != nil {
		return err
	}
	var req struct {
		Text    *string `json:"text"`
		Enabled *bool   `json:"enabled"`
	}
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.Text == nil && req.Enabled == nil {
		return &settings.FieldError{Field: "", Problem: "give text or enabled"}
	}
	var text *string
	if req.Text != nil {
		t, err := lessonText(req.Text)
		if err != nil {
			return err
		}
		text = &t
	}
	l, err := s.store.UpdateLesson(r.Context(), id, text, req.Enabled)
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, viewLesson(l))
	return nil
}

// deleteLesson removes a lesson.
func (s *Server) deleteLesson(w http.ResponseWriter, r *http.Request) error {
	id, err := learningID(r, "lesson")
	if err != nil {
		return err
	}
	if err := s.store.DeleteLesson(r.Context(), id); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type promotionResponse struct {
	Persona personaView `json:"persona"`
	Lesson  lessonView  `json:"lesson"`
}

// promoteLesson appends a lesson to the persona's voice, as a new persona
// version, and turns the lesson off: the voice now says it. A voice that
// would grow too long is a 409.
func (s *Server) promoteLesson(w http.ResponseWriter, r *http.Request) error {
	id, err := learningID(r, "lesson")
	if err != nil {
		return err
	}
	if err := decodeJSON(r, &struct{}{}, true); err != nil {
		return err
	}
	ctx := r.Context()
	l, err := s.store.Lesson(ctx, id)
	if err != nil {
		return err
	}
	p, err := s.store.Persona(ctx)
	if errors.Is(err, store.ErrNotFound) {
		// Before the worker seeded one, the persona in use is the default.
		p, err = persona.Default(), nil
	}
	if err != nil {
		return err
	}
	p.Voice = strings.TrimRight(p.Voice, "\n") + "\n- " + l.Text
	if p, err = p.Normalize(); err != nil {
		return &Error{Status: http.StatusConflict, Message: fmt.Sprintf("the lesson does not fit in the persona: %v", err)}
	}
	if p, err = s.store.PutPersona(ctx, p); err != nil {
		return err
	}
	off := false
	if l, err = s.store.UpdateLesson(ctx, id, nil, &off); err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, promotionResponse{Persona: viewPersona(p), Lesson: viewLesson(l)})
	return nil
}
