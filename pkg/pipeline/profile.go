package pipeline

import (
	"context"
	"log/slog"

	"github.com/hibiken/asynq"

	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// maxUnreviewedProfiles is how many profile drafts may wait for review
// before scheduled generation pauses, so they never pile up unread.
const maxUnreviewedProfiles = 3

// Profiler starts the persona's own profile posts.
type Profiler struct {
	Store *store.Store
	// PlatformName names the platform in the rows made (platform.Platform.Name).
	PlatformName string
	Queue        *tasks.Client
	Log          *slog.Logger
	// Handle is the persona's handle, without the @.
	Handle string
}

// GenerateProfile makes a new profile post and asks for its draft, unless
// enough profile drafts already wait for the administrator.
func (p *Profiler) GenerateProfile(ctx context.Context, t *asynq.Task) error {
	if _, err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	_, waiting, err := p.Store.ListPending(ctx, post.SourceProfile, post.SortDate, 1, 1)
	if err != nil {
		return err
	}
	if waiting >= maxUnreviewedProfiles {
		p.Log.InfoContext(ctx, "profile post skipped: drafts await review", "waiting", waiting)
		return nil
	}
	id, err := p.Store.CreateProfileDraft(ctx, p.PlatformName, p.Handle)
	if err != nil {
		return err
	}
	return p.Queue.EnqueueDraft(ctx, id, p.PlatformName)
}
