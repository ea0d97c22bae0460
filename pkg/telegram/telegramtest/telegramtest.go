// Package telegramtest is a stand-in for Telegram's Bot API on loopback,
// speaking its wire format, so that tests run the real client: getMe,
// getUpdates (offset, timeout, and 409 Conflict to a second consumer),
// sendMessage with inline keyboards, editMessageText, answerCallbackQuery,
// and 429 with retry_after on demand. Tests play the administrator (and
// strangers) by pressing buttons and sending texts.
package telegramtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Button is an inline button as sent.
type Button struct {
	Text string `json:"text"`
	Data string `json:"callback_data"`
}

// Message is a message the bot sent, as it now reads.
type Message struct {
	ID      int64
	ChatID  int64
	Text    string
	Buttons [][]Button
	// ReplyTo is the message it answers, zero for none.
	ReplyTo int64
	// ForceReply is set on a message that asks for a reply.
	ForceReply bool
	// Edits counts the editMessageText calls on it.
	Edits  int
	SentAt time.Time
}

// Answer is an answerCallbackQuery call.
type Answer struct {
	CallbackID string
	Text       string
}

// Server is the stand-in.
type Server struct {
	*httptest.Server
	token string
	bot   string

	mu        sync.Mutex
	changed   chan struct{}
	nextID    int64
	updates   []json.RawMessage
	updateIDs []int64
	messages  []*Message
	answers   []Answer
	polling   bool
	conflicts int
	calls     map[string]int
	// tooMany answers the next sends 429 with retryAfter seconds.
	tooMany    int
	retryAfter int
	// refusedAt is when the last 429 was answered.
	refusedAt time.Time
	// earlyAfter429 counts sends accepted before a 429's retry_after passed.
	earlyAfter429 int
	// lastUpdate is the id of the newest update queued.
	lastUpdate int64
}

// New starts a stand-in for the bot with token, named bot.
func New(token, bot string) *Server {
	s := &Server{token: token, bot: bot, changed: make(chan struct{}), nextID: 100, calls: map[string]int{}, lastUpdate: 1000}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the base URL to give the client (TELEGRAM_API_BASE_URL).
func (s *Server) BaseURL() string { return s.URL }

type apiResult struct {
	OK          bool   `json:"ok"`
	Result      any    `json:"result,omitempty"`
	ErrorCode   int    `json:"error_code,omitempty"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters,omitempty"`
}

func write(w http.ResponseWriter, status int, v apiResult) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// params reads a call's parameters from a JSON, form or multipart body.
func params(r *http.Request) (map[string]string, error) {
	out := map[string]string{}
	ct, p, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var m map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil && err != io.EOF {
			return nil, err
		}
		for k, v := range m {
			var s string
			if json.Unmarshal(v, &s) == nil {
				out[k] = s
			} else {
				out[k] = string(v)
			}
		}
	case "multipart/form-data":
		mr := multipart.NewReader(r.Body, p["boundary"])
		for {
			part, err := mr.NextPart()
			// A call without parameters sends an empty body: no parts at all.
			if errors.Is(err, io.EOF) || (err != nil && strings.HasSuffix(err.Error(), "EOF")) {
				break
			}
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(part)
			if err != nil {
				return nil, err
			}
			out[part.FormName()] = string(b)
		}
	default:
		if err := r.ParseForm(); err != nil {
			return nil, err
		}
		for k := range r.PostForm {
			out[k] = r.PostForm.Get(k)
		}
		for k := range r.URL.Query() {
			out[k] = r.URL.Query().Get(k)
		}
	}
	return out, nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot"+s.token+"/")
	if !ok {
		write(w, http.StatusUnauthorized, apiResult{ErrorCode: 401, Description: "Unauthorized"})
		return
	}
	p, err := params(r)
	if err != nil {
		write(w, http.StatusBadRequest, apiResult{ErrorCode: 400, Description: "Bad Request: " + err.Error()})
		return
	}
	s.mu.Lock()
	s.calls[rest]++
	s.mu.Unlock()
	switch rest {
	case "getMe":
		write(w, 200, apiResult{OK: true, Result: map[string]any{"id": 1, "is_bot": true, "first_name": s.bot, "username": s.bot}})
	case "getUpdates":
		s.getUpdates(w, r, p)
	case "sendMessage":
		s.sendMessage(w, p)
	case "editMessageText":
		s.editMessageText(w, p)
	case "answerCallbackQuery":
		s.mu.Lock()
		s.answers = append(s.answers, Answer{CallbackID: p["callback_query_id"], Text: p["text"]})
		s.mu.Unlock()
		write(w, 200, apiResult{OK: true, Result: true})
	default:
		write(w, http.StatusNotFound, apiResult{ErrorCode: 404, Description: "Not Found: method not found"})
	}
}

