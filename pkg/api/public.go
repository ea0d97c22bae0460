package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// logsPageSize is the number of threads on one page of the public logs.
const logsPageSize = 15

// cachedLogPages is how many of the first pages of the public logs are
// served from memory; deeper pages are read from the database each time.
const cachedLogPages = 5

// memorableQuotes is how many of the best responses the landing page may pick from.
const memorableQuotes = 10

type publicStatsResponse struct {
	Stats           homeStatsView `json:"stats"`
	MemorableQuotes []string      `json:"memorable_quotes"`
}

// publicStats answers the home page's figures and the memorable quotes,
// from the cache.
func (s *Server) publicStats(w http.ResponseWriter, r *http.Request) error {
	a, err := s.public.get(r.Context(), "stats", func(ctx context.Context) (any, error) {
		h, err := s.store.HomeStats(ctx, s.now())
		if err != nil {
			return nil, err
		}
		quotes, err := s.store.MemorableQuotes(ctx, memorableQuotes)
		if err != nil {
			return nil, err
		}
		return publicStatsResponse{Stats: viewHomeStats(h), MemorableQuotes: quotes}, nil
	})
	if err != nil {
		return err
	}
	respondCached(w, r, a)
	return nil
}

// publicLatest answers the most recently posted response, from the cache;
// 404 when none.
func (s *Server) publicLatest(w http.ResponseWriter, r *http.Request) error {
	a, err := s.public.get(r.Context(), "latest", func(ctx context.Context) (any, error) {
		p, err := s.store.LatestPosted(ctx)
		if err != nil {
			return nil, err
		}
		return latestView{
			ID: p.ID, ProposedResponse: p.ProposedResponse, OriginalPostText: p.OriginalPostText,
			OriginalPostUser: p.OriginalPostUser, AuthorUsername: p.AuthorUsername, Category: string(p.Category),
			IsMention: p.IsMention(), IsProfileTweet: p.IsProfile(), PostedAt: utc(p.PostedAt),
		}, nil
	})
	if err != nil {
		return err
	}
	respondCached(w, r, a)
	return nil
}

type logsResponse struct {
	Threads    []threadView   `json:"threads"`
	Pagination logsPagination `json:"pagination"`
}

type logsPagination struct {
	Offset  int  `json:"offset"`
	Limit   int  `json:"limit"`
	HasMore bool `json:"hasMore"`
}

// publicLogs answers one page of posted interactions, newest first.
func (s *Server) publicLogs(w http.ResponseWriter, r *http.Request) error {
	offset, err := intParam(queryOffset(r.URL), "offset", 0, 0, maxPage*logsPageSize)
	if err != nil {
		return err
	}
	page := func(ctx context.Context) (any, error) {
		threads, more, err := s.store.Logs(ctx, offset, logsPageSize)
		if err != nil {
			return nil, err
		}
		out := logsResponse{Threads: []threadView{}, Pagination: logsPagination{Offset: offset, Limit: logsPageSize, HasMore: more}}
		for _, t := range threads {
			out.Threads = append(out.Threads, viewThread(t))
		}
		return out, nil
	}
	if offset >= cachedLogPages*logsPageSize {
		out, err := page(r.Context())
		if err != nil {
			return err
		}
		respondJSON(w, http.StatusOK, out)
		return nil
	}
	a, err := s.public.get(r.Context(), logsKey(offset), page)
	if err != nil {
		return err
	}
	respondCached(w, r, a)
	return nil
}

// logsKeys are the cache keys of the cached pages of the public logs,
// made once: a key built per request would cost the busiest page an
// allocation.
var logsKeys = func() [cachedLogPages]string {
	var keys [cachedLogPages]string
	for i := range keys {
		keys[i] = "logs:" + strconv.Itoa(i*logsPageSize)
	}
	return keys
}()

// logsKey is the cache key of the cached page at offset, a multiple of
// logsPageSize or not.
func logsKey(offset int) string {
	if offset%logsPageSize == 0 {
		return logsKeys[offset/logsPageSize]
	}
	return "logs:" + strconv.Itoa(offset)
}

// queryOffset returns the offset parameter of a request for the public
// logs. The query the pages send, "offset=N" alone, is read as it is;
// any other is parsed into url.Values, whose answer it always equals.
func queryOffset(u *url.URL) string {
	if v, ok := strings.CutPrefix(u.RawQuery, "offset="); ok && !strings.ContainsAny(v, "&;%+=") {
		return v
	}
	return u.Query().Get("offset")
}
