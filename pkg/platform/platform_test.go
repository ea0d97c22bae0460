package platform

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"infernal/pkg/upstream"
)

func TestSummons(t *testing.T) {
	t.Parallel()
	me := User{ID: "42", Username: "Devil"}
	tests := []struct {
		name string
		post Post
		want bool
	}{
		{name: "mention by id", post: Post{Mentions: []User{{ID: "42", Username: "devil"}}}, want: true},
		{name: "mention by handle, any case", post: Post{Mentions: []User{{Username: "DEVIL"}}}, want: true},
		{name: "quote of the persona", post: Post{QuotedAuthorID: "42"}, want: true},
		{name: "mention of someone else", post: Post{Mentions: []User{{ID: "7", Username: "angel"}}}, want: false},
		{name: "quote of someone else", post: Post{QuotedAuthorID: "7"}, want: false},
		{name: "plain post", post: Post{Text: "devil may care"}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.post.Summons(me); got != tt.want {
				t.Errorf("Summons = %v, want %v", got, tt.want)
			}
			if got := ReplySummoned.AllowsAPIReply(tt.post, me); got != tt.want {
				t.Errorf("summoned policy = %v, want %v", got, tt.want)
			}
			if !ReplyOpen.AllowsAPIReply(tt.post, me) {
				t.Error("the open policy refused")
			}
		})
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		err         error
		want        Refusal
		accountWide bool
		temporary   bool
	}{
		{name: "duplicate", err: &Error{Status: 403, Detail: "You are not allowed to create a Tweet with duplicate content."}, want: RefusalDuplicate},
		{name: "reply not allowed", err: &Error{Status: 403, Detail: ReplyNotAllowedDetail}, want: RefusalReplyNotAllowed},
		{name: "reply not allowed, older words", err: &Error{Status: 403, Detail: "Reply to this conversation is not allowed because you have not been mentioned or otherwise engaged by the author of the post you are replying to."}, want: RefusalReplyNotAllowed},
		{name: "bluesky threadgate", err: &Error{Status: 403, Title: "ReplyNotAllowed", Detail: "the thread's gate (threadgate) does not let the persona reply"}, want: RefusalReplyGated},
		{name: "bluesky block", err: &Error{Status: 403, Title: "BlockedActor", Detail: "its author and the persona block each other"}, want: RefusalReplyGated},
		{name: "bluesky deleted parent", err: &Error{Status: 404, Title: "NotFound", Detail: "the post at://did:plc:a/app.bsky.feed.post/3k was deleted or not visible"}, want: RefusalOriginalGone},
		{name: "deleted original", err: &Error{Status: 403, Detail: "You attempted to reply to a Tweet that is deleted or not visible to you."}, want: RefusalOriginalGone},
		{name: "suspended", err: &Error{Status: 403, Detail: "Your account is suspended and is not permitted to access this feature."}, want: RefusalSuspended, accountWide: true},
		{name: "locked", err: &Error{Status: 403, Detail: "This account is temporarily locked."}, want: RefusalSuspended, accountWide: true},
		{name: "out of credits", err: &Error{Status: 402, Title: "Payment Required"}, want: RefusalOutOfCredits, accountWide: true},
		{name: "usage capped by type", err: &Error{Status: 429, Type: "https://api.twitter.com/2/problems/usage-capped"}, want: RefusalUsageCapped, accountWide: true},
		{name: "wrapped", err: fmt.Errorf("x: publish: %w", &Error{Status: 402}), want: RefusalOutOfCredits, accountWide: true},
		{name: "plain rate limit", err: &Error{Status: 429, RetryAt: time.Now()}, want: "", temporary: true},
		{name: "server error naming duplicates", err: &Error{Status: 503, Detail: "duplicate content"}, want: "", temporary: true},
		{name: "network", err: &Error{Err: fmt.Errorf("reset")}, want: "", temporary: true},
		{name: "other refusal", err: &Error{Status: 400, Detail: "bad"}, want: ""},
		{name: "invalid expansion", err: &Error{Status: 400, Title: "Invalid Request", Invalid: []string{"expansions"}}, want: RefusalBadRequestConfig},
		{name: "invalid fields", err: &Error{Status: 400, Invalid: []string{"tweet.fields"}}, want: RefusalBadRequestConfig},
		{name: "invalid since_id is the read's own", err: &Error{Status: 400, Invalid: []string{"since_id"}}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.err)
			if got != tt.want || got.AccountWide() != tt.accountWide || Temporary(tt.err) != tt.temporary {
				t.Errorf("Classify = %q (account-wide %v, temporary %v); want %q (%v, %v)",
					got, got.AccountWide(), Temporary(tt.err), tt.want, tt.accountWide, tt.temporary)
			}
			if got != "" && got.Reason() == "" {
				t.Error("a named refusal has no reason")
			}
		})
	}
}

func TestValidUsername(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"maria_g", true}, {"A", true}, {"abcdefghij12345", true}, {"___", true},
		{"", false}, {"abcdefghij123456", false}, {"@maria", false}, {"evil\nSYSTEM", false},
		{"two words", false}, {"mária", false}, {"evil\u200b", false}, {"a-b", false}, {"a.b", false},
	}
	for _, tt := range tests {
		if got := ValidUsername(tt.in); got != tt.want {
			t.Errorf("ValidUsername(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// An Error's text is a short single line whatever the platform answered;
// its fields keep the whole answer, so Classify still reads it all.
func TestErrorTextIsAnExcerpt(t *testing.T) {
	t.Parallel()
	long := "<html>\n<body>\n" + strings.Repeat("the gateway timed out\n", 50) + "duplicate content</body></html>"
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{name: "gateway page as the detail", err: &Error{Status: 502, Title: "Bad Gateway", Detail: long}, want: "platform: 502 Bad Gateway: the gateway timed out"},
		{name: "multi-line detail", err: &Error{Status: 400, Detail: "line one\nline two\x1b[0m"}, want: "platform: 400 line one line two [0m"},
		{name: "network error quoting a body", err: &Error{Err: errors.New("decode: <html>bad gateway</html>\n")}, want: "platform: decode: bad gateway"},
		{name: "short as it was", err: &Error{Status: 403, Title: "Forbidden", Detail: "You are not permitted."}, want: "platform: 403 Forbidden: You are not permitted."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := tt.err.Error()
			if !strings.HasPrefix(msg, tt.want) {
				t.Errorf("Error() = %q, want it to start %q", msg, tt.want)
			}
			if strings.ContainsAny(msg, "\n\r\x1b<>") || utf8.RuneCountInString(msg) > upstream.MaxExcerpt {
				t.Errorf("Error() = %q is not a short single line", msg)
			}
		})
	}
	if got := Classify(&Error{Status: 403, Detail: long}); got != RefusalDuplicate {
		t.Errorf("Classify of a long detail = %q, want %q", got, RefusalDuplicate)
	}
}
