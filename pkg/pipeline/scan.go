package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// Scanner reads the platform's timelines and records every new post found,
// asking for its draft.
type Scanner struct {
	Store    *store.Store
	Platform platform.Platform
	Queue    *tasks.Client
	Log      *slog.Logger
	// Self is the persona's account, whose own posts are never recorded.
	Self *Self
	// SearchQuery finds the conversations to join.
	SearchQuery string
	// Targets are the handles whose recent posts are answered.
	Targets []string
	// Policy says which posts the API may answer (platform.ReplySummoned
	// when empty).
	Policy platform.ReplyPolicy
	// HandPosting are the sources whose posts the API may not answer are
	// still drafted, to be posted by hand; the others are left alone.
	HandPosting []post.Source
	// Now is the clock a pause is judged by.
	Now func() time.Time
	// Budget stops scans at an X spending ceiling; nil for none.
	Budget *Budget
}

// route decides, before drafting, how a reply to p would go out: through the
// API when the policy lets it, else by hand when source is drafted for
// hand-posting; keep is false when the post is not worth drafting.
func (s *Scanner) route(p platform.Post, me platform.User, source post.Source) (route post.Route, keep bool) {
	policy := s.Policy
	if policy == "" {
		policy = platform.ReplySummoned
	}
	// The mentions timeline holds only posts that @mention the persona, even
	// when the platform leaves the mention out of the post's entities.
	if source == post.SourceMention || policy.AllowsAPIReply(p, me) {
		return post.RouteAPI, true
	}
	return post.RouteManual, slices.Contains(s.HandPosting, source)
}

// paused reports whether an account-wide pause or a spent X budget stops
// the scan, logging it once.
func (s *Scanner) paused(ctx context.Context, timeline string) (bool, error) {
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	p, err := s.Store.ActivePause(ctx, now)
	if err != nil {
		return false, err
	}
	if p != nil {
		s.Log.InfoContext(ctx, "scan skipped: paused", "timeline", timeline, "reason", p.Reason)
		return true, nil
	}
	why, err := s.Budget.scanBlocked(ctx)
	if err != nil {
		return false, err
	}
	if why != "" {
		s.Log.InfoContext(ctx, "scan skipped: budget", "timeline", timeline, "reason", why)
		return true, nil
	}
	return false, nil
}

// ScanMentions ingests the posts that mention the persona.
func (s *Scanner) ScanMentions(ctx context.Context, t *asynq.Task) error {
	if err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	me, err := s.Self.User(ctx)
	if err != nil {
		return err
	}
	return s.scan(ctx, "mentions", post.SourceMention, func(since string) (platform.Page, error) {
		return s.Platform.Mentions(ctx, me.ID, since)
	})
}

// ScanConversations ingests posts found by the configured search.
func (s *Scanner) ScanConversations(ctx context.Context, t *asynq.Task) error {
	if err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	// The cursor belongs to the query: a new SEARCH_QUERY starts from the newest results.
	return s.scan(ctx, "search:"+s.SearchQuery, post.SourceConversation, func(since string) (platform.Page, error) {
		return s.Platform.Search(ctx, s.SearchQuery, since)
	})
}

// ScanTargeted ingests the recent posts of each targeted account. An account
// the platform does not know is logged and skipped.
func (s *Scanner) ScanTargeted(ctx context.Context, t *asynq.Task) error {
	if err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	var errs []error
	for _, username := range s.Targets {
		userID, err := s.Store.TargetUserID(ctx, s.Platform.Name(), username)
		if err != nil {
			return err
		}
		if userID == "" {
			u, err := s.Platform.UserByUsername(ctx, username)
			if err != nil {
				if !platform.Temporary(err) {
					s.Log.WarnContext(ctx, "targeted account skipped", "username", username, "error", err)
					continue
				}
				errs = append(errs, err)
				continue
			}
			if err := s.Store.PutTarget(ctx, s.Platform.Name(), username, u.ID); err != nil {
				return err
			}
			userID = u.ID
		}
		err = s.scan(ctx, "targeted:"+username, post.SourceTargeted, func(since string) (platform.Page, error) {
			return s.Platform.UserPosts(ctx, userID, since)
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// scan reads one timeline from its cursor, records every new post and asks
// for its draft, then moves the cursor. A crash before the cursor moves only
// means the next scan reads the same posts again, which changes nothing.
func (s *Scanner) scan(ctx context.Context, cursor string, source post.Source, read func(since string) (platform.Page, error)) error {
	name := s.Platform.Name()
	if stop, err := s.paused(ctx, cursor); stop || err != nil {
		return err
	}
	since, err := s.Store.Cursor(ctx, name, cursor)
	if err != nil {
		return err
	}
	page, err := read(since)
	if err != nil {
		return s.readFailed(ctx, cursor, err)
	}
	me, err := s.Self.User(ctx)
	if err != nil {
		return err
	}
	fresh, unanswerable := 0, 0
	for _, p := range page.Posts {
		if p.Author.ID == me.ID {
			continue
		}
		route, keep := s.route(p, me, source)
		if !keep {
			unanswerable++
			continue
		}
		id, created, err := s.Store.UpsertFound(ctx, post.Post{
			ReplyRoute: route,
			Platform:   name, Source: source, OriginalPostID: p.ID, ConversationID: p.ConversationID,
			OriginalPostText: post.StorableText(p.Text), OriginalPostUser: post.StorableText(p.Author.Name),
			AuthorUsername: post.StorableText(p.Author.Username), AuthorProfileImage: post.StorableText(p.Author.ProfileImage),
			MediaURL: post.StorableText(p.MediaURL), CreatedAt: p.CreatedAt,
			Likes: p.Metrics.Likes, Retweets: p.Metrics.Retweets, Replies: p.Metrics.Replies,
		})
		if err != nil {
			return err
		}
		if created {
			fresh++
			if err := s.Queue.EnqueueDraft(ctx, id); err != nil {
				return err
			}
		}
	}
	if page.NewestID != "" && page.NewestID != since {
		if err := s.Store.SetCursor(ctx, name, cursor, page.NewestID); err != nil {
			return err
		}
	}
	s.Log.InfoContext(ctx, "scanned", "timeline", cursor, "read", len(page.Posts), "new", fresh, "not_answerable", unanswerable)
	return nil
}

// readFailed decides what a failed read means: a closed rate-limit window
// skips this run with one log line (the next scheduled run tries again); an
// account-wide refusal pauses scanning and sending; anything else fails the
// task.
func (s *Scanner) readFailed(ctx context.Context, cursor string, err error) error {
	if at, ok := platform.RateLimited(err); ok {
		s.Log.InfoContext(ctx, "scan skipped: rate-limit window closed", "timeline", cursor, "reset", at)
		return nil
	}
	if r := platform.Classify(err); r.AccountWide() {
		return pauseFor(ctx, s.Store, s.Log, r, err)
	}
	return fmt.Errorf("scan %s: %w", cursor, err)
}
