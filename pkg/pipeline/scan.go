package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

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
		return s.Platform.Mentions(ctx, me.ID, platform.Range{SinceID: since})
	})
}

// ScanConversations ingests posts found by the configured search.
func (s *Scanner) ScanConversations(ctx context.Context, t *asynq.Task) error {
	if err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	// The cursor belongs to the query: a new SEARCH_QUERY starts from the newest results.
	return s.scan(ctx, "search:"+s.SearchQuery, post.SourceConversation, func(since string) (platform.Page, error) {
		return s.Platform.Search(ctx, s.SearchQuery, platform.Range{SinceID: since})
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
			return s.Platform.UserPosts(ctx, userID, platform.Range{SinceID: since})
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
	since, err := s.Store.Cursor(ctx, name, cursor)
	if err != nil {
		return err
	}
	page, err := read(since)
	if err != nil {
		return fmt.Errorf("scan %s: %w", cursor, err)
	}
	me, err := s.Self.User(ctx)
	if err != nil {
		return err
	}
	fresh := 0
	for _, p := range page.Posts {
		if p.Author.ID == me.ID {
			continue
		}
		id, created, err := s.Store.UpsertFound(ctx, post.Post{
			Platform: name, Source: source, OriginalPostID: p.ID, ConversationID: p.ConversationID,
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
	s.Log.InfoContext(ctx, "scanned", "timeline", cursor, "read", len(page.Posts), "new", fresh)
	return nil
}