func (s *Server) getUpdates(w http.ResponseWriter, r *http.Request, p map[string]string) {
	offset, _ := strconv.ParseInt(p["offset"], 10, 64)
	timeout, _ := strconv.Atoi(p["timeout"])
	s.mu.Lock()
	if s.polling {
		s.conflicts++
		s.mu.Unlock()
		write(w, http.StatusConflict, apiResult{ErrorCode: 409, Description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"})
		return
	}
	s.polling = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.polling = false
		s.mu.Unlock()
	}()
	deadline := time.NewTimer(time.Duration(timeout) * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		// An offset confirms every update before it: they are gone for good.
		for len(s.updateIDs) > 0 && s.updateIDs[0] < offset {
			s.updateIDs, s.updates = s.updateIDs[1:], s.updates[1:]
		}
		got := append([]json.RawMessage{}, s.updates...)
		changed := s.changed
		s.mu.Unlock()
		if len(got) > 0 || timeout == 0 {
			write(w, 200, apiResult{OK: true, Result: got})
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-deadline.C:
			write(w, 200, apiResult{OK: true, Result: []json.RawMessage{}})
			return
		case <-changed:
		}
	}
}

// signal wakes the long polls; call with mu held.
func (s *Server) signal() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) sendMessage(w http.ResponseWriter, p map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.tooMany > 0 {
		s.tooMany--
		s.refusedAt = now
		write(w, http.StatusTooManyRequests, apiResult{ErrorCode: 429, Description: fmt.Sprintf("Too Many Requests: retry after %d", s.retryAfter),
			Parameters: map[string]int{"retry_after": s.retryAfter}})
		return
	}
	if !s.refusedAt.IsZero() && now.Before(s.refusedAt.Add(time.Duration(s.retryAfter)*time.Second)) {
		s.earlyAfter429++
	}
	chat, err := strconv.ParseInt(p["chat_id"], 10, 64)
	if err != nil || p["text"] == "" {
		write(w, http.StatusBadRequest, apiResult{ErrorCode: 400, Description: "Bad Request: chat_id and text are required"})
		return
	}
	if n := len([]rune(p["text"])); n > 4096 {
		write(w, http.StatusBadRequest, apiResult{ErrorCode: 400, Description: "Bad Request: message is too long"})
		return
	}
	m := &Message{ID: s.nextID, ChatID: chat, Text: p["text"], SentAt: now}
	s.nextID++
	if err := markup(p["reply_markup"], m); err != nil {
		write(w, http.StatusBadRequest, apiResult{ErrorCode: 400, Description: "Bad Request: " + err.Error()})
		return
	}
	if rp := p["reply_parameters"]; rp != "" {
		var v struct {
			MessageID int64 `json:"message_id"`
		}
		if err := json.Unmarshal([]byte(rp), &v); err != nil {
			write(w, http.StatusBadRequest, apiResult{ErrorCode: 400, Description: "Bad Request: can't parse reply parameters"})
			return
		}
		m.ReplyTo = v.MessageID
	}
	s.messages = append(s.messages, m)
	write(w, 200, apiResult{OK: true, Result: map[string]any{"message_id": m.ID, "date": now.Unix(), "chat": map[string]any{"id": chat, "type": "private"}, "text": m.Text}})
}

