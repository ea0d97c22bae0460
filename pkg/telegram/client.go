package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"infernal/pkg/upstream"
)

// DefaultAPIBaseURL is Telegram's Bot API.
const DefaultAPIBaseURL = "https://api.telegram.org"

// pollSeconds is how long one getUpdates long poll waits for an update.
const pollSeconds = 25

// ErrConflict is Telegram's 409 to getUpdates: another consumer polls.
var ErrConflict = errors.New("telegram: another consumer polls getUpdates")

// RetryError is Telegram's 429: nothing may be sent before After passes.
type RetryError struct {
	After time.Duration
}

// Error says how long to wait.
func (e *RetryError) Error() string {
	return fmt.Sprintf("telegram: too many requests, retry after %s", e.After)
}

// Button is one inline keyboard button.
type Button struct {
	Text string `json:"text"`
	// Data comes back in the callback query when pressed, 1 to 64 bytes.
	Data string `json:"callback_data"`
}

// inlineKeyboard is Telegram's InlineKeyboardMarkup with callback buttons
// only: the library's own button type always sends an empty copy_text,
// which Telegram refuses (BUTTON_COPY_TEXT_INVALID).
type inlineKeyboard struct {
	InlineKeyboard [][]Button `json:"inline_keyboard"`
}

// forceReply asks the administrator's app to open a reply to the message.
type forceReply struct {
	ForceReply bool   `json:"force_reply"`
	Selective  bool   `json:"selective,omitempty"`
	Holder     string `json:"input_field_placeholder,omitempty"`
}

// Client speaks the Bot API: go-telegram/bot sends and edits; getUpdates is
// called here, since the library's poller confirms updates before they are
// applied (a crash would lose them) and keeps its offset in memory. No
// error it returns holds the token.
type Client struct {
	bot     *bot.Bot
	token   string
	baseURL string
	http    *http.Client
}

// NewClient returns a client of the bot with token at baseURL
// (DefaultAPIBaseURL when empty).
func NewClient(token, baseURL string) (*Client, error) {
	if baseURL == "" {
		baseURL = DefaultAPIBaseURL
	}
	baseURL = strings.TrimRight(baseURL, "/")
	hc := &http.Client{Timeout: (pollSeconds + 10) * time.Second}
	b, err := bot.New(token, bot.WithServerURL(baseURL), bot.WithSkipGetMe(), bot.WithHTTPClient(pollSeconds*time.Second, hc),
		bot.WithErrorsHandler(func(error) {}))
	if err != nil {
		return nil, fmt.Errorf("telegram: client: %w", redactErr(err, token))
	}
	return &Client{bot: b, token: token, baseURL: baseURL, http: hc}, nil
}

// Me returns the bot's username.
func (c *Client) Me(ctx context.Context) (string, error) {
	u, err := c.bot.GetMe(ctx)
	if err != nil {
		return "", c.fail("getMe", err)
	}
	return u.Username, nil
}

// Message is what Send and Edit write.
type Message struct {
	Text string
	// Buttons are the inline keyboard's rows; none removes the keyboard.
	Buttons [][]Button
	// ReplyTo is the message this one answers, zero for none.
	ReplyTo int64
	// AskReply opens a reply to this message in the administrator's app,
	// with Placeholder in its input field.
	AskReply    bool
	Placeholder string
}

// markup is m's reply markup, nil for none.
func (m Message) markup() any {
	switch {
	case len(m.Buttons) > 0:
		return inlineKeyboard{InlineKeyboard: m.Buttons}
	case m.AskReply:
		return forceReply{ForceReply: true, Holder: m.Placeholder}
	}
	return nil
}

// Send sends m to chat and returns its message id.
func (c *Client) Send(ctx context.Context, chat int64, m Message) (int64, error) {
	p := &bot.SendMessageParams{ChatID: chat, Text: m.Text, ReplyMarkup: m.markup()}
	if m.ReplyTo != 0 {
		p.ReplyParameters = &models.ReplyParameters{MessageID: int(m.ReplyTo), AllowSendingWithoutReply: true}
	}
	sent, err := c.bot.SendMessage(ctx, p)
	if err != nil {
		return 0, c.fail("sendMessage", err)
	}
	return int64(sent.ID), nil
}

