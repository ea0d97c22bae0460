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
	// AccountHint says how the settings name the platform's accounts
	// (its account syntax's: X's for the sandbox).
	AccountHint string `json:"account_hint"`
	// Options are the platform's own choices in the settings
	// (settings.PlatformOptions), which the admin shows while it runs.
	Options []optionView `json:"options"`
}

// optionView is one of a platform's own choices (post.Option).
type optionView struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Hint  string `json:"hint"`
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
		options := make([]optionView, 0, len(d.Options))
		for _, o := range d.Options {
			options = append(options, optionView{Key: o.Key, Label: o.Label, Hint: o.Hint})
		}
		out.Platforms = append(out.Platforms, platformView{Name: d.Name, Label: d.Label, MaxLength: d.MaxLength,
			LengthRule: string(d.Length), PostURLPattern: d.PostURLPattern, Simulated: d.Simulated, Running: slices.Contains(s.platforms, d.Name),
			AccountHint: post.DescriptorOf(d.AccountSyntax).AccountHint, Options: options})
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}
