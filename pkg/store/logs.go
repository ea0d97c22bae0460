package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
)

// Thread types of the public log.
const (
	// ThreadInteraction is a conversation with mortals: their posts and the persona's replies.
	ThreadInteraction = "MORTAL_INTERACTION"
	// ThreadBroadcast is one of the persona's own profile posts.
	ThreadBroadcast = "CONSCIOUSNESS_BROADCAST"
)

// Thread is one entry of the public log; rows are read into it by name.
type Thread struct {
	ID              int64     `db:"id"`
	Type            string    `db:"type"`
	LatestTimestamp time.Time `db:"latest_timestamp"`
	Messages        []Message `db:"-"`
}

// Message is one posted exchange: the mortal's post, if any, and the
// persona's answer as it was posted; rows are read into it by name.
type Message struct {
	PostID           int64         `db:"post_id"`
	OriginalPostID   string        `db:"original_post_id"`
	OriginalPostText string        `db:"original_post_text"`
	OriginalPostUser string        `db:"original_post_user"`
	AuthorUsername   string        `db:"author_username"`
	Response         string        `db:"response"`
	Category         post.Category `db:"category"`
	Timestamp        time.Time     `db:"timestamp"`
	Temperature      float64       `db:"temperature"`
	PresencePenalty  float64       `db:"presence_penalty"`
	FrequencyPenalty float64       `db:"frequency_penalty"`
}

// messageRow is a Message with the thread it belongs to.
type messageRow struct {
	ThreadID int64 `db:"thread_id"`
	Message
}

// postAndLog wraps update, an UPDATE of one posts row to posted ending in
// RETURNING *, into one statement that also files the post in the public
// log: replies join the thread of their conversation (keyed
// "platform:conversation", or "platform:original post" without one), a
// profile post opens a thread of its own ("profile:id"). It answers the
// post's postColumns, no row when update changed none. One statement, so the
// post_counts rows its trigger updates stay locked only while it runs.
func postAndLog(update string) string {
	return `WITH p AS (` + update + `),
	thread AS (
		INSERT INTO log_threads (type, thread_key, latest_timestamp)
		SELECT CASE WHEN p.source = '` + string(post.SourceProfile) + `' THEN '` + ThreadBroadcast + `' ELSE '` + ThreadInteraction + `' END,
			CASE WHEN p.source = '` + string(post.SourceProfile) + `' THEN 'profile:' || p.id
				WHEN coalesce(p.conversation_id, '') = '' THEN p.platform || ':' || coalesce(p.original_post_id, '')
				ELSE p.platform || ':' || p.conversation_id END,
			p.posted_at
		FROM p
		ON CONFLICT (thread_key) DO UPDATE SET latest_timestamp = greatest(log_threads.latest_timestamp, excluded.latest_timestamp)
		RETURNING id),
	message AS (
		INSERT INTO log_messages (thread_id, post_id, timestamp) SELECT thread.id, p.id, p.posted_at FROM thread, p
		ON CONFLICT (post_id) DO NOTHING)
	SELECT ` + postColumns + ` FROM p`
}

// logThreadsSQL reads a page of threads, newest first, from
// log_threads_page_idx alone (it includes the type), deep pages too.
const logThreadsSQL = `SELECT id, type, latest_timestamp FROM log_threads
	ORDER BY latest_timestamp DESC, id DESC LIMIT $1 OFFSET $2`

// logMessagesSQL reads the messages of the threads $1.
const logMessagesSQL = `
	SELECT m.thread_id, m.post_id, coalesce(p.original_post_id, '') AS original_post_id, p.original_post_text,
		p.original_post_user, p.author_username, p.proposed_response AS response, p.category, m.timestamp,
		p.temperature, p.presence_penalty, p.frequency_penalty
	FROM log_messages m JOIN posts p ON p.id = m.post_id
	WHERE m.thread_id = ANY($1) ORDER BY m.timestamp, m.id`

// Logs returns up to limit threads of the public log, newest first, starting
// at offset, and whether more follow.
func (s *Store) Logs(ctx context.Context, offset, limit int) ([]Thread, bool, error) {
	if offset < 0 || limit < 1 {
		return nil, false, fmt.Errorf("store: logs: %w: offset %d limit %d", ErrInvalid, offset, limit)
	}
	rows, err := s.public.Query(ctx, logThreadsSQL, limit+1, offset)
	if err != nil {
		return nil, false, fmt.Errorf("store: logs: %w", err)
	}
	threads, err := pgx.CollectRows(rows, pgx.RowToStructByName[Thread])
	if err != nil {
		return nil, false, fmt.Errorf("store: logs: %w", err)
	}
	hasMore := len(threads) > limit
	if hasMore {
		threads = threads[:limit]
	}
	if len(threads) == 0 {
		return []Thread{}, false, nil
	}
	ids := make([]int64, len(threads))
	index := make(map[int64]int, len(threads))
	for i, t := range threads {
		ids[i], index[t.ID] = t.ID, i
	}
	rows, err = s.public.Query(ctx, logMessagesSQL, ids)
	if err != nil {
		return nil, false, fmt.Errorf("store: log messages: %w", err)
	}
	messages, err := pgx.CollectRows(rows, pgx.RowToStructByName[messageRow])
	if err != nil {
		return nil, false, fmt.Errorf("store: log messages: %w", err)
	}
	for _, m := range messages {
		t := &threads[index[m.ThreadID]]
		t.Messages = append(t.Messages, m.Message)
	}
	return threads, hasMore, nil
}
