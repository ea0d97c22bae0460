package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/post"
	"infernal/pkg/settings"
)

// Settings returns the administrator's settings; before SeedSettings or
// PutSettings has stored any, empty lists and the default caps.
func (s *Store) Settings(ctx context.Context) (settings.Settings, error) {
	out := settings.Settings{Caps: settings.DefaultCaps(), Autopilot: settings.DefaultAutopilot(), Learning: settings.DefaultLearning(),
		Knowledge: settings.DefaultKnowledge(), Platforms: settings.DefaultPlatformOptions()}
	var caps, autopilot, learning, knowledge, platforms []byte
	err := s.pool.QueryRow(ctx, `SELECT target_usernames, search_topics, caps, autopilot, learning, knowledge, platform_options FROM settings`).Scan(
		&out.TargetUsernames, &out.SearchTopics, &caps, &autopilot, &learning, &knowledge, &platforms)
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
		// Options stored before an option was added are off; those of a
		// platform or an option since removed are dropped.
		var stored settings.PlatformOptions
		if err := json.Unmarshal(platforms, &stored); err != nil {
			return settings.Settings{}, fmt.Errorf("store: settings platform options: %w", err)
		}
		out.Platforms = stored.WithDefaults()
	}
	if out.BlockedAuthors, err = s.column(ctx, `SELECT username FROM blocked_authors ORDER BY created_at, username`); err != nil {
		return settings.Settings{}, fmt.Errorf("store: blocked authors: %w", err)
	}
	if out.BlockedPhrases, err = s.column(ctx, `SELECT phrase FROM blocked_phrases ORDER BY created_at, phrase`); err != nil {
		return settings.Settings{}, fmt.Errorf("store: blocked phrases: %w", err)
	}
	return out, nil
}

// syntaxPlatformsSQL is the platforms whose accounts the syntax %s names,
// inside a query whose $1 and $2 are the lists accountSyntaxes returns.
const syntaxPlatformsSQL = `(SELECT m.platform FROM unnest($1::text[], $2::text[]) AS m(platform, syntax) WHERE m.syntax = %s)`

// blockedAccountsSQL reads each blocked author, in the settings' order,
// with its id and the handle its id was last seen with on a platform of
// its syntax (posts_author_id_idx): an X user id never shows the handle of
// the Mastodon account of the same digits.
var blockedAccountsSQL = `SELECT b.username, b.author_id, seen.author_username FROM blocked_authors b
	LEFT JOIN LATERAL (SELECT author_username FROM posts
		WHERE author_id = b.author_id AND author_id <> '' AND platform IN ` + fmt.Sprintf(syntaxPlatformsSQL, "b.account_syntax") + `
		ORDER BY id DESC LIMIT 1) seen ON true
	ORDER BY b.created_at, b.username`

// targetAccountsSQL reads each entry of $3 (of syntax $4) with the id a
// lookup of its handle found on a platform of its syntax (targets) and the
// handle the entry, as an id, was last seen with there
// (posts_author_id_idx).
var targetAccountsSQL = `SELECT t.entry, found.user_id, seen.author_username
	FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(entry, syntax, n)
	LEFT JOIN LATERAL (SELECT user_id FROM targets WHERE username = t.entry AND user_id <> ''
		AND platform IN ` + fmt.Sprintf(syntaxPlatformsSQL, "t.syntax") + ` LIMIT 1) found ON true
	LEFT JOIN LATERAL (SELECT author_username FROM posts
		WHERE author_id = t.entry AND author_id <> '' AND platform IN ` + fmt.Sprintf(syntaxPlatformsSQL, "t.syntax") + `
		ORDER BY id DESC LIMIT 1) seen ON true
	ORDER BY t.n`

// accountSyntaxes are the platforms of the descriptor table and the
// account syntax of each, as two lists, for the queries that match an
// account entry on the platforms of its syntax alone.
func accountSyntaxes() (platforms, syntaxes []string) {
	for _, d := range post.Descriptors() {
		platforms, syntaxes = append(platforms, d.Name), append(syntaxes, d.AccountSyntax)
	}
	return platforms, syntaxes
}

// syntaxOf is the account syntax of platform's authors: X's for the
// sandbox, which plays X, each real platform's own.
func syntaxOf(platform string) string { return post.DescriptorOf(platform).AccountSyntax }

