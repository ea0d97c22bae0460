package config

import (
	"log/slog"
	"os"
)

// NewLogger returns the processes' structured logger: JSON lines on stderr
// at the configured level.
func (c Config) NewLogger(component string) *slog.Logger {
	var level slog.Level
	// LogLevel was validated by Load, so it always parses.
	_ = level.UnmarshalText([]byte(c.LogLevel))
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("component", component)
}
