package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
	"infernal/pkg/settings"
)

// Settings returns the administrator's settings; before SeedSettings or
// PutSettings has stored any, empty lists and the default caps.
func (s *Store) Settings(ctx context.Context) (settings.Settings, error) {
	out := settings.Settings{Caps: settings.DefaultCaps(), Autopilot: settings.DefaultAutopilot(), Learning: settings.DefaultLearning(),
		Knowledge: settings.DefaultKnowledge(), Mastodon: settings.DefaultMastodon()}
	var caps, autopilot, learning, knowledge, mastodon []byte
	err := s.pool.QueryRow(ctx, `SELECT target_usernames, search_topics, caps, autopilot, learning, knowledge, mastodon FROM settings`).Scan(
		&out.TargetUsernames, &out.SearchTopics, &caps, &autopilot, &learning, &knowledge, &mastodon)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		out.TargetUsernames, out.SearchTopics = []string{}, []string{}
	case err != nil:
		return settings.Settings{}, fmt.Errorf("store: settings: %w", err)
	default:
		// Caps stored by an older version lack newer fields, which keep their defaults.
		if err := json.Unmarshal(caps, &out.Caps); err != nil {
			return settings.Settings{}, fmt.Errorf("store: settings caps: %w", err)
		}
		// The stored '{}' of a database from before the autopilot keeps the default: off.
		if err := json.Unmarshal(autopilot, &out.Autopilot); err != nil {
			return settings.Settings{}, fmt.Errorf("store: settings autopilot: %w", err)
		}
		// The stored '{}' of a database from before learning keeps the default: on.
		if err := json.Unmarshal(learning, &out.Learning); err != nil {
			return settings.Settings{}, fmt.Errorf("store: settings learning: %w", err)
		}
		// The stored '{}' of a database from before the knowledge base keeps the default: 3 chunks.
		if err := json.Unmarshal(knowledge, &out.Knowledge); err != nil {
			return settings.Settings{}, fmt.Errorf("store: settings knowledge: %w", err)
		}
		// The stored '{}' of a database from before keeps the default: direct mentions unanswered.
		if err := json.Unmarshal(mastodon, &out.Mastodon); err != nil {
			return settings.Settings{}, fmt.Errorf("store: settings mastodon: %w", err)
		}
	}
	if out.BlockedAuthors, err = s.column(ctx, `SELECT username FROM blocked_authors ORDER BY created_at, username`); err != nil {
		return settings.Settings{}, fmt.Errorf("store: blocked authors: %w", err)
	}
	if out.BlockedPhrases, err = s.column(ctx, `SELECT phrase FROM blocked_phrases ORDER BY created_at, phrase`); err != nil {
		return settings.Settings{}, fmt.Errorf("store: blocked phrases: %w", err)
	}
	return out, nil
}

// blockedAccountsSQL reads each blocked author, in the settings' order,
// with its id and the handle its id was last seen with
// (posts_author_id_idx).
const blockedAccountsSQL = `SELECT b.username, b.author_id, seen.author_username FROM blocked_authors b
	LEFT JOIN LATERAL (SELECT author_username FROM posts
		WHERE author_id = b.author_id AND author_id <> '' ORDER BY id DESC LIMIT 1) seen ON true
	ORDER BY b.created_at, b.username`

// targetAccountsSQL reads each entry of $1 with the id a lookup of its
// handle found (targets) and the handle the entry, as an id, was last seen
// with (posts_author_id_idx).
const targetAccountsSQL = `SELECT t.entry, found.user_id, seen.author_username
	FROM unnest($1::text[]) WITH ORDINALITY AS t(entry, n)
	LEFT JOIN LATERAL (SELECT user_id FROM targets WHERE username = t.entry AND user_id <> '' LIMIT 1) found ON true
	LEFT JOIN LATERAL (SELECT author_username FROM posts
		WHERE author_id = t.entry AND author_id <> '' ORDER BY id DESC LIMIT 1) seen ON true
	ORDER BY t.n`

