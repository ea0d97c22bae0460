package config

import (
	"strings"
	"testing"
)

const goodToken = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"

func TestLoadTelegram(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    Telegram
		wantErr string
	}{
		{name: "off by default", env: nil, want: Telegram{APIBaseURL: "https://api.telegram.org", Burst: 10}},
		{name: "the admin's private chat", env: map[string]string{"TELEGRAM_BOT_TOKEN": goodToken, "TELEGRAM_ADMIN_USER_ID": "42"},
			want: Telegram{Token: goodToken, AdminUserID: 42, ChatID: 42, APIBaseURL: "https://api.telegram.org", Burst: 10}},
		{name: "a group chat and a stand-in", env: map[string]string{"TELEGRAM_BOT_TOKEN": goodToken, "TELEGRAM_ADMIN_USER_ID": "42",
			"TELEGRAM_CHAT_ID": "-1001234", "TELEGRAM_API_BASE_URL": "http://127.0.0.1:9999", "TELEGRAM_BURST": "3"},
			want: Telegram{Token: goodToken, AdminUserID: 42, ChatID: -1001234, APIBaseURL: "http://127.0.0.1:9999", Burst: 3}},
		{name: "a token without an admin", env: map[string]string{"TELEGRAM_BOT_TOKEN": goodToken}, wantErr: "TELEGRAM_ADMIN_USER_ID is required"},
		{name: "an admin without a token", env: map[string]string{"TELEGRAM_ADMIN_USER_ID": "42"}, wantErr: "TELEGRAM_BOT_TOKEN is required"},
		{name: "a chat without a token", env: map[string]string{"TELEGRAM_CHAT_ID": "-5"}, wantErr: "TELEGRAM_BOT_TOKEN is required"},
		{name: "a malformed token", env: map[string]string{"TELEGRAM_BOT_TOKEN": "not-a-token-secret-value", "TELEGRAM_ADMIN_USER_ID": "42"}, wantErr: "TELEGRAM_BOT_TOKEN is not a bot token"},
		{name: "a token with a newline", env: map[string]string{"TELEGRAM_BOT_TOKEN": "123:abc\ndefghijklmnopqrstuvwxyz", "TELEGRAM_ADMIN_USER_ID": "42"}, wantErr: "TELEGRAM_BOT_TOKEN is not a bot token"},
		{name: "an admin that is a word", env: map[string]string{"TELEGRAM_BOT_TOKEN": goodToken, "TELEGRAM_ADMIN_USER_ID": "me"}, wantErr: "TELEGRAM_ADMIN_USER_ID must be a Telegram id"},
		{name: "a negative admin", env: map[string]string{"TELEGRAM_BOT_TOKEN": goodToken, "TELEGRAM_ADMIN_USER_ID": "-42"}, wantErr: "TELEGRAM_ADMIN_USER_ID must be a Telegram user id"},
		{name: "a zero chat", env: map[string]string{"TELEGRAM_BOT_TOKEN": goodToken, "TELEGRAM_ADMIN_USER_ID": "42", "TELEGRAM_CHAT_ID": "0"}, wantErr: "TELEGRAM_CHAT_ID must be a Telegram id"},
		{name: "an overflowing id", env: map[string]string{"TELEGRAM_BOT_TOKEN": goodToken, "TELEGRAM_ADMIN_USER_ID": "99999999999999999999"}, wantErr: "TELEGRAM_ADMIN_USER_ID must be a Telegram id"},
		{name: "a bad base URL", env: map[string]string{"TELEGRAM_BOT_TOKEN": goodToken, "TELEGRAM_ADMIN_USER_ID": "42", "TELEGRAM_API_BASE_URL": "ftp://x"}, wantErr: "TELEGRAM_API_BASE_URL"},
		{name: "a burst of zero", env: map[string]string{"TELEGRAM_BURST": "0"}, wantErr: "TELEGRAM_BURST"},
		{name: "a burst that is a word", env: map[string]string{"TELEGRAM_BURST": "many"}, wantErr: "TELEGRAM_BURST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Worker, env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one naming %q", err, tt.wantErr)
				}
				// The token is a secret: no message repeats it.
				if tok := tt.env["TELEGRAM_BOT_TOKEN"]; tok != "" && strings.Contains(err.Error(), tok) {
					t.Errorf("the error repeats the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Telegram != tt.want {
				t.Errorf("got %+v, want %+v", c.Telegram, tt.want)
			}
		})
	}
}

// Only the worker talks to Telegram: the web tier and the scheduler never
// read the token.
func TestTelegramOnlyInTheWorker(t *testing.T) {
	t.Parallel()
	e := env(map[string]string{"TELEGRAM_BOT_TOKEN": goodToken, "TELEGRAM_ADMIN_USER_ID": "42"})
	for _, proc := range []Process{Web, Scheduler} {
		c, err := Load(proc, e)
		if err != nil {
			t.Fatalf("%s: %v", proc, err)
		}
		if c.Telegram.Token != "" || c.Telegram.Enabled() {
			t.Errorf("%s read the Telegram token", proc)
		}
	}
}
