package api

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// index.html is read once and kept; a rebuilt file is served after at most
// indexRecheck, and a removed one is reported.
func TestIndexFileRecheck(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "index.html")
	f := &indexFile{path: path}
	now := time.Now()
	if _, _, ok := f.read(now); ok {
		t.Fatal("a missing index.html was read")
	}
	now = now.Add(indexRecheck)
	if err := os.WriteFile(path, []byte("<title>one</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		advance time.Duration
		write   string
		remove  bool
		want    string
		wantOK  bool
	}{
		{name: "first read", want: "<title>one</title>", wantOK: true},
		{name: "rebuilt, within the recheck", advance: indexRecheck / 2, write: "<title>two, longer</title>", want: "<title>one</title>", wantOK: true},
		{name: "after the recheck", advance: indexRecheck, want: "<title>two, longer</title>", wantOK: true},
		{name: "removed", advance: indexRecheck, remove: true, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = now.Add(tt.advance)
			if tt.write != "" {
				if err := os.WriteFile(path, []byte(tt.write), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.remove {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			}
			body, _, ok := f.read(now)
			if ok != tt.wantOK || string(body) != tt.want {
				t.Errorf("read = %q %v, want %q %v", body, ok, tt.want, tt.wantOK)
			}
		})
	}
}