// SettingsAccounts returns what the blocked authors and the targets (the
// settings' target_usernames) stand for, each entry in the settings' order
// with its handle and id where known: an entry given by handle has the id
// the worker found for it (a blocked author's once the author is next
// seen, a target's once it is looked up), one given by id the handle its
// author was last seen with in a found post.
func (s *Store) SettingsAccounts(ctx context.Context, targets []string) (blocked, targeted []settings.Account, err error) {
	read := func(sql string, args ...any) ([]settings.Account, error) {
		rows, err := s.pool.Query(ctx, sql, args...)
		if err != nil {
			return nil, err
		}
		out := []settings.Account{}
		var entry string
		var id, seen *string
		_, err = pgx.ForEachRow(rows, []any{&entry, &id, &seen}, func() error {
			out = append(out, account(entry, id, seen))
			return nil
		})
		return out, err
	}
	if blocked, err = read(blockedAccountsSQL); err != nil {
		return nil, nil, fmt.Errorf("store: blocked accounts: %w", err)
	}
	if targeted, err = read(targetAccountsSQL, nonNil(targets)); err != nil {
		return nil, nil, fmt.Errorf("store: target accounts: %w", err)
	}
	return blocked, targeted, nil
}

// account is the Account of entry: an id entry is its own id, with the
// handle seen last; a handle entry is its own handle, with id. It copies
// what id and seen point to, which the next row's scan may reuse.
func account(entry string, id, seen *string) settings.Account {
	e := entry
	if settings.KindOf(entry).IsID() {
		return settings.Account{Entry: entry, Handle: copyOf(seen), ID: &e}
	}
	return settings.Account{Entry: entry, Handle: &e, ID: copyOf(id)}
}