// entrySyntaxes returns the account syntax of each entry (post.AccountKindOf).
func entrySyntaxes(entries []string) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = post.AccountKindOf(e).Syntax
	}
	return out
}

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
	platforms, syntaxes := accountSyntaxes()
	if blocked, err = read(blockedAccountsSQL, platforms, syntaxes); err != nil {
		return nil, nil, fmt.Errorf("store: blocked accounts: %w", err)
	}
	if targeted, err = read(targetAccountsSQL, platforms, syntaxes, nonNil(targets), entrySyntaxes(targets)); err != nil {
		return nil, nil, fmt.Errorf("store: target accounts: %w", err)
	}
	return blocked, targeted, nil
}

// account is the Account of entry: an id entry is its own id, with the
// handle seen last; a handle entry is its own handle, with id. It copies
// what id and seen point to, which the next row's scan may reuse.
func account(entry string, id, seen *string) settings.Account {
	e := entry
	if post.AccountKindOf(entry).ID {
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
	platforms, syntaxes := accountSyntaxes()
	options, err := json.Marshal(v.Platforms.WithDefaults())
	if err != nil {
		return fmt.Errorf("store: settings platform options: %w", err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		upsert := `INSERT INTO settings (id, target_usernames, search_topics, caps, autopilot, learning, knowledge, platform_options) VALUES (true, $1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (id) DO UPDATE SET target_usernames = excluded.target_usernames,
				search_topics = excluded.search_topics, caps = excluded.caps, autopilot = excluded.autopilot,
				learning = excluded.learning, knowledge = excluded.knowledge, platform_options = excluded.platform_options, updated_at = now()`
		if onlyFirst {
			upsert = `INSERT INTO settings (id, target_usernames, search_topics, caps, autopilot, learning, knowledge, platform_options) VALUES (true, $1, $2, $3, $4, $5, $6, $7)
				ON CONFLICT (id) DO NOTHING`
		}
		tag, err := tx.Exec(ctx, upsert, nonNil(v.TargetUsernames), nonNil(v.SearchTopics), caps, autopilot, learning, knowledge, options)
		if err != nil {
			return err
		}
		if onlyFirst && tag.RowsAffected() == 0 {
			return errSeeded
		}
		// Changed settings look every unknown targeted username, and every
		// blocked one a lookup kept no id for, up again.
		if _, err := tx.Exec(ctx, `UPDATE targets SET not_found_at = NULL WHERE not_found_at IS NOT NULL`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE blocked_authors SET looked_up_at = NULL WHERE looked_up_at IS NOT NULL`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM blocked_authors WHERE NOT (username = ANY($1))`, nonNil(v.BlockedAuthors)); err != nil {
			return err
		}
		// An entry given by id (an X user id, a DID) is its author's id at
		// once; one given by handle takes it when the author is next seen
		// (or, on Mastodon, once the worker looks it up). An id blocked
		// already (under its handle) stays as it is. Each entry is of the
		// syntax its kind says: its id blocks on those platforms alone.
		// clock_timestamp() stamps each new entry after the one before: the lists keep the administrator's order.
		if _, err := tx.Exec(ctx, `INSERT INTO blocked_authors (username, account_syntax, author_id, reason, created_at)
			SELECT u, syntax, nullif(id, ''), 'added by the administrator', clock_timestamp()
			FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS t(u, syntax, id, n) ORDER BY n
			ON CONFLICT DO NOTHING`, nonNil(v.BlockedAuthors), entrySyntaxes(v.BlockedAuthors), accountIDs(v.BlockedAuthors)); err != nil {
			return err
		}
		// The blocked authors' cases leave the memory: never an example again.
		if _, err := tx.Exec(ctx, purgeBlockedCasesSQL, platforms, syntaxes); err != nil {
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
		if post.AccountKindOf(e).ID {
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
// the Bluesky DID, the Mastodon account id; "" when unknown) and username
// (lower-case, without @; on Mastodon user@server.tld) to the blocked
// authors, with reason and the post that gave it (0 for none). The entry is
// of the account syntax of platform, the author's platform: its id blocks
// there alone. An author blocked before keeps the first reason; an entry
// known by that handle only takes the id.
func (s *Store) BlockAuthor(ctx context.Context, platform, username, authorID, reason string, postID int64) error {
	var post *int64
	if postID != 0 {
		post = &postID
	}
	syntax := syntaxOf(platform)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if authorID != "" {
			if _, err := tx.Exec(ctx, takeBlockedIDSQL, syntax, username, authorID); err != nil {
				return err
			}
		}
		// Either unique key (the handle, the id of the syntax) already held means the author is blocked already.
		if _, err := tx.Exec(ctx, `INSERT INTO blocked_authors (username, account_syntax, author_id, reason, post_id) VALUES ($1, $2, nullif($3, ''), $4, $5)
			ON CONFLICT DO NOTHING`, username, syntax, authorID, reason, post); err != nil {
			return err
		}
		// A blocked (or opted-out) author's cases leave the memory: never an example again.
		platforms, syntaxes := accountSyntaxes()
		_, err := tx.Exec(ctx, purgeAuthorCasesSQL, platforms, syntaxes, syntax, strings.ToLower(strings.TrimPrefix(username, "@")), authorID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: block author %s: %w", username, err)
	}
	return nil
}

// takeBlockedIDSQL gives the entry $2 of syntax $1, known by handle only,
// the id $3, unless another entry of the syntax holds that id already.
const takeBlockedIDSQL = `UPDATE blocked_authors SET author_id = $3, looked_up_at = NULL
	WHERE account_syntax = $1 AND username = $2 AND author_id IS NULL
		AND NOT EXISTS (SELECT 1 FROM blocked_authors WHERE account_syntax = $1 AND author_id = $3)`

// AuthorBlocked reports whether the author of authorID (its stable id, ""
// when unknown) on platform is blocked, and the handle it was blocked
// under; only the entries of the platform's account syntax count, so an
// X user id never blocks the Mastodon account of the same digits. An entry
// that knows the author's id matches that id only, whatever the author's
// handle has become, and never the next owner of its old handle; an entry
// known by handle only (from before ids were kept, or named by handle in
// the settings) matches when handleMatches says its handle is the
// author's, and takes the id as its own now that the author is seen.
func (s *Store) AuthorBlocked(ctx context.Context, platform, authorID string, handleMatches func(blocked string) bool) (blockedAs string, blocked bool, err error) {
	syntax := syntaxOf(platform)
	if authorID != "" {
		err := s.pool.QueryRow(ctx, `SELECT username FROM blocked_authors WHERE account_syntax = $1 AND author_id = $2`, syntax, authorID).Scan(&blockedAs)
		if err == nil {
			return blockedAs, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return "", false, fmt.Errorf("store: is %s blocked: %w", authorID, err)
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT username FROM blocked_authors WHERE account_syntax = $1 AND author_id IS NULL ORDER BY created_at, username`, syntax)
	if err != nil {
		return "", false, fmt.Errorf("store: blocked handles: %w", err)
	}
	handles, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", false, fmt.Errorf("store: blocked handles: %w", err)
	}
	for _, h := range handles {
		if !handleMatches(h) {
			continue
		}
		if authorID != "" {
			if _, err := s.pool.Exec(ctx, takeBlockedIDSQL, syntax, h, authorID); err != nil {
				return "", false, fmt.Errorf("store: keep the id of blocked %s: %w", h, err)
			}
		}
		return h, true, nil
	}
	return "", false, nil
}

// BlockedToResolve lists the blocked entries of platform's account syntax
// known by handle only that are due a lookup of their id: never looked up,
// or last looked up without an id kept before retryBefore. In the
// settings' order; none on a platform whose descriptor does not say
// ResolveBlocked (X's handles wait to meet their author: a lookup there is
// billed).
func (s *Store) BlockedToResolve(ctx context.Context, platform string, retryBefore time.Time) ([]string, error) {
	if !post.DescriptorOf(platform).ResolveBlocked {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT username FROM blocked_authors
		WHERE account_syntax = $1 AND author_id IS NULL AND (looked_up_at IS NULL OR looked_up_at < $2)
		ORDER BY created_at, username`, syntaxOf(platform), retryBefore)
	if err != nil {
		return nil, fmt.Errorf("store: blocked to resolve: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: blocked to resolve: %w", err)
	}
	return out, nil
}

// BlockedLookedUp records a lookup of the blocked entry username of
// platform's account syntax at at: the entry takes authorID ("" when the
// platform does not know the account), unless another entry holds that id
// already; an entry left without an id is looked up again after a while
// (BlockedToResolve).
func (s *Store) BlockedLookedUp(ctx context.Context, platform, username, authorID string, at time.Time) error {
	syntax := syntaxOf(platform)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if authorID != "" {
			if _, err := tx.Exec(ctx, takeBlockedIDSQL, syntax, username, authorID); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `UPDATE blocked_authors SET looked_up_at = $3
			WHERE account_syntax = $1 AND username = $2 AND author_id IS NULL`, syntax, username, at)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: blocked %s looked up: %w", username, err)
	}
	return nil
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
