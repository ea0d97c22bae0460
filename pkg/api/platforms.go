package api

import (
	"net/http"
	"slices"

	"infernal/pkg/post"
)

// platformView is one platform of the table (post.Descriptor) as the
// admin reads it, to count and link without facts of its own.
type platformView struct {
	Name           string `json:"name"`
	Label          string `json:"label"`
	MaxLength      int    `json:"max_length"`
	LengthRule     string `json:"length_rule"`
	PostURLPattern string `json:"post_url_pattern"`
	// Simulated marks the sandbox, which the admin badges no post with.
	Simulated bool `json:"simulated"`
	// Running reports whether PLATFORM names it: a post of a platform that
	// is not running is shown, never sent.
	Running bool `json:"running"`
}

// platformsView answers GET /api/platforms.
type platformsView struct {
	Platforms []platformView `json:"platforms"`
}

// platformTable answers the table of platforms, in its order: every platform
// the product knows, each marked running or not. It is public: it holds
// no more than the public pages show.
func (s *Server) platformTable(w http.ResponseWriter, _ *http.Request) error {
	out := platformsView{Platforms: []platformView{}}
	for _, d := range post.Descriptors() {
		out.Platforms = append(out.Platforms, platformView{Name: d.Name, Label: d.Label, MaxLength: d.MaxLength,
			LengthRule: string(d.Length), PostURLPattern: d.PostURLPattern, Simulated: d.Simulated, Running: slices.Contains(s.platforms, d.Name)})
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}