// markup reads a reply_markup onto m, refusing buttons Telegram refuses.
func markup(raw string, m *Message) error {
	m.Buttons, m.ForceReply = nil, false
	if raw == "" {
		return nil
	}
	var v struct {
		InlineKeyboard [][]map[string]any `json:"inline_keyboard"`
		ForceReply     bool               `json:"force_reply"`
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return fmt.Errorf("can't parse reply keyboard markup JSON object")
	}
	m.ForceReply = v.ForceReply
	for _, row := range v.InlineKeyboard {
		var out []Button
		for _, b := range row {
			if _, ok := b["copy_text"]; ok {
				return fmt.Errorf("BUTTON_COPY_TEXT_INVALID")
			}
			text, _ := b["text"].(string)
			data, _ := b["callback_data"].(string)
			if text == "" || len(data) < 1 || len(data) > 64 {
				return fmt.Errorf("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
			}
			out = append(out, Button{Text: text, Data: data})
		}
		m.Buttons = append(m.Buttons, out)
	}
	return nil
}

func (s *Server) editMessageText(w http.ResponseWriter, p map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, _ := strconv.ParseInt(p["message_id"], 10, 64)
	for _, m := range s.messages {
		if m.ID != id {
			continue
		}
		next := *m
		next.Text = p["text"]
		if err := markup(p["reply_markup"], &next); err != nil {
			write(w, http.StatusBadRequest, apiResult{ErrorCode: 400, Description: "Bad Request: " + err.Error()})
			return
		}
		if next.Text == m.Text && len(next.Buttons) == len(m.Buttons) {
			write(w, http.StatusBadRequest, apiResult{ErrorCode: 400, Description: "Bad Request: message is not modified"})
			return
		}
		next.Edits++
		*m = next
		write(w, 200, apiResult{OK: true, Result: map[string]any{"message_id": m.ID, "date": time.Now().Unix(), "chat": map[string]any{"id": m.ChatID}, "text": m.Text}})
		return
	}
	write(w, http.StatusBadRequest, apiResult{ErrorCode: 400, Description: "Bad Request: message to edit not found"})
}

// push queues an update.
func (s *Server) push(u map[string]any) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastUpdate++
	id := s.lastUpdate
	u["update_id"] = id
	raw, _ := json.Marshal(u)
	s.updates = append(s.updates, raw)
	s.updateIDs = append(s.updateIDs, id)
	s.signal()
	return id
}

// Press presses the button with data on message id, as user from; it
// returns the callback query's id.
func (s *Server) Press(from, messageID int64, data string) string {
	s.mu.Lock()
	var chat int64
	var text string
	for _, m := range s.messages {
		if m.ID == messageID {
			chat, text = m.ChatID, m.Text
		}
	}
	s.mu.Unlock()
	cb := fmt.Sprintf("cb-%d-%d", messageID, time.Now().UnixNano())
	s.push(map[string]any{"callback_query": map[string]any{
		"id": cb, "from": map[string]any{"id": from, "is_bot": false, "first_name": "u"}, "data": data, "chat_instance": "1",
		"message": map[string]any{"message_id": messageID, "date": time.Now().Unix(), "chat": map[string]any{"id": chat, "type": "private"}, "text": text},
	}})
	return cb
}

// SendText sends text to the bot in chat, as user from, replying to
// message replyTo (zero for none).
func (s *Server) SendText(from, chat, replyTo int64, text string) {
	s.mu.Lock()
	id := s.nextID
	s.nextID++
	s.mu.Unlock()
	msg := map[string]any{"message_id": id, "date": time.Now().Unix(), "from": map[string]any{"id": from, "is_bot": false, "first_name": "u"},
		"chat": map[string]any{"id": chat, "type": "private"}, "text": text}
	if replyTo != 0 {
		msg["reply_to_message"] = map[string]any{"message_id": replyTo, "date": time.Now().Unix(), "chat": map[string]any{"id": chat, "type": "private"}}
	}
	s.push(map[string]any{"message": msg})
}

// TooMany answers the next n sendMessage calls 429 with retryAfter seconds.
func (s *Server) TooMany(n, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tooMany, s.retryAfter = n, retryAfter
}

// Messages returns a copy of every message the bot sent, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.messages))
	for i, m := range s.messages {
		out[i] = *m
	}
	return out
}

// Answers returns the answerCallbackQuery calls, oldest first.
func (s *Server) Answers() []Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Answer{}, s.answers...)
}

// Conflicts counts the 409s answered to a second getUpdates consumer.
func (s *Server) Conflicts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conflicts
}

// EarlyAfter429 counts the messages accepted before a 429's retry_after passed.
func (s *Server) EarlyAfter429() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.earlyAfter429
}

// Pending counts the updates not yet confirmed by a consumer's offset.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.updates)
}

// Calls counts the calls of method.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}
