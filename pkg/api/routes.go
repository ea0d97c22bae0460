package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"infernal/pkg/post"
)

// routes lists every route of the web tier.
func (s *Server) routes(staticDir string, ops, metrics http.Handler) http.Handler {
	r := chi.NewRouter()
	r.Use(withRequest(RequestTimeout), s.logRequests, s.recoverPanics, s.securityHeaders, s.strictTransport, limitBody)
	// HEAD is served wherever GET is (the server writes no body for it).
	r.Use(middleware.GetHead)

	r.Get("/healthz", s.handle(s.healthz))
	r.Get("/readyz", s.handle(s.readyz))

	// The public pages, the busiest path, are routed from the top: through
	// the /api mount a request pays a second routing (chi's wildcard path
	// value and route pattern, three allocations). The same routes stand
	// in the mount too, where any other method lands and is answered 405.
	public := func(r chi.Router, prefix string) {
		r.Get(prefix+"/public/stats", s.handle(s.publicStats))
		r.Get(prefix+"/public/latest", s.handle(s.publicLatest))
		r.Get(prefix+"/public/logs", s.handle(s.publicLogs))
	}
	public(r, "/api")

	r.Route("/api", func(r chi.Router) {
		r.Post("/auth/login", s.handle(s.login))
		public(r, "")
		r.Get("/platforms", s.handle(s.platformTable))

		r.Group(func(r chi.Router) {
			r.Use(s.requireAdmin)
			r.Post("/auth/logout", s.handle(s.logout))
			r.Post("/auth/logout-all", s.handle(s.logoutAll))
			r.Route("/posts", func(r chi.Router) {
				// One list per admin tab, in the domain's tab order.
				for _, src := range post.Sources {
					r.Get("/"+listPaths[src], s.handle(s.listPosts(src)))
				}
				r.Get("/skipped", s.handle(s.listSkipped))
				r.Get("/queued", s.handle(s.listQueued))
				r.Get("/stats", s.handle(s.adminStats))
				r.Post("/profile/generate", s.handle(s.generateProfile))
				r.Post("/targeted/generate", s.handle(s.generateTargeted))
				r.Post("/bulk", s.handle(s.bulk))
				r.Get("/{id}/history", s.handle(s.history))
				r.Get("/{id}/context", s.handle(s.conversation))
				r.Post("/{id}/regenerate", s.handle(s.regenerate))
				r.Post("/{id}/approve", s.handle(s.approve))
				r.Post("/{id}/reject", s.handle(s.reject))
				r.Post("/{id}/cancel", s.handle(s.cancel))
				r.Post("/{id}/edit", s.handle(s.edit))
				r.Post("/{id}/draft-anyway", s.handle(s.draftAnyway))
				r.Post("/{id}/mark-posted", s.handle(s.markPosted))
				r.Post("/{id}/give-up", s.handle(s.giveUp))
			})
			r.Get("/spend", s.handle(s.spend))
			r.Get("/telegram", s.handle(s.telegram))
			r.Get("/settings", s.handle(s.getSettings))
			r.Put("/settings", s.handle(s.putSettings))
			r.Get("/persona", s.handle(s.getPersona))
			r.Put("/persona", s.handle(s.putPersona))
			r.Get("/persona/versions", s.handle(s.personaVersions))
			r.Post("/persona/preview", s.handle(s.previewPersona))
			r.Get("/cases", s.handle(s.listCases))
			r.Post("/cases/import", s.handle(s.importCases))
			r.Delete("/cases/{id}", s.handle(s.deleteCase))
			r.Get("/lessons", s.handle(s.listLessons))
			r.Post("/lessons", s.handle(s.createLesson))
			r.Patch("/lessons/{id}", s.handle(s.updateLesson))
			r.Delete("/lessons/{id}", s.handle(s.deleteLesson))
			r.Post("/lessons/{id}/promote", s.handle(s.promoteLesson))
			r.Get("/knowledge", s.handle(s.listKnowledge))
			r.Post("/knowledge", s.handle(s.createKnowledge))
			r.Get("/knowledge/search", s.handle(s.searchKnowledge))
			r.Patch("/knowledge/{id}", s.handle(s.updateKnowledge))
			r.Delete("/knowledge/{id}", s.handle(s.deleteKnowledge))
			r.Post("/ops/pause", s.handle(s.pause))
			r.Post("/ops/resume", s.handle(s.resume))
			r.Get("/insights", s.handle(s.insightsAnswer))
			r.Get("/mentions/lookup", s.handle(s.lookupMention))
		})

		if s.ceiling != nil {
			r.Get("/bench/ceiling/{size}", s.handle(s.benchCeiling))
		}

		r.NotFound(s.handle(apiNotFound))
		r.MethodNotAllowed(s.handle(apiMethodNotAllowed))
	})

	if ops != nil {
		// no-store first, so that the refusals are not stored either.
		r.With(noStore, s.requireSameOrigin, s.requireAdminPage, s.opsPolicy).Mount(OpsPath, ops)
	}
	if metrics != nil {
		r.With(s.requireSameOrigin, s.allowMetricsToken(s.requireAdminPage), noStore).Handle("/metrics", metrics)
	}

	r.NotFound(spa(staticDir))
	return r
}

// adminName names the administrator's corner of the site: its path, its
// session cookie and its authentication realm.
const adminName = "diaries666op"

// The admin's pages: the dashboard and its login page are client routes of
// the frontend; the ops pages are served here behind the admin login.
const (
	// AdminPath is where every admin page lives.
	AdminPath = "/" + adminName
	// OpsPath is where the queue dashboard is mounted.
	OpsPath = AdminPath + "/queues"
	// adminLoginPath is the frontend's login page, where an ops page sends a
	// browser that is not signed in.
	adminLoginPath = AdminPath + "/login"
)

func apiNotFound(http.ResponseWriter, *http.Request) error {
	return &Error{Status: http.StatusNotFound, Message: "no such API route"}
}

func apiMethodNotAllowed(http.ResponseWriter, *http.Request) error {
	return &Error{Status: http.StatusMethodNotAllowed, Message: "method not allowed on this route"}
}
