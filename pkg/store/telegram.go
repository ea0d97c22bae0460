package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// TelegramState is the Telegram link as the worker last saw it.
type TelegramState struct {
	// Offset is the id of the last update applied; the next poll asks for
	// the ones after it.
	Offset int64
	// Bot is the bot's username, as getMe answered.
	Bot string
	// Since is when the link first ran, or the worker running it first
	// started taking tasks if that was earlier: drafts older than it are
	// not sent.
	Since        time.Time
	LastUpdateAt *time.Time
	LastError    string
	LastErrorAt  *time.Time
}

// StartTelegram records that the link runs with bot, keeping the offset
// and the start of the first run, and returns the state. started is when
// the worker running the link began taking tasks (zero for now): on the
// first run the link counts from the earlier of it and now, so a draft the
// worker made while the link was starting is not taken for one made before
// the link existed.
func (s *Store) StartTelegram(ctx context.Context, bot string, started time.Time) (TelegramState, error) {
	var from *time.Time
	if !started.IsZero() {
		from = &started
	}
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO telegram_state (id, bot_username, since) VALUES (true, $1, least(now(), coalesce($2, now())))
		ON CONFLICT (id) DO UPDATE SET bot_username = excluded.bot_username`, bot, from); err != nil {
		return TelegramState{}, fmt.Errorf("store: start telegram: %w", err)
	}
	st, err := s.Telegram(ctx)
	if err != nil {
		return TelegramState{}, err
	}
	return *st, nil
}

// Telegram returns the link's state, nil when it never ran.
func (s *Store) Telegram(ctx context.Context) (*TelegramState, error) {
	var t TelegramState
	err := s.pool.QueryRow(ctx, `
		SELECT update_offset, bot_username, since, last_update_at, last_error, last_error_at FROM telegram_state`).
		Scan(&t.Offset, &t.Bot, &t.Since, &t.LastUpdateAt, &t.LastError, &t.LastErrorAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: telegram state: %w", err)
	}
	return &t, nil
}

// SetTelegramOffset records that update id was applied; the offset never
// goes back.
func (s *Store) SetTelegramOffset(ctx context.Context, id int64) error {
	if _, err := s.pool.Exec(ctx, `
		UPDATE telegram_state SET update_offset = greatest(update_offset, $1), last_update_at = now()`, id); err != nil {
		return fmt.Errorf("store: telegram offset: %w", err)
	}
	return nil
}

// SetTelegramError records the link's last error (already free of the
// token); "" keeps the last one and its time.
func (s *Store) SetTelegramError(ctx context.Context, msg string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE telegram_state SET last_error = $1, last_error_at = now()`, msg); err != nil {
		return fmt.Errorf("store: telegram error: %w", err)
	}
	return nil
}

// UnsentDrafts returns up to limit pending posts whose current draft
// version has not reached Telegram, oldest first, among those that became
// pending since; auto-approvals in their grace window count as pending, so
// that the administrator sees them and may cancel them.
func (s *Store) UnsentDrafts(ctx context.Context, since time.Time, limit int) ([]post.Post, error) {
	ps, err := queryPosts(ctx, s.pool, `
		SELECT `+postColumns+` FROM posts p
		WHERE (status = 'pending' OR (status = 'approved' AND send_after IS NOT NULL AND send_started_at IS NULL))
			AND updated_at >= $1
			AND NOT EXISTS (SELECT 1 FROM telegram_drafts d WHERE d.post_id = p.id AND d.draft_version = p.draft_version)
		ORDER BY updated_at, id LIMIT $2`, since, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unsent drafts: %w", err)
	}
	return ps, nil
}

// DraftRef names one draft version of a post.
type DraftRef struct {
	PostID  int64
	Version int
}

// MarkDraftsSent records how drafts reached Telegram: "card" (a message of
// their own) or "digested" (summed up in a digest).
func (s *Store) MarkDraftsSent(ctx context.Context, refs []DraftRef, how string) error {
	if len(refs) == 0 {
		return nil
	}
	ids := make([]int64, len(refs))
	versions := make([]int32, len(refs))
	for i, r := range refs {
		ids[i], versions[i] = r.PostID, int32(r.Version)
	}
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO telegram_drafts (post_id, draft_version, how)
		SELECT * FROM unnest($1::bigint[], $2::int[]) AS r, (VALUES ($3::text)) AS h
		ON CONFLICT DO NOTHING`, ids, versions, how); err != nil {
		return fmt.Errorf("store: mark drafts %s: %w", how, err)
	}
	return nil
}

// TelegramWindow is what reached Telegram recently.
type TelegramWindow struct {
	// Cards counts the drafts sent as cards of their own since the start.
	Cards int
	// LastDigest is when the last digest was sent, nil when none was since.
	LastDigest *time.Time
}

// TelegramSince tells what reached Telegram since from.
func (s *Store) TelegramSince(ctx context.Context, from time.Time) (TelegramWindow, error) {
	var w TelegramWindow
	err := s.pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM telegram_drafts WHERE how = 'card' AND at >= $1),
			(SELECT max(sent_at) FROM telegram_messages WHERE kind = 'digest' AND sent_at >= $1)`, from).
		Scan(&w.Cards, &w.LastDigest)
	if err != nil {
		return TelegramWindow{}, fmt.Errorf("store: telegram window: %w", err)
	}
	return w, nil
}

