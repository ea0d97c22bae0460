package telegram_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"infernal/pkg/telegram"
	"infernal/pkg/upstream"
)

// gatewayPage is what a proxy in front of the Bot API answers when the API
// is down: an HTML page, not the API's JSON.
const gatewayPage = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n" +
	"<hr><center>nginx</center>\r\n\x1b[31m</body>\r\n</html>\r\n"

// A body that is not the Bot API's JSON (a gateway's page, a long or
// multi-line description) enters the client's errors as a short single
// line without the token: what the logs and last_error then show.
func TestClientErrorsAreShortSingleLines(t *testing.T) {
	t.Parallel()
	const token = "123456:SECRET-token"
	padding := strings.Repeat("<p>filler line</p>\n", 2000)
	tests := []struct {
		name   string
		status int
		body   string
		call   func(c *telegram.Client) error
		want   string
	}{
		{name: "sendMessage, gateway page", status: http.StatusBadGateway, body: gatewayPage + padding,
			call: func(c *telegram.Client) error {
				_, err := c.Send(t.Context(), 1, telegram.Message{Text: "hi"})
				return err
			},
			want: "502 Bad Gateway 502 Bad Gateway nginx"},
		{name: "getUpdates, long description", status: http.StatusBadRequest,
			body: `{"ok":false,"error_code":400,"description":"Bad Request:\n` + strings.Repeat("very long ", 500) + `"}`,
			call: func(c *telegram.Client) error { _, err := c.Updates(t.Context(), 0, time.Second); return err },
			want: "Bad Request: very long"},
		{name: "getMe, gateway page", status: http.StatusBadGateway, body: gatewayPage,
			call: func(c *telegram.Client) error { _, err := c.Me(t.Context()); return err },
			want: "502 Bad Gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body) // the request is not what this test checks
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body) // the client reads what it reads
			}))
			t.Cleanup(srv.Close)
			c, err := telegram.NewClient(token, srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.call(c)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\r\n\x1b") || strings.Contains(msg, "<") && strings.Contains(msg, "</") {
				t.Errorf("error %q is not one line of text", msg)
			}
			if n := len([]rune(msg)); n > upstream.MaxExcerpt+40 {
				t.Errorf("error is %d characters: %q", n, msg)
			}
			if strings.Contains(msg, "SECRET") {
				t.Errorf("error %q holds the token", msg)
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q does not say %q", msg, tt.want)
			}
		})
	}
}
