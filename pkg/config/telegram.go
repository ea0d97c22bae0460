package config

import (
	"regexp"
	"strconv"
	"strings"
)

// Telegram is the review channel in Telegram (TELEGRAM_*): off while Token
// is empty. Only the worker reads it: the web tier never holds the token.
type Telegram struct {
	// Token is the bot's token (TELEGRAM_BOT_TOKEN).
	Token string
	// AdminUserID is the one Telegram user allowed to act (TELEGRAM_ADMIN_USER_ID).
	AdminUserID int64
	// ChatID is where messages go (TELEGRAM_CHAT_ID): the admin's private
	// chat, AdminUserID, when unset.
	ChatID int64
	// APIBaseURL is the Bot API (TELEGRAM_API_BASE_URL).
	APIBaseURL string
	// Burst is how many new drafts a minute go as cards of their own before
	// a digest sums them up (TELEGRAM_BURST).
	Burst int
}

// Enabled reports whether the channel is configured.
func (t Telegram) Enabled() bool { return t.Token != "" }

// telegramToken is the shape of a bot token: the bot's id, a colon, a secret.
var telegramToken = regexp.MustCompile(`^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$`)

// loadTelegram reads the TELEGRAM_* variables. No message repeats the
// token: it is a secret, and these messages are logged.
func (c *Config) loadTelegram(r *reader) {
	t := Telegram{
		Token:      r.str("TELEGRAM_BOT_TOKEN", ""),
		APIBaseURL: r.url("TELEGRAM_API_BASE_URL", "https://api.telegram.org", "http", "https"),
		Burst:      r.integer("TELEGRAM_BURST", 10, 1, 1000),
	}
	t.AdminUserID = r.telegramID("TELEGRAM_ADMIN_USER_ID", true)
	t.ChatID = r.telegramID("TELEGRAM_CHAT_ID", false)
	switch {
	case t.Token != "" && !telegramToken.MatchString(t.Token):
		r.fail("TELEGRAM_BOT_TOKEN", "is not a bot token (digits, a colon, then the secret BotFather gave)")
	case t.Token != "" && t.AdminUserID == 0 && strings.TrimSpace(r.getenv("TELEGRAM_ADMIN_USER_ID")) == "":
		r.fail("TELEGRAM_ADMIN_USER_ID", "is required with TELEGRAM_BOT_TOKEN: the one Telegram user allowed to act")
	case t.Token == "" && (t.AdminUserID != 0 || t.ChatID != 0):
		r.fail("TELEGRAM_BOT_TOKEN", "is required when TELEGRAM_ADMIN_USER_ID or TELEGRAM_CHAT_ID is set")
	}
	if t.ChatID == 0 {
		t.ChatID = t.AdminUserID
	}
	c.Telegram = t
}

// telegramID reads a Telegram id: a user's is positive; a chat's may be
// negative (a group), never zero.
func (r *reader) telegramID(name string, user bool) int64 {
	raw := strings.TrimSpace(r.getenv(name))
	if raw == "" {
		return 0
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case err != nil || n == 0:
		r.fail(name, "must be a Telegram id (a nonzero integer)")
	case user && n < 0:
		r.fail(name, "must be a Telegram user id (a positive integer)")
	default:
		return n
	}
	return 0
}