// copyOf returns a pointer to a copy of *p, nil for nil.
func copyOf(p *string) *string {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// column returns the one text column of a query's rows.
func (s *Store) column(ctx context.Context, sql string) ([]string, error) {
	rows, err := s.pool.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// PutSettings replaces the settings with v, which the caller has
// Normalized. Blocked authors kept from before keep their reason and post.
func (s *Store) PutSettings(ctx context.Context, v settings.Settings) error {
	return s.putSettings(ctx, v, false)
}

// SeedSettings stores v, the environment's settings, unless settings were
// stored before; seeded reports whether they were stored now. Every process
// may call it at start: the first one wins, later ones change nothing.
func (s *Store) SeedSettings(ctx context.Context, v settings.Settings) (seeded bool, err error) {
	err = s.putSettings(ctx, v, true)
	if errors.Is(err, errSeeded) {
		return false, nil
	}
	return err == nil, err
}

// errSeeded tells SeedSettings that settings were stored before.
var errSeeded = errors.New("settings already stored")

// putSettings writes v in one transaction; onlyFirst makes it return
// errSeeded, writing nothing, when a settings row exists.
func (s *Store) putSettings(ctx context.Context, v settings.Settings, onlyFirst bool) error {
	caps, err := json.Marshal(v.Caps)
	if err != nil {
		return fmt.Errorf("store: settings caps: %w", err)
	}
	autopilot, err := json.Marshal(v.Autopilot)
	if err != nil {
		return fmt.Errorf("store: settings autopilot: %w", err)
	}
	learning, err := json.Marshal(v.Learning)
	if err != nil {
		return fmt.Errorf("store: settings learning: %w", err)
	}
	knowledge, err := json.Marshal(v.Knowledge)
	if err != nil {
		return fmt.Errorf("store: settings knowledge: %w", err)
	}
	mastodon, err := json.Marshal(v.Mastodon)
	if err != nil {
		return fmt.Errorf("store: settings mastodon: %w", err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		upsert := `INSERT INTO settings (id, target_usernames, search_topics, caps, autopilot, learning, knowledge, mastodon) VALUES (true, $1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (id) DO UPDATE SET target_usernames = excluded.target_usernames,
				search_topics = excluded.search_topics, caps = excluded.caps, autopilot = excluded.autopilot,
				learning = excluded.learning, knowledge = excluded.knowledge, mastodon = excluded.mastodon, updated_at = now()`
		if onlyFirst {
			upsert = `INSERT INTO settings (id, target_usernames, search_topics, caps, autopilot, learning, knowledge, mastodon) VALUES (true, $1, $2, $3, $4, $5, $6, $7)
				ON CONFLICT (id) DO NOTHING`
		}
		tag, err := tx.Exec(ctx, upsert, nonNil(v.TargetUsernames), nonNil(v.SearchTopics), caps, autopilot, learning, knowledge, mastodon)
		if err != nil {
			return err
		}
		if onlyFirst && tag.RowsAffected() == 0 {
			return errSeeded
		}
		// Changed settings look every unknown targeted username up again.
		if _, err := tx.Exec(ctx, `UPDATE targets SET not_found_at = NULL WHERE not_found_at IS NOT NULL`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM blocked_authors WHERE NOT (username = ANY($1))`, nonNil(v.BlockedAuthors)); err != nil {
			return err
		}
		// An entry given by id (an X user id, a DID) is its author's id at
		// once; one given by handle takes it when the author is next seen.
		// An id blocked already (under its handle) stays as it is.
		// clock_timestamp() stamps each new entry after the one before: the lists keep the administrator's order.
		if _, err := tx.Exec(ctx, `INSERT INTO blocked_authors (username, author_id, reason, created_at)
			SELECT u, nullif(id, ''), 'added by the administrator', clock_timestamp()
			FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(u, id, n) ORDER BY n
			ON CONFLICT DO NOTHING`, nonNil(v.BlockedAuthors), accountIDs(v.BlockedAuthors)); err != nil {
			return err
		}
		// The blocked authors' cases leave the memory: never an example again.
		if _, err := tx.Exec(ctx, purgeBlockedCasesSQL); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM blocked_phrases WHERE NOT (phrase = ANY($1))`, nonNil(v.BlockedPhrases)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO blocked_phrases (phrase, created_at)
			SELECT p, clock_timestamp() FROM unnest($1::text[]) WITH ORDINALITY AS t(p, n) ORDER BY n
			ON CONFLICT (phrase) DO NOTHING`, nonNil(v.BlockedPhrases))
		return err
	})
	if errors.Is(err, errSeeded) {
		return err
	}
	if err != nil {
		return fmt.Errorf("store: put settings: %w", err)
	}
	return nil
}

// accountIDs returns, for each account entry, the entry itself when it is
// a platform id, "" when it is a handle.
func accountIDs(entries []string) []string {
	ids := make([]string, len(entries))
	for i, e := range entries {
		if settings.KindOf(e).IsID() {
			ids[i] = e
		}
	}
	return ids
}

// nonNil returns list, or an empty list for nil, which pgx would store as NULL.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// BlockAuthor adds the author of authorID (its stable id: the X user id,
// the Bluesky DID; "" when unknown) and username (lower-case, without @) to
// the blocked authors, with reason and the post that gave it (0 for none).
// An author blocked before keeps the first reason; an entry known by that
// handle only takes the id.
func (s *Store) BlockAuthor(ctx context.Context, username, authorID, reason string, postID int64) error {
	var post *int64
	if postID != 0 {
		post = &postID
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if authorID != "" {
			if _, err := tx.Exec(ctx, `UPDATE blocked_authors SET author_id = $2
				WHERE username = $1 AND author_id IS NULL AND NOT EXISTS (SELECT 1 FROM blocked_authors WHERE author_id = $2)`,
				username, authorID); err != nil {
				return err
			}
		}
		// Either unique key (the handle, the id) already held means the author is blocked already.
		if _, err := tx.Exec(ctx, `INSERT INTO blocked_authors (username, author_id, reason, post_id) VALUES ($1, nullif($2, ''), $3, $4)
			ON CONFLICT DO NOTHING`, username, authorID, reason, post); err != nil {
			return err
		}
		// A blocked (or opted-out) author's cases leave the memory: never an example again.
		_, err := tx.Exec(ctx, purgeAuthorCasesSQL, strings.ToLower(strings.TrimPrefix(username, "@")), authorID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: block author %s: %w", username, err)
	}
	return nil
}

// AuthorBlocked reports whether the author of authorID (its stable id, ""
// when unknown) is blocked, and the handle it was blocked under. An entry
// that knows the author's id matches that id only, whatever the author's
// handle has become, and never the next owner of its old handle; an entry
// known by handle only (from before ids were kept, or named by handle in the
// settings) matches when handleMatches says its handle is the author's, and
// takes the id as its own now that the author is seen.
func (s *Store) AuthorBlocked(ctx context.Context, authorID string, handleMatches func(blocked string) bool) (blockedAs string, blocked bool, err error) {
	if authorID != "" {
		err := s.pool.QueryRow(ctx, `SELECT username FROM blocked_authors WHERE author_id = $1`, authorID).Scan(&blockedAs)
		if err == nil {
			return blockedAs, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return "", false, fmt.Errorf("store: is %s blocked: %w", authorID, err)
		}
	}
	handles, err := s.column(ctx, `SELECT username FROM blocked_authors WHERE author_id IS NULL ORDER BY created_at, username`)
	if err != nil {
		return "", false, fmt.Errorf("store: blocked handles: %w", err)
	}
	for _, h := range handles {
		if !handleMatches(h) {
			continue
		}
		if authorID != "" {
			if _, err := s.pool.Exec(ctx, `UPDATE blocked_authors SET author_id = $2
				WHERE username = $1 AND author_id IS NULL AND NOT EXISTS (SELECT 1 FROM blocked_authors WHERE author_id = $2)`, h, authorID); err != nil {
				return "", false, fmt.Errorf("store: keep the id of blocked %s: %w", h, err)
			}
		}
		return h, true, nil
	}
	return "", false, nil
}

// SettingsCache keeps the settings a process read last and the
// settings_version they were read at, so that a worker asking for every
// task reads one tiny row and the settings themselves only after a change.
// Its zero value is ready; it is safe for concurrent use.
type SettingsCache struct {
	mu      sync.Mutex
	version int64
	set     settings.Settings
}

// CachedSettings returns the settings as Settings does, from c when they
// have not changed since c read them (a nil c reads them every time). The lists of the answer are shared
// with c and every other caller: read them, never change them.
func (s *Store) CachedSettings(ctx context.Context, c *SettingsCache) (settings.Settings, error) {
	var version int64
	if err := s.pool.QueryRow(ctx, settingsVersionSQL).Scan(&version); err != nil {
		return settings.Settings{}, fmt.Errorf("store: settings version: %w", err)
	}
	return s.settingsAt(ctx, c, version)
}

// settingsVersionSQL reads the number settings_version's triggers move on
// with every change of the settings.
const settingsVersionSQL = `SELECT version FROM settings_version`

// settingsAt returns the settings from c when c holds them at version,
// read after it, otherwise read now and kept in c; a nil c keeps nothing.
func (s *Store) settingsAt(ctx context.Context, c *SettingsCache, version int64) (settings.Settings, error) {
	if c == nil {
		return s.Settings(ctx)
	}
	c.mu.Lock()
	if c.version == version {
		defer c.mu.Unlock()
		return c.set, nil
	}
	c.mu.Unlock()
	// Read after the version: a change committed in between leaves the
	// version behind the settings, so the next call reads them again.
	set, err := s.Settings(ctx)
	if err != nil {
		return settings.Settings{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if version > c.version {
		c.version, c.set = version, set
	}
	return set, nil
}

// PostWithSettings is Post and CachedSettings in one round trip: what a
// draft asks first. A nil c reads the settings every time.
func (s *Store) PostWithSettings(ctx context.Context, id int64, c *SettingsCache) (post.Post, settings.Settings, error) {
	var b pgx.Batch
	var p post.Post
	var version int64
	b.Queue(`SELECT `+postColumns+` FROM posts WHERE id = $1`, id).Query(func(rows pgx.Rows) error {
		r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[postRow])
		if err != nil {
			return notFound(err, fmt.Sprintf("post %d", id))
		}
		p = r.post()
		return nil
	})
	b.Queue(settingsVersionSQL).QueryRow(func(row pgx.Row) error { return row.Scan(&version) })
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		if errors.Is(err, ErrNotFound) {
			return post.Post{}, settings.Settings{}, err
		}
		return post.Post{}, settings.Settings{}, fmt.Errorf("store: post %d and settings version: %w", id, err)
	}
	set, err := s.settingsAt(ctx, c, version)
	if err != nil {
		return post.Post{}, settings.Settings{}, err
	}
	return p, set, nil
}
