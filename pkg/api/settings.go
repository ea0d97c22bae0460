package api

import (
	"context"
	"net/http"
	"slices"

	"infernal/pkg/settings"
)

// settingsView is the settings as the API answers them: the stored ones,
// the targeted usernames the platform does not know, and what each blocked
// author and target stands for.
type settingsView struct {
	settings.Settings
	// TargetsNotFound are the targeted usernames the platform answered it
	// does not know, looked up again hourly or when the settings change.
	TargetsNotFound []string `json:"targets_not_found"`
	// BlockedAuthorIDs are the blocked authors in order, each with its
	// handle and its id where known.
	BlockedAuthorIDs []settings.Account `json:"blocked_author_ids"`
	// TargetIDs are the targets (target_usernames) in order, each with its
	// handle and its id where known.
	TargetIDs []settings.Account `json:"target_ids"`
}

// settingsAnswer is the stored settings as the API answers them.
func (s *Server) settingsAnswer(ctx context.Context) (settingsView, error) {
	v, err := s.store.Settings(ctx)
	if err != nil {
		return settingsView{}, err
	}
	// Each platform looks up the targets of its own syntax (a Mastodon
	// account on Mastodon alone): the list is every platform's.
	missing := []string{}
	platforms := s.platformList()
	if len(platforms) == 0 {
		platforms = []string{s.platform}
	}
	for _, p := range platforms {
		names, err := s.store.TargetsNotFound(ctx, p)
		if err != nil {
			return settingsView{}, err
		}
		for _, n := range names {
			if !slices.Contains(missing, n) {
				missing = append(missing, n)
			}
		}
	}
	blocked, targets, err := s.store.SettingsAccounts(ctx, v.TargetUsernames)
	if err != nil {
		return settingsView{}, err
	}
	return settingsView{Settings: v, TargetsNotFound: missing, BlockedAuthorIDs: blocked, TargetIDs: targets}, nil
}

// getSettings answers the administrator's settings: the stored ones, or
// empty lists and the default caps before any were stored, with the
// targeted usernames the platform does not know.
func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) error {
	v, err := s.settingsAnswer(r.Context())
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, v)
	return nil
}

// settingsRequest is PUT /api/settings' body: every field is required, so
// that a client that forgets one does not empty it by accident; but for
// autopilot, learning, knowledge and platforms, which an absent field leaves
// as stored (an older client keeps them as they were).
type settingsRequest struct {
	Autopilot *settings.Autopilot `json:"autopilot"`
	Learning  *learningRequest    `json:"learning"`
	// Knowledge, absent, keeps the stored one.
	Knowledge *settings.Knowledge `json:"knowledge"`
	// Platforms, absent, keeps the stored options; a platform it leaves
	// out keeps its own (settings.PlatformOptions.Apply).
	Platforms       *map[string]map[string]*bool `json:"platforms"`
	TargetUsernames *[]string                    `json:"target_usernames"`
	SearchTopics    *[]string                    `json:"search_topics"`
	BlockedAuthors  *[]string                    `json:"blocked_authors"`
	BlockedPhrases  *[]string                    `json:"blocked_phrases"`
	Caps            *settings.Caps               `json:"caps"`
	// The fields GET answers and a PUT cannot set are taken, so that a
	// client may PUT back what it got with one field changed, and ignored
	// whatever they hold: the server works them out.
	TargetsNotFound  answerOnly `json:"targets_not_found"`
	BlockedAuthorIDs answerOnly `json:"blocked_author_ids"`
	TargetIDs        answerOnly `json:"target_ids"`
}

// putSettings replaces the settings with the body, normalised (a bad value
// is a 400 naming its field), and answers them as stored.
func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) error {
	var req settingsRequest
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		unset bool
	}{
		{"target_usernames", req.TargetUsernames == nil}, {"search_topics", req.SearchTopics == nil},
		{"blocked_authors", req.BlockedAuthors == nil}, {"blocked_phrases", req.BlockedPhrases == nil}, {"caps", req.Caps == nil},
	} {
		if f.unset {
			return &settings.FieldError{Field: f.name, Problem: "is required"}
		}
	}
	keep := req.Autopilot == nil
	if keep {
		// Checked with the default; the stored one, already normalised, replaces it below.
		def := settings.DefaultAutopilot()
		req.Autopilot = &def
	}
	learn := settings.DefaultLearning()
	if req.Learning != nil {
		var err error
		if learn, err = req.Learning.learning(); err != nil {
			return err
		}
	}
	v, err := settings.Settings{
		TargetUsernames: *req.TargetUsernames, SearchTopics: *req.SearchTopics,
		BlockedAuthors: *req.BlockedAuthors, BlockedPhrases: *req.BlockedPhrases, Caps: *req.Caps,
		Autopilot: *req.Autopilot, Learning: learn, Knowledge: settings.DefaultKnowledge(),
	}.Normalize()
	if err != nil {
		return err
	}
	if req.Knowledge != nil {
		if v.Knowledge, err = req.Knowledge.Normalize(); err != nil {
			return err
		}
	}
	stored, err := s.store.Settings(r.Context())
	if err != nil {
		return err
	}
	if keep {
		v.Autopilot = stored.Autopilot
	}
	if req.Learning == nil {
		// An absent learning keeps the stored one, as autopilot does.
		v.Learning = stored.Learning
	}
	if req.Knowledge == nil {
		v.Knowledge = stored.Knowledge
	}
	v.Platforms = stored.Platforms
	if req.Platforms != nil {
		if v.Platforms, err = stored.Platforms.Apply(*req.Platforms); err != nil {
			return err
		}
	}
	if err := s.store.PutSettings(r.Context(), v); err != nil {
		return err
	}
	answer, err := s.settingsAnswer(r.Context())
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, answer)
	return nil
}

// learningRequest is settings.Learning as PUT: every field required.
type learningRequest struct {
	Enabled  *bool `json:"enabled"`
	Examples *int  `json:"examples"`
	Lessons  *int  `json:"lessons"`
}

// learning is req checked for presence; the ranges are Normalize's.
func (req learningRequest) learning() (settings.Learning, error) {
	switch {
	case req.Enabled == nil:
		return settings.Learning{}, &settings.FieldError{Field: "learning.enabled", Problem: "is required"}
	case req.Examples == nil:
		return settings.Learning{}, &settings.FieldError{Field: "learning.examples", Problem: "is required"}
	case req.Lessons == nil:
		return settings.Learning{}, &settings.FieldError{Field: "learning.lessons", Problem: "is required"}
	}
	return settings.Learning{Enabled: *req.Enabled, Examples: *req.Examples, Lessons: *req.Lessons}, nil
}
