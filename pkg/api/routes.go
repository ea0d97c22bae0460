package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// routes lists every route of the web tier.
func (s *Server) routes(staticDir string, ops, metrics http.Handler) http.Handler {
	r := chi.NewRouter()
	r.Use(withRequestID, s.logRequests, s.recoverPanics, securityHeaders, s.strictTransport, limitBody)

	r.Get("/healthz", s.handle(s.healthz))
	r.Get("/readyz", s.handle(s.readyz))

	r.Route("/api", func(r chi.Router) {
		r.Post("/auth/login", s.handle(s.login))

		r.Route("/public", func(r chi.Router) {
			r.Get("/stats", s.handle(s.publicStats))
			r.Get("/latest", s.handle(s.publicLatest))
			r.Get("/logs", s.handle(s.publicLogs))
		})

		r.Group(func(r chi.Router) {
			r.Use(s.requireAdmin)
			r.Post("/auth/logout", s.handle(s.logout))
			r.Post("/auth/logout-all", s.handle(s.logoutAll))
			r.Route("/posts", func(r chi.Router) {
				r.Get("/pending", s.handle(s.listPosts))
				r.Get("/mentions", s.handle(s.listPosts))
				r.Get("/profile", s.handle(s.listPosts))
				r.Get("/targeted", s.handle(s.listPosts))
				r.Get("/stats", s.handle(s.adminStats))
				r.Post("/profile/generate", s.handle(s.generateProfile))
				r.Post("/targeted/generate", s.handle(s.generateTargeted))
				r.Post("/{id}/approve", s.handle(s.approve))
				r.Post("/{id}/reject", s.handle(s.reject))
			})
		})

		r.NotFound(s.handle(apiNotFound))
		r.MethodNotAllowed(s.handle(apiMethodNotAllowed))
	})

	if ops != nil {
		r.With(s.requireSameOrigin, s.requireAdminPage, opsPolicy).Mount(OpsPath, ops)
	}
	if metrics != nil {
		r.With(s.requireSameOrigin, s.requireAdminPage).Handle("/metrics", metrics)
	}

	r.NotFound(spa(staticDir))
	return r
}

// OpsPath is where the queue dashboard is mounted.
const OpsPath = "/diaries666op/queues"

func apiNotFound(http.ResponseWriter, *http.Request) error {
	return &Error{Status: http.StatusNotFound, Message: "no such API route"}
}

func apiMethodNotAllowed(http.ResponseWriter, *http.Request) error {
	return &Error{Status: http.StatusMethodNotAllowed, Message: "method not allowed on this route"}
}
