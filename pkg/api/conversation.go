package api

import (
	"net/http"
	"time"

	"infernal/pkg/conversation"
	"infernal/pkg/post"
)

// contextItemView is one post of a card's conversation.
type contextItemView struct {
	Relation       string     `json:"relation"`
	AuthorUsername string     `json:"author_username"`
	Text           string     `json:"text"`
	CreatedAt      *time.Time `json:"created_at"`
	PlatformPostID string     `json:"platform_post_id"`
	// Media are the post's images, never null; Link its link card, null when none.
	Media []post.Media `json:"media"`
	Link  *post.Link   `json:"link"`
	// ContentWarning is the warning its author put over it, "" when none.
	ContentWarning string `json:"content_warning"`
}

// contextResponse is GET /api/posts/{id}/context.
type contextResponse struct {
	Items []contextItemView `json:"items"`
	// Note says what the draft could not see, "" when nothing was missed.
	Note string `json:"note"`
}

// conversation answers what a post's draft was written from: its thread
// oldest first, the persona's earlier replies in it and the post it
// quotes, read from the database alone (never from the platform), as deep
// as the settings say.
func (s *Server) conversation(w http.ResponseWriter, r *http.Request) error {
	id, err := postID(r)
	if err != nil {
		return err
	}
	p, err := s.store.Post(r.Context(), id)
	if err != nil {
		return err
	}
	set, err := s.store.Settings(r.Context())
	if err != nil {
		return err
	}
	g := conversation.Gatherer{Store: s.store, PlatformName: p.Platform, Handle: s.handles.On(p.Platform, s.personaHandle)}
	c, err := g.Gather(r.Context(), p, set.Caps.ContextDepth)
	if err != nil {
		return err
	}
	out := contextResponse{Items: make([]contextItemView, 0, len(c.Items)), Note: p.ContextNote}
	httpOK := post.DescriptorOf(p.Platform).PlainHTTP
	for _, it := range c.Items {
		v := contextItemView{Relation: string(it.Relation), AuthorUsername: it.AuthorUsername, Text: it.Text,
			CreatedAt: it.CreatedAt, PlatformPostID: it.PlatformPostID, ContentWarning: it.ContentWarning,
			Media: post.SafeMedia(it.Media, httpOK), Link: post.SafeLink(it.Link, httpOK)}
		if v.CreatedAt != nil {
			utc := v.CreatedAt.UTC()
			v.CreatedAt = &utc
		}
		out.Items = append(out.Items, v)
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}
