package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/spend"
)

// RecordXCall records a call and bills its resources (of Kind and of Also),
// each once per UTC day as X does, whatever kind of read returned it: a
// resource already billed that day, as any kind, adds nothing (the X
// client names each resource by its class, "post:…", "user:…", "media:…",
// so that ids of different classes never meet).
func (s *Store) RecordXCall(ctx context.Context, c spend.XCall) (spend.XCallBilled, error) {
	day := c.At.UTC().Format(time.DateOnly)
	var out spend.XCallBilled
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		for _, r := range append([]spend.XResources{{Kind: c.Kind, ResourceIDs: c.ResourceIDs, UnitUSD: c.UnitUSD}}, c.Also...) {
			if len(r.ResourceIDs) == 0 {
				continue
			}
			tag, err := tx.Exec(ctx, `INSERT INTO x_billed (day, kind, resource_id)
				SELECT $1::date, $2, id FROM unnest($3::text[]) AS id WHERE id <> ''
				ON CONFLICT DO NOTHING`, day, r.Kind, r.ResourceIDs)
			if err != nil {
				return fmt.Errorf("store: bill resources: %w", err)
			}
			out.Resources += int(tag.RowsAffected())
			out.USD += float64(tag.RowsAffected()) * r.UnitUSD
		}
		if _, err := tx.Exec(ctx, `INSERT INTO x_calls (at, day, endpoint, kind, resources, usd) VALUES ($1, $2::date, $3, $4, $5, $6)`,
			c.At, day, c.Endpoint, c.Kind, out.Resources, out.USD); err != nil {
			return fmt.Errorf("store: record x call: %w", err)
		}
		return nil
	})
	return out, err
}

// RecordModelUsage records one answer's usage.
func (s *Store) RecordModelUsage(ctx context.Context, u spend.ModelUsage) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO model_usage (at, day, model, prompt_tokens, completion_tokens, usd)
		VALUES ($1, $2::date, $3, $4, $5, $6)`, u.At, u.At.UTC().Format(time.DateOnly), u.Model, u.PromptTokens, u.CompletionTokens, u.USD)
	if err != nil {
		return fmt.Errorf("store: record model usage: %w", err)
	}
	return nil
}

// SpendTotals sums what X and the model cost from since (a UTC day's start).
func (s *Store) SpendTotals(ctx context.Context, since time.Time) (spend.Sums, error) {
	day := since.UTC().Format(time.DateOnly)
	out := spend.Sums{ByEndpoint: []spend.EndpointSpend{}, ByModel: []spend.ModelSpend{}}
	rows, err := s.pool.Query(ctx, `SELECT endpoint, count(*), coalesce(sum(resources), 0), coalesce(sum(usd), 0)::float8
		FROM x_calls WHERE day >= $1::date GROUP BY endpoint ORDER BY 4 DESC, endpoint`, day)
	if err != nil {
		return spend.Sums{}, fmt.Errorf("store: spend by endpoint: %w", err)
	}
	out.ByEndpoint, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (spend.EndpointSpend, error) {
		var e spend.EndpointSpend
		err := r.Scan(&e.Endpoint, &e.Calls, &e.Resources, &e.USD)
		return e, err
	})
	if err != nil {
		return spend.Sums{}, fmt.Errorf("store: spend by endpoint: %w", err)
	}
	rows, err = s.pool.Query(ctx, `SELECT model, coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0), coalesce(sum(usd), 0)::float8
		FROM model_usage WHERE day >= $1::date GROUP BY model ORDER BY 4 DESC, model`, day)
	if err != nil {
		return spend.Sums{}, fmt.Errorf("store: spend by model: %w", err)
	}
	out.ByModel, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (spend.ModelSpend, error) {
		var m spend.ModelSpend
		err := r.Scan(&m.Model, &m.PromptTokens, &m.CompletionTokens, &m.USD)
		return m, err
	})
	if err != nil {
		return spend.Sums{}, fmt.Errorf("store: spend by model: %w", err)
	}
	for _, e := range out.ByEndpoint {
		out.XUSD += e.USD
	}
	for _, m := range out.ByModel {
		out.ModelUSD += m.USD
	}
	return out, nil
}
