package api

import (
	"bytes"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// spa serves the built frontend from dir: hashed assets cached for a year,
// index.html never cached, and index.html for every client-side route.
// Unknown /api paths never reach it; they get JSON 404s from the API router.
func spa(dir string) http.HandlerFunc {
	index := &indexFile{path: filepath.Join(dir, "index.html")}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			respondJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
			return
		}
		body, modTime, ok := index.read(time.Now())
		if dir == "" || !ok {
			respondJSON(w, http.StatusNotFound, map[string]string{"error": "not found (the frontend is not built)"})
			return
		}
		clean := path.Clean("/" + r.URL.Path)
		file := filepath.Join(dir, filepath.FromSlash(clean))
		if clean != "/" && isFile(file) {
			if strings.HasPrefix(clean, "/assets/") {
				// Vite puts a content hash in every asset name, so an asset never changes.
				w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			} else {
				w.Header().Set("Cache-Control", "public, max-age=3600")
			}
			serveFile(w, r, file)
			return
		}
		if strings.HasPrefix(clean, "/assets/") {
			respondJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "index.html", modTime, bytes.NewReader(body))
	}
}

// indexRecheck is how often the index.html kept in memory is compared with
// the file, so that a rebuilt frontend is served within a second.
const indexRecheck = time.Second

// indexFile keeps index.html in memory, the page every client route
// answers, so that serving it costs no file system calls.
type indexFile struct {
	path string

	mu        sync.Mutex
	body      []byte
	modTime   time.Time
	ok        bool
	checkedAt time.Time
}

// read returns the page as of at most indexRecheck ago; ok is false when
// there is no such file.
func (f *indexFile) read(now time.Time) (body []byte, modTime time.Time, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now.Sub(f.checkedAt) < indexRecheck && !f.checkedAt.IsZero() {
		return f.body, f.modTime, f.ok
	}
	f.checkedAt = now
	st, err := os.Stat(f.path)
	if err != nil || !st.Mode().IsRegular() {
		f.body, f.ok = nil, false
		return nil, time.Time{}, false
	}
	if f.ok && st.ModTime().Equal(f.modTime) && int64(len(f.body)) == st.Size() {
		return f.body, f.modTime, true
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		f.body, f.ok = nil, false
		return nil, time.Time{}, false
	}
	f.body, f.modTime, f.ok = b, st.ModTime(), true
	return f.body, f.modTime, true
}

// serveFile sends one file of the build. Unlike http.ServeFile it takes the
// path as already resolved, so odd request paths get the app, not a 400.
func serveFile(w http.ResponseWriter, r *http.Request, name string) {
	f, err := os.Open(name)
	if err != nil {
		respondJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		respondJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
		return
	}
	http.ServeContent(w, r, name, st.ModTime(), f)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
