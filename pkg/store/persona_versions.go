package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"infernal/pkg/persona"
)

// personaColumns are the columns of a persona_versions row, in the order
// scanPersona reads them.
const personaColumns = `version, name, bio, voice, examples, avoid_topics, created_at`

// scanPersona reads one persona_versions row of personaColumns.
func scanPersona(row pgx.CollectableRow) (persona.Persona, error) {
	var p persona.Persona
	err := row.Scan(&p.Version, &p.Name, &p.Bio, &p.Voice, &p.Examples, &p.AvoidTopics, &p.UpdatedAt)
	return p, err
}

// Persona returns the persona in use, the newest version; ErrNotFound
// before SeedPersona or PutPersona has stored one.
func (s *Store) Persona(ctx context.Context) (persona.Persona, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+personaColumns+` FROM persona_versions ORDER BY version DESC LIMIT 1`)
	if err != nil {
		return persona.Persona{}, fmt.Errorf("store: persona: %w", err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, scanPersona)
	if err != nil {
		return persona.Persona{}, notFound(err, "persona")
	}
	return p, nil
}

// PersonaVersions returns every version of the persona, newest first.
func (s *Store) PersonaVersions(ctx context.Context) ([]persona.Persona, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+personaColumns+` FROM persona_versions ORDER BY version DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: persona versions: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanPersona)
	if err != nil {
		return nil, fmt.Errorf("store: persona versions: %w", err)
	}
	if out == nil {
		out = []persona.Persona{}
	}
	return out, nil
}

// PutPersona stores p, which the caller has Normalized, as the persona's
// newest version, and returns it as stored, with its version and time.
func (s *Store) PutPersona(ctx context.Context, p persona.Persona) (persona.Persona, error) {
	var out persona.Persona
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// One writer at a time takes the next number; readers are not held.
		if _, err := tx.Exec(ctx, `LOCK TABLE persona_versions IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		var err error
		out, err = insertPersona(ctx, tx, `(SELECT coalesce(max(version), 0) + 1 FROM persona_versions)`, p)
		return err
	})
	if err != nil {
		return persona.Persona{}, fmt.Errorf("store: put persona: %w", err)
	}
	return out, nil
}

// SeedPersona stores p as version 1 unless a persona was stored before;
// seeded reports whether it was stored now. Every process may call it at
// start: the first one wins, later ones change nothing.
func (s *Store) SeedPersona(ctx context.Context, p persona.Persona) (seeded bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE persona_versions IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM persona_versions)`).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return nil
		}
		_, err := insertPersona(ctx, tx, `1`, p)
		seeded = err == nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: seed persona: %w", err)
	}
	return seeded, nil
}

// insertPersona inserts p in tx as the version version (an SQL expression)
// and returns the row.
func insertPersona(ctx context.Context, tx pgx.Tx, version string, p persona.Persona) (persona.Persona, error) {
	rows, err := tx.Query(ctx, `INSERT INTO persona_versions (version, name, bio, voice, examples, avoid_topics)
		VALUES (`+version+`, $1, $2, $3, $4, $5) RETURNING `+personaColumns,
		p.Name, p.Bio, p.Voice, nonNil(p.Examples), nonNil(p.AvoidTopics))
	if err != nil {
		return persona.Persona{}, err
	}
	out, err := pgx.CollectExactlyOneRow(rows, scanPersona)
	if errors.Is(err, pgx.ErrNoRows) {
		return persona.Persona{}, fmt.Errorf("insert returned no row: %w", err)
	}
	return out, err
}