// TelegramMessage is one message the bot sent.
type TelegramMessage struct {
	ChatID    int64
	MessageID int64
	// Kind is card, digest, edit (a prompt for an edited text) or notice.
	Kind         string
	PostID       int64
	DraftVersion int
	Open         bool
	// Text is the message as sent.
	Text    string
	Outcome string
	SentAt  time.Time
}

// AddTelegramMessage records a message the bot sent.
func (s *Store) AddTelegramMessage(ctx context.Context, m TelegramMessage) error {
	var postID *int64
	if m.PostID != 0 {
		postID = &m.PostID
	}
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO telegram_messages (chat_id, message_id, kind, post_id, draft_version, open, text, outcome)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
		m.ChatID, m.MessageID, m.Kind, postID, m.DraftVersion, m.Open, m.Text, m.Outcome); err != nil {
		return fmt.Errorf("store: telegram message: %w", err)
	}
	return nil
}

// telegramMessageColumns are the columns of a TelegramMessage, in scan order.
const telegramMessageColumns = `chat_id, message_id, kind, coalesce(post_id, 0), draft_version, open, text, outcome, sent_at`

// scanTelegramMessage reads a row of telegramMessageColumns.
func scanTelegramMessage(row pgx.Row) (TelegramMessage, error) {
	var m TelegramMessage
	err := row.Scan(&m.ChatID, &m.MessageID, &m.Kind, &m.PostID, &m.DraftVersion, &m.Open, &m.Text, &m.Outcome, &m.SentAt)
	return m, err
}

// TelegramMessageByID returns the message the bot sent as messageID in
// chatID; ErrNotFound when it sent none there.
func (s *Store) TelegramMessageByID(ctx context.Context, chatID, messageID int64) (TelegramMessage, error) {
	m, err := scanTelegramMessage(s.pool.QueryRow(ctx, `SELECT `+telegramMessageColumns+`
		FROM telegram_messages WHERE chat_id = $1 AND message_id = $2`, chatID, messageID))
	if err != nil {
		return TelegramMessage{}, notFound(err, fmt.Sprintf("telegram message %d", messageID))
	}
	return m, nil
}

// CardToSync is an open card whose post has moved on: decided, or given a
// new draft version.
type CardToSync struct {
	Message TelegramMessage
	Post    post.Post
	// By is the channel of the post's last approval or rejection, "" when none.
	By post.Channel
}

// CardsToSync returns up to limit open cards whose post is no longer
// pending at the card's draft version, oldest first.
func (s *Store) CardsToSync(ctx context.Context, limit int) ([]CardToSync, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT m.chat_id, m.message_id, m.kind, m.post_id, m.draft_version, m.open, m.text, m.outcome, m.sent_at, p.id,
			coalesce((SELECT d.by FROM post_decisions d WHERE d.post_id = p.id AND d.action IN ('approve', 'reject')
				ORDER BY d.id DESC LIMIT 1), '')
		FROM telegram_messages m JOIN posts p ON p.id = m.post_id
		WHERE m.open AND m.kind = 'card' AND (p.status <> 'pending' OR p.draft_version <> m.draft_version)
		ORDER BY m.sent_at LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: cards to sync: %w", err)
	}
	type found struct {
		m  TelegramMessage
		id int64
		by string
	}
	fs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (found, error) {
		var f found
		err := row.Scan(&f.m.ChatID, &f.m.MessageID, &f.m.Kind, &f.m.PostID, &f.m.DraftVersion, &f.m.Open, &f.m.Text, &f.m.Outcome, &f.m.SentAt, &f.id, &f.by)
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: cards to sync: %w", err)
	}
	if len(fs) == 0 {
		return nil, nil
	}
	// The cards' posts in one read, not one per card.
	ids := make([]int64, len(fs))
	for i, f := range fs {
		ids[i] = f.id
	}
	ps, err := queryPosts(ctx, s.pool, `SELECT `+postColumns+` FROM posts WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: cards to sync: %w", err)
	}
	byID := make(map[int64]post.Post, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	out := make([]CardToSync, 0, len(fs))
	for _, f := range fs {
		// The join found the post, and a card's post is deleted with its card.
		if p, ok := byID[f.id]; ok {
			out = append(out, CardToSync{Message: f.m, Post: p, By: post.Channel(f.by)})
		}
	}
	return out, nil
}

// SetTelegramOutcome records what a card now shows; open false once it
// shows a final outcome and needs no further edit.
func (s *Store) SetTelegramOutcome(ctx context.Context, chatID, messageID int64, outcome string, open bool) error {
	if _, err := s.pool.Exec(ctx, `UPDATE telegram_messages SET outcome = $3, open = $4 WHERE chat_id = $1 AND message_id = $2`,
		chatID, messageID, outcome, open); err != nil {
		return fmt.Errorf("store: telegram outcome: %w", err)
	}
	return nil
}

// OldestPending returns the pending post waiting longest for review;
// ErrNotFound when none waits.
func (s *Store) OldestPending(ctx context.Context) (post.Post, error) {
	p, err := queryPost(ctx, s.pool, `SELECT `+postColumns+` FROM posts WHERE status = 'pending' ORDER BY updated_at, id LIMIT 1`)
	if err != nil {
		return post.Post{}, notFound(err, "oldest pending post")
	}
	return p, nil
}
