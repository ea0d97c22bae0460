package config

import (
	"io"
	"log/slog"
	"os"
)

// NewLogger returns the processes' structured logger: JSON lines on stderr
// at the configured level.
func (c Config) NewLogger(component string) *slog.Logger {
	return c.NewLoggerTo(os.Stderr, component)
}

// NewLoggerTo returns the structured logger of NewLogger writing its JSON
// lines to w, one Write per line.
func (c Config) NewLoggerTo(w io.Writer, component string) *slog.Logger {
	var level slog.Level
	// LogLevel was validated by Load, so it always parses.
	_ = level.UnmarshalText([]byte(c.LogLevel))
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})).With("component", component)
}

// WarnUnbounded logs one warning for each budget variable set to none: the
// process may then spend without a ceiling.
func (c Config) WarnUnbounded(log *slog.Logger) {
	for _, name := range c.Unbounded {
		log.Warn("NO SPENDING CEILING: "+name+" is none, so spending of its kind is unbounded; set an amount in US dollars to bound it", "variable", name)
	}
}
