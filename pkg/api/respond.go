package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"infernal/pkg/auth"
	"infernal/pkg/guard"
	"infernal/pkg/post"
	"infernal/pkg/settings"
	"infernal/pkg/store"
)

// maxBody is the largest request body any call accepts.
const maxBody = 64 << 10

// errBodyTooLarge is the message of the 413 answer to a body over maxBody.
var errBodyTooLarge = fmt.Sprintf("request body is larger than %d bytes", maxBody)

// errBodyTooSlow is the message of the 408 answer to a body that did not
// arrive within the server's read timeout.
const errBodyTooSlow = "the request body did not arrive in time"

// Error is an answer with a status and a message meant for the client.
type Error struct {
	Status  int
	Message string
	// RetryAfter, when set, is answered as Retry-After (whole seconds).
	RetryAfter time.Duration
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// badRequest is a 400 with a message naming what is wrong.
func badRequest(format string, args ...any) error {
	return &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

// handlerFunc is the shape of every handler: it answers, or returns an error
// that respondError turns into the JSON error answer.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc to net/http.
func (s *Server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.respondError(w, r, err)
		}
	}
}

// respondJSON writes v as JSON with status.
func respondJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	// The status is already sent; an encoding failure can only be a broken connection.
	_ = json.NewEncoder(w).Encode(v)
}

// respondError answers {"error": message} (with "field", the JSON path of
// the bad value, on a 400 about a value of the request) with the status
// errorStatus maps err to, and the headers that go with it. Unexpected
// errors are logged and answered without detail.
func (s *Server) respondError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := s.errorStatus(r, err)
	var throttled *auth.ThrottledError
	var apiErr *Error
	switch {
	case errors.As(err, &throttled):
		w.Header().Set("Retry-After", strconv.Itoa(int(throttled.RetryAfter.Seconds()+0.999)))
	case errors.As(err, &apiErr) && apiErr.RetryAfter > 0:
		w.Header().Set("Retry-After", strconv.Itoa(int(apiErr.RetryAfter.Seconds()+0.999)))
	case status == http.StatusUnauthorized && errors.Is(err, auth.ErrUnauthenticated):
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+adminName+`"`)
	}
	body := map[string]any{"error": msg}
	var fieldErr *settings.FieldError
	var bodyErr *bodyError
	var textErr *post.TextError
	var flagged *guard.OverrideError
	var versionErr *post.VersionError
	switch {
	case status == http.StatusConflict && errors.As(err, &versionErr):
		body["draft_version"] = versionErr.Have
	case status == http.StatusBadRequest && errors.As(err, &fieldErr):
		// The client shows the message beside the field it names.
		body["field"] = fieldErr.Field
	case status == http.StatusBadRequest && errors.As(err, &bodyErr):
		body["field"] = bodyErr.Field
	case status == http.StatusBadRequest && errors.As(err, &textErr):
		body["field"] = textErr.Field
	case status == http.StatusUnprocessableEntity && errors.As(err, &flagged):
		body["flags"] = append([]string{}, flagged.Flags...)
	}
	respondJSON(w, status, body)
}

// errorStatus maps an error to its status and message in one place, the
// message written here from the facts the error carries, never cut out of
// its text; a bulk action reports each item's error through it too.
// Unexpected errors are logged and given no detail.
func (s *Server) errorStatus(r *http.Request, err error) (int, string) {
	status, msg := http.StatusInternalServerError, "internal error"
	var apiErr *Error
	var throttled *auth.ThrottledError
	var tooBig *http.MaxBytesError
	var stateErr *post.StateError
	var versionErr *post.VersionError
	var lengthErr *post.LengthError
	var contentErr *post.ContentError
	var textErr *post.TextError
	var fieldErr *settings.FieldError
	var bodyErr *bodyError
	var flagged *guard.OverrideError
	var started *store.SendStartedError
	var platformErr *post.PlatformError
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.Status, apiErr.Message
	case errors.As(err, &bodyErr):
		status, msg = http.StatusBadRequest, bodyErr.Message
	case errors.As(err, &tooBig):
		status, msg = http.StatusRequestEntityTooLarge, errBodyTooLarge
	case errors.As(err, &throttled):
		status, msg = http.StatusTooManyRequests, throttled.Error()
	case errors.Is(err, auth.ErrInvalidCredentials):
		status, msg = http.StatusUnauthorized, "Invalid credentials" // the login page shows this text as it is
	case errors.Is(err, auth.ErrUnauthenticated):
		status, msg = http.StatusUnauthorized, "authentication required"
	case errors.Is(err, store.ErrNotFound):
		status, msg = http.StatusNotFound, "not found"
	case errors.As(err, &versionErr):
		// The card shows the new text; the phrase is the API's contract.
		status, msg = http.StatusConflict, "the draft changed since it was shown"
	case errors.As(err, &started):
		// The cancel lost the race: the reply is going out.
		status, msg = http.StatusConflict, "the send has started"
	case errors.As(err, &platformErr):
		status, msg = http.StatusConflict, fmt.Sprintf("the post is on %s, a platform that is not running (PLATFORM does not name it)", platformErr.Platform)
	case errors.As(err, &stateErr):
		status, msg = http.StatusConflict, fmt.Sprintf("it is %s, not %s", stateErr.Have, stateErr.Want)
	case errors.As(err, &lengthErr):
		unit := lengthErr.Unit
		if unit == "" {
			unit = "characters"
		}
		status, msg = http.StatusUnprocessableEntity, fmt.Sprintf("the response is %d %s; it must be 1 to %d", lengthErr.Length, unit, lengthErr.Max)
	case errors.As(err, &contentErr):
		status, msg = http.StatusUnprocessableEntity, contentErr.Reason
	case errors.As(err, &textErr):
		// A character the administrator may not write: the request is at fault, as any bad field.
		status, msg = http.StatusBadRequest, textErr.Error()
	case errors.As(err, &fieldErr):
		status, msg = http.StatusBadRequest, fieldErr.Error()
	case errors.As(err, &flagged):
		// The card names the flags and offers "approve anyway" (override).
		status, msg = http.StatusUnprocessableEntity, flagged.Error()
	case errors.Is(err, store.ErrConflict):
		status, msg = http.StatusConflict, store.ErrConflict.Error()
	case errors.Is(err, store.ErrInvalid):
		status, msg = http.StatusUnprocessableEntity, store.ErrInvalid.Error()
	case errors.Is(err, errQueueDown), store.IsUnavailable(err), errors.Is(err, context.DeadlineExceeded):
		status, msg = http.StatusServiceUnavailable, "a dependency is unavailable; try again shortly"
	}
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "error", err, "status", status, "request_id", requestID(r.Context()))
	}
	return status, msg
}

// readBody reads r's whole body. A body that did not arrive within the
// server's ReadTimeout is a 408: the client was too slow, no dependency is
// down.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			return nil, &Error{Status: http.StatusRequestTimeout, Message: errBodyTooSlow}
		}
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return body, nil
}
