package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The ceiling route answers exactly the asked size, only when turned on.
func TestBenchCeiling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		on       bool
		path     string
		want     int
		wantSize int
	}{
		{name: "off", on: false, path: "/api/bench/ceiling/100", want: http.StatusNotFound},
		{name: "on", on: true, path: "/api/bench/ceiling/1234", want: http.StatusOK, wantSize: 1234},
		{name: "too large", on: true, path: "/api/bench/ceiling/99999999", want: http.StatusBadRequest},
		{name: "not a size", on: true, path: "/api/bench/ceiling/abc", want: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Config{BenchCeiling: tt.on})
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tt.path, nil))
			if w.Code != tt.want {
				t.Fatalf("status %d, want %d", w.Code, tt.want)
			}
			if tt.wantSize > 0 && w.Body.Len() != tt.wantSize {
				t.Errorf("body of %d bytes, want %d", w.Body.Len(), tt.wantSize)
			}
		})
	}
}
