package api

import (
	"context"
	"fmt"
	"net/http"
)

// beginModelCall takes one of the session's model calls (a persona preview
// or a regenerate) for the request: a session with one in flight, or with
// its 10 of the minute made, is answered 429 with Retry-After. The release
// returned ends the call; it is never nil.
func (s *Server) beginModelCall(r *http.Request) (release func(), err error) {
	if s.modelCalls == nil {
		return func() {}, nil
	}
	ctx := r.Context()
	end, wait, err := s.modelCalls.Begin(ctx, bearerToken(r))
	if err != nil {
		return nil, fmt.Errorf("model call bound: %w: %w", errQueueDown, err)
	}
	if end == nil {
		return nil, &Error{Status: http.StatusTooManyRequests, RetryAfter: wait,
			Message: fmt.Sprintf("too many previews and regenerations: one at a time, at most 10 a minute; try again in %d s", int(wait.Seconds()+0.999))}
	}
	return func() {
		// The request's context may be done: the release must still reach Redis.
		if err := end(context.WithoutCancel(ctx)); err != nil {
			s.log.WarnContext(ctx, "model call not released: the session waits for its hold to lapse", "error", err)
		}
	}, nil
}
