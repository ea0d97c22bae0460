package api

import (
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// spa serves the built frontend from dir: hashed assets cached for a year,
// index.html never cached, and index.html for every client-side route.
// Unknown /api paths never reach it; they get JSON 404s from the API router.
func spa(dir string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			respondJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
			return
		}
		index := filepath.Join(dir, "index.html")
		if dir == "" || !isFile(index) {
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
		serveFile(w, r, index)
	}
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
