package api

import (
	"net/http"
	"time"
)

// telegramView is the Telegram link as the settings show it.
type telegramView struct {
	// Linked is set once a worker ran the channel (TELEGRAM_BOT_TOKEN set).
	Linked bool `json:"linked"`
	// Bot is the bot's username; "" until linked.
	Bot          string     `json:"bot"`
	LastUpdateAt *time.Time `json:"last_update_at"`
	LastError    string     `json:"last_error"`
	LastErrorAt  *time.Time `json:"last_error_at"`
}

// telegram answers the Telegram link's state, as the worker that runs it
// keeps it: the web tier never holds the token.
func (s *Server) telegram(w http.ResponseWriter, r *http.Request) error {
	st, err := s.store.Telegram(r.Context())
	if err != nil {
		return err
	}
	out := telegramView{}
	if st != nil {
		out = telegramView{Linked: true, Bot: st.Bot, LastUpdateAt: utcPtr(st.LastUpdateAt), LastError: st.LastError, LastErrorAt: utcPtr(st.LastErrorAt)}
	}
	respondJSON(w, http.StatusOK, out)
	return nil
}

// utcPtr is t in UTC, nil for nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
