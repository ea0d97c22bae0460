package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRevealPasswordKeepsItOutOfTheLog(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		path     string
		wantFile bool
	}{
		{name: "writable file", path: filepath.Join(dir, "admin-password"), wantFile: true},
		{name: "unwritable file", path: filepath.Join(dir, "missing", "admin-password"), wantFile: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			revealPassword(tt.path, "admin", "generated-secret-666", slog.New(slog.NewJSONHandler(&logs, nil)))
			if strings.Contains(logs.String(), "generated-secret-666") {
				t.Errorf("the password went into the log: %s", logs.String())
			}
			if !strings.Contains(logs.String(), tt.path) {
				t.Errorf("the log does not say where to look: %s", logs.String())
			}
			b, err := os.ReadFile(tt.path)
			if got := err == nil && string(b) == "generated-secret-666\n"; got != tt.wantFile {
				t.Errorf("file holds %q (%v), want written %v", b, err, tt.wantFile)
			}
		})
	}
}
