package api

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
)

// maxCeiling is the largest body the ceiling route answers.
const maxCeiling = 1 << 20

// benchCeiling answers size bytes of a constant body with the headers of a
// cached public answer: what the public pages would cost if computing them
// cost nothing, measured through the same router and middleware.
func (s *Server) benchCeiling(w http.ResponseWriter, r *http.Request) error {
	size, err := intParam(chi.URLParam(r, "size"), "size", 0, 1, maxCeiling)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(publicMaxAge.Seconds())))
	h.Set("ETag", `"ceiling"`)
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(size))
	w.WriteHeader(http.StatusOK)
	// The status is already sent; a write failure can only be a broken connection.
	_, _ = w.Write(s.ceiling[:size])
	return nil
}
