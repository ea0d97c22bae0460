package api

import (
	"net/http"
)

// logsPageSize is the number of threads on one page of the public logs.
const logsPageSize = 15

// memorableQuotes is how many of the best responses the landing page may pick from.
const memorableQuotes = 10

type publicStatsResponse struct {
	Stats           homeStatsView `json:"stats"`
	MemorableQuotes []string      `json:"memorable_quotes"`
}

// publicStats answers the home page's figures and the memorable quotes.
func (s *Server) publicStats(w http.ResponseWriter, r *http.Request) error {
	h, err := s.store.HomeStats(r.Context(), s.now())
	if err != nil {
		return err
	}
	quotes, err := s.store.MemorableQuotes(r.Context(), memorableQuotes)
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, publicStatsResponse{Stats: viewHomeStats(h), MemorableQuotes: quotes})
	return nil
}

// publicLatest answers the most recently posted response; 404 when none.
func (s *Server) publicLatest(w http.ResponseWriter, r *http.Request) error {
	p, err := s.store.LatestPosted(r.Context())
	if err != nil {
		return err
	}
	respondJSON(w, http.StatusOK, latestView{
		ID: p.ID, ProposedResponse: p.ProposedResponse, OriginalPostText: p.OriginalPostText,
		OriginalPostUser: p.OriginalPostUser, AuthorUsername: p.AuthorUsername, Category: string(p.Category),
		IsMention: p.IsMention(), IsProfileTweet: p.IsProfile(), PostedAt: utc(p.PostedAt),
	})
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
	offset, err := intParam(r.URL.Query().Get("offset"), "offset", 0, 0, maxPage*logsPageSize)
	if err != nil {
		return err
	}
	threads, more, err := s.store.Logs(r.Context(), offset, logsPageSize)
	if err != nil {
		return err
	}
	out := logsResponse{Threads: []threadView{}, Pagination: logsPagination{Offset: offset, Limit: logsPageSize, HasMore: more}}
	for _, t := range threads {
		out.Threads = append(out.Threads, viewThread(t))
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}