// Edit replaces the text and keyboard of message id in chat. A message
// that already reads so is no error.
func (c *Client) Edit(ctx context.Context, chat, id int64, m Message) error {
	_, err := c.bot.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: chat, MessageID: int(id), Text: m.Text, ReplyMarkup: m.markup()})
	if err != nil && strings.Contains(err.Error(), "message is not modified") {
		return nil
	}
	if err != nil {
		return c.fail("editMessageText", err)
	}
	return nil
}

// Answer answers a button press with a short notice.
func (c *Client) Answer(ctx context.Context, callbackID, text string) error {
	if _, err := c.bot.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: callbackID, Text: text}); err != nil {
		return c.fail("answerCallbackQuery", err)
	}
	return nil
}

// Updates long-polls the updates after offset (the last applied id),
// waiting up to wait for one to arrive.
func (c *Client) Updates(ctx context.Context, offset int64, wait time.Duration) ([]Update, error) {
	body, err := json.Marshal(map[string]any{
		"offset": offset + 1, "timeout": int(wait.Seconds()), "allowed_updates": []string{"message", "callback_query"},
	})
	if err != nil {
		return nil, fmt.Errorf("telegram: getUpdates: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/bot"+c.token+"/getUpdates", bytes.NewReader(body))
	if err != nil {
		return nil, c.fail("getUpdates", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.fail("getUpdates", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, c.fail("getUpdates", err)
	}
	var out struct {
		OK          bool     `json:"ok"`
		Result      []Update `json:"result"`
		ErrorCode   int      `json:"error_code"`
		Description string   `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("telegram: getUpdates: HTTP %d, not the Bot API's JSON: %w", resp.StatusCode, err)
	}
	switch {
	case out.OK:
		return out.Result, nil
	case out.ErrorCode == http.StatusConflict:
		return nil, fmt.Errorf("%w: %s", ErrConflict, c.redact(out.Description))
	case out.ErrorCode == http.StatusTooManyRequests:
		return nil, &RetryError{After: time.Duration(max(out.Parameters.RetryAfter, 1)) * time.Second}
	}
	return nil, fmt.Errorf("telegram: getUpdates: %d %s", out.ErrorCode, c.redact(out.Description))
}

// fail wraps a failed call's error, free of the token and told by a short
// single-line excerpt (the client library quotes a body that is not the
// Bot API's JSON, a gateway's HTML page, whole); a 429 becomes a
// *RetryError.
func (c *Client) fail(method string, err error) error {
	var tooMany *bot.TooManyRequestsError
	if errors.As(err, &tooMany) {
		return &RetryError{After: time.Duration(max(tooMany.RetryAfter, 1)) * time.Second}
	}
	return fmt.Errorf("telegram: %s: %w", method, upstream.Error(redactErr(err, c.token)))
}

// redact removes the token from s, an upstream text, and makes it a short
// single-line excerpt.
func (c *Client) redact(s string) string { return upstream.Excerpt(redactString(s, c.token)) }

// redactString replaces every occurrence of token in s.
func redactString(s, token string) string {
	if token == "" {
		return s
	}
	// Square brackets: the excerpt drops what looks like an HTML tag.
	return strings.ReplaceAll(s, token, "[token]")
}

// redactErr is err with the token removed from its text. The Bot API's URL
// holds the token, and net/http's errors name the URL.
func redactErr(err error, token string) error {
	if err == nil || token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return errors.New(redactString(err.Error(), token))
}

// Update is one update from getUpdates, the kinds the bot takes.
type Update struct {
	ID            int64          `json:"update_id"`
	Message       *InMessage     `json:"message"`
	CallbackQuery *CallbackQuery `json:"callback_query"`
}

// User is a Telegram user.
type User struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

// Chat is a Telegram chat.
type Chat struct {
	ID int64 `json:"id"`
}

// InMessage is a message the bot received.
type InMessage struct {
	ID      int64      `json:"message_id"`
	From    *User      `json:"from"`
	Chat    Chat       `json:"chat"`
	Text    string     `json:"text"`
	ReplyTo *InMessage `json:"reply_to_message"`
}

// CallbackQuery is a press of an inline button.
type CallbackQuery struct {
	ID      string     `json:"id"`
	From    User       `json:"from"`
	Message *InMessage `json:"message"`
	Data    string     `json:"data"`
}
