package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/guard"
	"infernal/pkg/post"
)

// Plan is PostgreSQL's plan of one read of the admin views or the public
// pages, on the data the database holds now.
type Plan struct {
	// Name says which read it is ("list mention by likes, last page").
	Name string
	// Shape is the plan's nodes, outermost first ("Limit > Index Scan using x on posts").
	Shape string
	// SeqScans names the tables the plan reads by sequential scan.
	SeqScans []string
}

// planQuery is one read to explain, with arguments of its real use.
type planQuery struct {
	name string
	sql  string
	args []any
}

// QueryPlans explains every read of the admin views (each list in each
// order, its first and last page, the totals, the statistics) and of the
// public pages (the home figures, the quotes, the latest response, the
// first and last page of the public log), for the benchmark and the tests
// that check no such read scans a whole table.
func (s *Store) QueryPlans(ctx context.Context, pageSize, logsPageSize int) ([]Plan, error) {
	dayAgo := time.Now().Add(-24 * time.Hour)
	qs := []planQuery{
		{name: "admin stats", sql: adminStatsSQL},
		{name: "home counts", sql: homeCountsSQL, args: []any{dayAgo}},
		{name: "home posted categories", sql: postedCategoriesSQL, args: []any{dayAgo}},
		{name: "home pending categories", sql: pendingCategoriesSQL},
		{name: "memorable quotes", sql: memorableQuotesSQL, args: []any{10}},
		{name: "latest posted", sql: latestPostedSQL},
	}
	for _, src := range post.Sources {
		var total int
		if err := s.pool.QueryRow(ctx, queueCountSQL, src).Scan(&total); err != nil {
			return nil, fmt.Errorf("store: plans: %w", err)
		}
		last := max(0, (total-1)/pageSize*pageSize)
		qs = append(qs, planQuery{name: "list " + string(src) + " total", sql: queueCountSQL, args: []any{src}})
		for _, sort := range []post.Sort{post.SortDate, post.SortEngagement, post.SortLikes, post.SortRetweets, post.SortReplies} {
			qs = append(qs,
				planQuery{name: fmt.Sprintf("list %s by %s, first page", src, sort), sql: queuePageSQL(orderBy[sort], ""), args: []any{src, pageSize, 0}},
				planQuery{name: fmt.Sprintf("list %s by %s, last page (offset %d)", src, sort, last), sql: queuePageSQL(orderBy[sort], ""), args: []any{src, pageSize, last}})
		}
	}
	qs, err := s.guardPlans(ctx, qs, pageSize)
	if err != nil {
		return nil, err
	}
	qs = append(qs, platformPlans(pageSize, dayAgo)...)
	var threads int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM log_threads`).Scan(&threads); err != nil {
		return nil, fmt.Errorf("store: plans: %w", err)
	}
	lastLog := max(0, (threads-1)/logsPageSize*logsPageSize)
	var ids []int64
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM (SELECT id FROM log_threads
		ORDER BY latest_timestamp DESC, id DESC LIMIT $1) t`, logsPageSize).Scan(&ids); err != nil {
		return nil, fmt.Errorf("store: plans: %w", err)
	}
	qs = append(qs,
		planQuery{name: "public log, first page", sql: logThreadsSQL, args: []any{logsPageSize + 1, 0}},
		planQuery{name: fmt.Sprintf("public log, last page (offset %d)", lastLog), sql: logThreadsSQL, args: []any{logsPageSize + 1, lastLog}},
		planQuery{name: "public log, messages of a page", sql: logMessagesSQL, args: []any{ids}})
	out := make([]Plan, 0, len(qs))
	for _, q := range qs {
		var raw []byte
		if err := s.pool.QueryRow(ctx, `EXPLAIN (FORMAT JSON) `+q.sql, q.args...).Scan(&raw); err != nil {
			return nil, fmt.Errorf("store: explain %s: %w", q.name, err)
		}
		var doc []struct {
			Plan planNode `json:"Plan"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil || len(doc) != 1 {
			return nil, fmt.Errorf("store: explain %s: unreadable plan: %w", q.name, err)
		}
		p := Plan{Name: q.name}
		var shape []string
		doc[0].Plan.walk(func(n planNode) {
			step := n.Type
			if n.Index != "" {
				step += " using " + n.Index
			}
			if n.Relation != "" {
				step += " on " + n.Relation
			}
			shape = append(shape, step)
			if n.Type == "Seq Scan" {
				p.SeqScans = append(p.SeqScans, n.Relation)
			}
		})
		p.Shape = strings.Join(shape, " > ")
		out = append(out, p)
	}
	return out, nil
}

// planNode is one node of EXPLAIN's JSON.
type planNode struct {
	Type     string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Index    string     `json:"Index Name"`
	Plans    []planNode `json:"Plans"`
}

// walk calls fn on n and every node below it, depth first.
func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

// guardPlans adds to qs the reads of the guards (the reply caps' counts of
// a busy conversation and author, by the author's id and by handle alone,
// the near-duplicate guard's recent texts), of the settings' accounts (the
// id or handle each blocked author and target stands for),
// of the Skipped view (each order, first and last page, the total) and of
// the approvals waiting to send (first and last page, the total, the send
// times their caps read).
func (s *Store) guardPlans(ctx context.Context, qs []planQuery, pageSize int) ([]planQuery, error) {
	var platform, conversation, author, authorID string
	err := s.pool.QueryRow(ctx, `SELECT platform, coalesce(conversation_id, ''), lower(author_username), author_id FROM posts
		ORDER BY author_id <> '' DESC, id DESC LIMIT 1`).Scan(&platform, &conversation, &author, &authorID)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("store: plans: %w", err)
	}
	var skipped int
	if err := s.pool.QueryRow(ctx, skippedCountSQL).Scan(&skipped); err != nil {
		return nil, fmt.Errorf("store: plans: %w", err)
	}
	last := max(0, (skipped-1)/pageSize*pageSize)
	platforms, syntaxes := accountSyntaxes()
	qs = append(qs,
		planQuery{name: "reply caps, counts", sql: capCountsSQL, args: []any{platform, conversation, author, capStatuses, int64(0), authorID}},
		planQuery{name: "reply caps, counts, an author without id", sql: capCountsSQL, args: []any{platform, conversation, author, capStatuses, int64(0), ""}},
		planQuery{name: "reply caps, guarded within them", sql: passGuardsSQL, args: []any{platform, conversation, author, capStatuses, int64(0), authorID, 1, 3}},
		planQuery{name: "settings, blocked authors' accounts", sql: blockedAccountsSQL, args: []any{platforms, syntaxes}},
		planQuery{name: "settings, targets' accounts", sql: targetAccountsSQL,
			args: []any{platforms, syntaxes, []string{author, authorID}, entrySyntaxes([]string{author, authorID})}},
		planQuery{name: "near-duplicate guard, recent texts", sql: recentTextsSQL, args: []any{time.Now().Add(-7 * 24 * time.Hour), RecentTextsLimit}},
		planQuery{name: "list skipped total", sql: skippedCountSQL})
	var queued int
	if err := s.pool.QueryRow(ctx, queuedCountSQL).Scan(&queued); err != nil {
		return nil, fmt.Errorf("store: plans: %w", err)
	}
	lastQueued := max(0, (queued-1)/pageSize*pageSize)
	qs = append(qs,
		planQuery{name: "list queued total", sql: queuedCountSQL},
		planQuery{name: "list queued, first page", sql: queuedPageSQL(""), args: []any{pageSize, 0}},
		planQuery{name: fmt.Sprintf("list queued, last page (offset %d)", lastQueued), sql: queuedPageSQL(""), args: []any{pageSize, lastQueued}},
		planQuery{name: "send times of the last day, the latest 1000", sql: sentTimesSQL, args: []any{time.Now().Add(-24 * time.Hour), 1000, ""}},
		planQuery{name: "send started with room under the caps", sql: beginSendWithRoomSQL, args: []any{int64(0), 10, guard.ReasonSendCap, 24 * time.Hour}})
	for _, sort := range []post.Sort{post.SortDate, post.SortEngagement, post.SortLikes, post.SortRetweets, post.SortReplies} {
		qs = append(qs,
			planQuery{name: fmt.Sprintf("list skipped by %s, first page", sort), sql: skippedPageSQL(orderBy[sort], ""), args: []any{pageSize, 0}},
			planQuery{name: fmt.Sprintf("list skipped by %s, last page (offset %d)", sort, last), sql: skippedPageSQL(orderBy[sort], ""), args: []any{pageSize, last}})
	}
	return qs, nil
}
