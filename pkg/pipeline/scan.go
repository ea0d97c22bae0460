package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/insights"
	"infernal/pkg/platform"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
)

// Endpoints a scan reads, as a ReadBudget is asked about them.
const (
	EndpointMentions  = "GET /2/users/:id/mentions"
	EndpointSearch    = "GET /2/tweets/search/recent"
	EndpointUserPosts = "GET /2/users/:id/tweets"
)

// readsPerScan bounds the platform reads of one scan of one timeline: the
// newest posts once, and the gaps earlier scans left, oldest first, with the
// rest. Each read is itself bounded by the platform client (five pages of
// 100 on X), so a scan costs at most readsPerScan of those.
const readsPerScan = 3

// ReadBudget decides whether a scan may spend a read of endpoint on closing
// a gap of the conversation search or of a targeted account (mentions are
// always read). A read it refuses is put off, counted and logged, never
// dropped: the gap stays until a later scan reads it.
type ReadBudget interface {
	Allow(ctx context.Context, endpoint string) bool
}

// AllowAll is the ReadBudget with no limit.
type AllowAll struct{}

// Allow always allows the read.
func (AllowAll) Allow(context.Context, string) bool { return true }

// Scanner reads the platform's timelines and records every new post found,
// asking for its draft.
type Scanner struct {
	Store    *store.Store
	Platform platform.Platform
	Queue    *tasks.Client
	Log      *slog.Logger
	// Self is the persona's account, whose own posts are never recorded.
	Self *Self
	// Reads decides the gap reads of the search and the targeted accounts;
	// nil allows them all.
	Reads ReadBudget

	// Policy says which posts the API may answer (platform.ReplySummoned
	// when empty).
	Policy platform.ReplyPolicy
	// HandPosting are the sources whose posts the API may not answer are
	// still drafted, to be posted by hand; the others are left alone.
	HandPosting []post.Source
	// Now is the clock a pause is judged by.
	Now func() time.Time
	// Budget stops scans at an X spending ceiling; nil for none.
	Budget *spend.Gate
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

// now is the scanner's clock: Now, else the time.
func (s *Scanner) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// paused reports whether an account-wide pause, a pause of this timeline
// or a spent X budget stops the scan.
func (s *Scanner) paused(ctx context.Context, timeline string) (bool, error) {
	now := s.now()
	p, tp, err := s.Store.ScanPauses(ctx, s.Platform.Name(), timeline, now)
	if err != nil {
		return false, fmt.Errorf("scan %s: %w", timeline, err)
	}
	if p != nil {
		s.Log.InfoContext(ctx, "scan skipped: paused", "timeline", timeline, "reason", p.Reason)
		return true, nil
	}
	if tp != nil {
		// Logged once, when the pause began (pauseTimeline).
		s.Log.DebugContext(ctx, "scan skipped: timeline paused", "timeline", timeline)
		return true, nil
	}
	why, err := s.Budget.ScanBlocked(ctx)
	if err != nil {
		return false, err
	}
	if why != "" {
		s.Log.InfoContext(ctx, "scan skipped: budget", "timeline", timeline, "reason", why)
		return true, nil
	}
	return false, nil
}

// timeline is one timeline a scan reads.
type timeline struct {
	// cursor names the timeline's cursor and gaps.
	cursor   string
	source   post.Source
	endpoint string
	// budgeted means its gap reads need the ReadBudget's leave.
	budgeted bool
	read     func(context.Context, platform.Range) (platform.Page, error)
}

// ScanMentions ingests the posts that mention the persona.
func (s *Scanner) ScanMentions(ctx context.Context, t *asynq.Task) error {
	if _, err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	me, err := s.Self.User(ctx)
	if err != nil {
		return err
	}
	return s.scan(ctx, timeline{cursor: "mentions", source: post.SourceMention, endpoint: EndpointMentions,
		read: func(ctx context.Context, r platform.Range) (platform.Page, error) {
			return s.Platform.Mentions(ctx, me.ID, r)
		}})
}

// ScanConversations ingests posts found by a search for the administrator's
// topics, read from the settings at each run, so an edit in the admin takes
// effect at the next scan. No topics: no search, and no cost.
func (s *Scanner) ScanConversations(ctx context.Context, t *asynq.Task) error {
	if _, err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	set, err := s.Store.Settings(ctx)
	if err != nil {
		return err
	}
	query, err := settings.SearchQuery(set.SearchTopics)
	if err != nil {
		// Settings are checked when saved; only a row older than the check can fail here.
		s.Log.WarnContext(ctx, "conversation scan skipped: the topics make no search X accepts", "error", err)
		return nil
	}
	if query == "" {
		s.Log.InfoContext(ctx, "conversation scan skipped: no search topics")
		return nil
	}
	// The cursor belongs to the query: changed topics start from the newest results.
	return s.scan(ctx, timeline{cursor: "search:" + query, source: post.SourceConversation, endpoint: EndpointSearch, budgeted: true,
		read: func(ctx context.Context, r platform.Range) (platform.Page, error) {
			return s.Platform.Search(ctx, query, r)
		}})
}

// ScanTargeted ingests the recent posts of each targeted account of the
// settings that belongs to the platform (an X handle or user id on X and
// the sandbox, a Bluesky handle or DID on Bluesky), read at each run. An
// account given by id is read by that id; one given by handle is looked up
// once and its id kept. An account the platform does not know is
// logged, recorded and skipped, and looked up again at most once every
// TargetLookupInterval, or at once when the settings change; no targets,
// nothing is read.
func (s *Scanner) ScanTargeted(ctx context.Context, t *asynq.Task) error {
	if _, err := tasks.DecodePeriodic(t); err != nil {
		return err
	}
	set, err := s.Store.Settings(ctx)
	if err != nil {
		return err
	}
	if len(set.TargetUsernames) == 0 {
		s.Log.InfoContext(ctx, "targeted scan skipped: no targeted accounts")
		return nil
	}
	var errs []error
	syntax := post.DescriptorOf(s.Platform.Name()).AccountSyntax
	for _, username := range set.TargetUsernames {
		kind := post.AccountKindOf(username)
		if kind.Syntax != syntax {
			continue
		}
		var target store.Target
		if kind.ID {
			target.UserID = username
		} else if target, err = s.Store.Target(ctx, s.Platform.Name(), username); err != nil {
			return err
		}
		userID := target.UserID
		if userID == "" {
			if !target.NotFoundAt.IsZero() && s.now().Sub(target.NotFoundAt) < TargetLookupInterval {
				// A lookup is a billed user read; X's answer will not change by the minute.
				continue
			}
			u, err := s.Platform.UserByUsername(ctx, username)
			if err != nil {
				var pe *platform.Error
				if errors.As(err, &pe) && pe.Status == http.StatusNotFound {
					s.Log.WarnContext(ctx, "targeted account not found: looked up again in an hour or when the settings change", "username", username, "error", err)
					if err := s.Store.TargetNotFound(ctx, s.Platform.Name(), username, s.now()); err != nil {
						return err
					}
					continue
				}
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
		err = s.scan(ctx, timeline{cursor: "targeted:" + username, source: post.SourceTargeted, endpoint: EndpointUserPosts, budgeted: true,
			read: func(ctx context.Context, r platform.Range) (platform.Page, error) {
				return s.Platform.UserPosts(ctx, userID, r)
			}})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// TargetLookupInterval is the least time between two lookups of a targeted
// username the platform answered it does not know.
const TargetLookupInterval = time.Hour

// scan reads one timeline: first the gaps earlier scans left, oldest first,
// then the newest posts since its cursor, then, reads permitting, the gap
// that read may have opened. Each read records its new posts and asks for
// their drafts, oldest first, before the cursor or gap it covers moves, so a
// crash in between only means the next scan reads the same posts again,
// which changes nothing. A read of the newest posts that stops at its bound
// before the cursor moves the cursor over what it read and keeps the rest
// as a gap; the first scan of a timeline (no cursor yet) starts at the
// newest posts and leaves no gap behind it.
//
// One scan of a timeline runs at a time, across every worker: the scan
// holds the timeline's lease in Redis while it reads, and a scan that finds
// it held skips with one log line. A scan whose lease is lost stops.
func (s *Scanner) scan(ctx context.Context, tl timeline) error {
	name := s.Platform.Name()
	if stop, err := s.paused(ctx, tl.cursor); stop || err != nil {
		return err
	}
	leased, release, held, err := s.Queue.Hold(ctx, "scan:"+name+":"+tl.cursor)
	if err != nil {
		return err
	}
	if !held {
		s.Log.InfoContext(ctx, "scan skipped: another scan of this timeline is running", "timeline", tl.cursor)
		return nil
	}
	defer func() {
		if rerr := release(); rerr != nil {
			s.Log.WarnContext(ctx, "scan lease not given back", "timeline", tl.cursor, "error", rerr)
		}
	}()
	ctx = leased
	st := scanStats{}
	if err := s.readGaps(ctx, tl, readsPerScan-1, &st); err != nil {
		return err
	}
	since, err := s.Store.Cursor(ctx, name, tl.cursor)
	if err != nil {
		return err
	}
	page, err := tl.read(ctx, platform.Range{SinceID: since})
	if err != nil {
		return s.readFailed(ctx, tl.cursor, err)
	}
	st.reads++
	if err := s.record(ctx, tl, page, &st); err != nil {
		return err
	}
	// The lookup of a post never seen names the last scan and how far it reached.
	if err := s.Store.NoteScan(ctx, name, tl.cursor, page.NewestID, s.now()); err != nil {
		return err
	}
	gapUntil := ""
	if page.More && since != "" && page.OldestID != "" {
		gapUntil = page.OldestID
	}
	if page.NewestID != "" && page.NewestID != since {
		if err := s.Store.MoveCursor(ctx, name, tl.cursor, since, page.NewestID, gapUntil); err != nil {
			return err
		}
	}
	if gapUntil != "" {
		if err := s.readGaps(ctx, tl, readsPerScan, &st); err != nil {
			return err
		}
	}
	s.Log.InfoContext(ctx, "scanned", "timeline", tl.cursor, "reads", st.reads, "read", st.read, "new", st.fresh,
		"gaps_closed", st.closed, "gaps_open", st.open, "not_answerable", st.unanswerable)
	return nil
}

// scanStats counts what one scan did, for its log line.
type scanStats struct {
	reads, read, fresh, closed, open int
	// unanswerable counts posts the API may not answer and no one hand-posts.
	unanswerable int
}

// readGaps reads the open gaps of tl, oldest first, until the scan has made
// maxReads reads. A gap read that stops at its bound narrows the gap to
// what is left; one that reaches the gap's start closes it. A gap the
// platform refuses for good (older than its window) is dropped and counted;
// the gap reads the budget does not allow are counted and left for later.
func (s *Scanner) readGaps(ctx context.Context, tl timeline, maxReads int, st *scanStats) error {
	name := s.Platform.Name()
	gaps, err := s.Store.Gaps(ctx, name, tl.cursor)
	if err != nil {
		return err
	}
	st.open = len(gaps)
	for i, g := range gaps {
		if st.reads >= maxReads {
			return nil
		}
		if tl.budgeted && !s.budget().Allow(ctx, tl.endpoint) {
			left := len(gaps) - i
			if err := s.Store.CountSkippedReads(ctx, name, tl.cursor, left, "read budget"); err != nil {
				return err
			}
			s.Log.WarnContext(ctx, "gap reads put off for the read budget", "timeline", tl.cursor, "endpoint", tl.endpoint, "gaps", left)
			return nil
		}
		page, err := tl.read(ctx, platform.Range{SinceID: g.SinceID, UntilID: g.UntilID})
		if err != nil {
			if r := platform.Classify(err); platform.Temporary(err) || r.AccountWide() || r == platform.RefusalBadRequestConfig {
				// A closed window, an account-wide refusal or a request X rejects whatever its range says nothing of this gap: keep it for later.
				return s.readFailed(ctx, tl.cursor, err)
			}
			if err := s.Store.DropGap(ctx, name, tl.cursor, g.ID, err.Error()); err != nil {
				return err
			}
			st.open--
			s.Log.WarnContext(ctx, "gap dropped: the platform refuses to read it", "timeline", tl.cursor,
				"since_id", g.SinceID, "until_id", g.UntilID, "error", err)
			continue
		}
		st.reads++
		if err := s.record(ctx, tl, page, st); err != nil {
			return err
		}
		if page.More && page.OldestID != "" {
			err = s.Store.NarrowGap(ctx, g, page.OldestID)
		} else {
			err = s.Store.CloseGap(ctx, g.ID)
			st.closed++
			st.open--
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// record keeps every post of page not the persona's own, oldest first, and
// asks for the draft of each one new.
func (s *Scanner) record(ctx context.Context, tl timeline, page platform.Page, st *scanStats) error {
	name := s.Platform.Name()
	plainHTTP := post.DescriptorOf(name).PlainHTTP
	me, err := s.Self.User(ctx)
	if err != nil {
		return err
	}
	st.read += len(page.Posts)
	// The posts the read returned alongside (parents, quoted posts) are
	// paid for already: kept, a draft's context needs no second read.
	if len(page.Included) > 0 {
		kept := make([]store.ContextPost, 0, len(page.Included))
		for _, inc := range page.Included {
			if inc.ID != "" {
				kept = append(kept, contextRow(name, inc))
			}
		}
		if err := s.Store.SaveContextPosts(ctx, kept); err != nil {
			return err
		}
	}
	// Every post dropped here is kept in the ledger with its reason.
	dropped := make([]store.Dropped, 0, len(page.Reposts)+len(page.Withheld))
	for _, id := range page.Reposts {
		dropped = append(dropped, store.Dropped{PostID: id, Reason: insights.DropRetweet})
	}
	for _, w := range page.Withheld {
		dropped = append(dropped, store.Dropped{PostID: w.ID, Reason: w.Reason})
	}
	// Pages are newest first; drafts are asked for oldest first, so that a
	// burst is answered in the order it arrived.
	for _, p := range slices.Backward(page.Posts) {
		if p.Author.ID == me.ID {
			dropped = append(dropped, store.Dropped{PostID: p.ID, Reason: insights.DropOwnPost})
			continue
		}
		route, keep := s.route(p, me, tl.source)
		if !keep {
			st.unanswerable++
			dropped = append(dropped, store.Dropped{PostID: p.ID, Reason: insights.DropNotSummoned})
			continue
		}
		media, link := mediaOf(name, p)
		id, created, err := s.Store.UpsertFound(ctx, post.Post{
			Media: media, Link: link, ContentWarning: post.StorableText(p.ContentWarning), Language: p.Language,
			WebURL:     post.SafePageURL(p.WebURL, plainHTTP),
			ReplyRoute: route,
			Platform:   name, AuthorID: p.Author.ID, Source: tl.source, OriginalPostID: p.ID, ConversationID: p.ConversationID,
			OriginalPostText: post.StorableText(p.Text), OriginalPostUser: post.StorableText(p.Author.Name),
			// The admin renders these as an image and a link: only http(s) URLs are kept.
			AuthorUsername: post.StorableText(p.Author.Username), AuthorProfileImage: post.SafeURL(p.Author.ProfileImage, plainHTTP),
			MediaURL: post.SafeURL(p.MediaURL, plainHTTP), CreatedAt: p.CreatedAt,
			InReplyToID: p.InReplyToID, QuotedID: p.QuotedID,
			Likes: p.Metrics.Likes, Retweets: p.Metrics.Retweets, Replies: p.Metrics.Replies,
		})
		if err != nil {
			return err
		}
		if !created {
			continue
		}
		st.fresh++
		enqueue := s.Queue.EnqueueDraft
		if tl.source == post.SourceMention {
			// Mentions are answered before conversations and targeted posts.
			enqueue = s.Queue.EnqueueDraftFirst
		}
		if err := enqueue(ctx, id, name); err != nil {
			return err
		}
	}
	return s.Store.RecordDropped(ctx, name, tl.source, dropped)
}

// budget is the ReadBudget of the gap reads, AllowAll when none is set.
func (s *Scanner) budget() ReadBudget {
	if s.Reads == nil {
		return AllowAll{}
	}
	return s.Reads
}

// readFailed decides what a failed read means: a closed rate-limit window
// skips this run with one log line (the next scheduled run tries again); an
// account-wide refusal pauses scanning and sending; a request the platform
// rejects for its shape (platform.RefusalBadRequestConfig) pauses this
// timeline's scans; anything else fails the task.
func (s *Scanner) readFailed(ctx context.Context, cursor string, err error) error {
	if at, ok := platform.RateLimited(err); ok {
		s.Log.InfoContext(ctx, "scan skipped: rate-limit window closed", "timeline", cursor, "reset", at)
		return nil
	}
	if r := platform.Classify(err); r == platform.RefusalBadRequestConfig {
		return s.pauseTimeline(ctx, cursor, r, err)
	}
	if r := platform.Classify(err); r.AccountWide() {
		return pauseFor(ctx, s.Store, s.Log, s.Platform.Name(), r, err)
	}
	return fmt.Errorf("scan %s: %w", cursor, err)
}

// TimelinePause is how long a request the platform rejects for its shape
// pauses the scans of its timeline: the client must change before the read
// can succeed, and one read an interval shows whether it has.
const TimelinePause = 6 * time.Hour

// pauseTimeline pauses the scans of the timeline named cursor for
// TimelinePause, in every worker, and logs why once: by the scan that
// began the pause.
func (s *Scanner) pauseTimeline(ctx context.Context, cursor string, r platform.Refusal, err error) error {
	began, serr := s.Store.PauseTimeline(ctx, store.TimelinePause{Platform: s.Platform.Name(), Timeline: cursor, Reason: r.Reason(), Since: s.now()}, TimelinePause)
	if serr != nil {
		return errors.Join(err, fmt.Errorf("scan %s: pause timeline: %w", cursor, serr))
	}
	if began {
		s.Log.ErrorContext(ctx, "timeline paused: the platform rejects the request", "timeline", cursor,
			"refusal", r, "reason", r.Reason(), "for", TimelinePause, "error", err)
	}
	return nil
}
