package telegram

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"infernal/pkg/decision"
	"infernal/pkg/guard"
	"infernal/pkg/learning"
	"infernal/pkg/post"
	"infernal/pkg/store"
)

// Apply carries out one update: a button press or a message. Only the
// administrator may act; anyone else is answered TextNotAllowed and logged
// by user id, never by what they wrote. Every decision names the draft
// version the card showed, so a press applied twice decides once.
func (s *Service) Apply(ctx context.Context, u Update) {
	switch {
	case u.CallbackQuery != nil:
		s.press(ctx, u.CallbackQuery)
	case u.Message != nil:
		s.message(ctx, u.Message)
	}
}

// press carries out a button press.
func (s *Service) press(ctx context.Context, q *CallbackQuery) {
	if q.From.ID != s.cfg.Admin {
		s.log.WarnContext(ctx, "telegram: a button pressed by someone else; nothing changed", "user_id", q.From.ID)
		s.answer(ctx, q.ID, TextNotAllowed)
		return
	}
	act, id, version, err := parseData(q.Data)
	if err != nil {
		s.answer(ctx, q.ID, "Unknown button")
		return
	}
	shown := &version
	var answer string
	switch act {
	case actApprove:
		_, err = s.cfg.Decider.Approve(ctx, id, decision.Approval{Shown: shown, By: post.ByTelegram})
		answer = TextApproved
	case actReject:
		_, err = s.cfg.Decider.Reject(ctx, id, shown, post.ByTelegram)
		answer = TextRejected
		if err == nil {
			// The quick reasons follow; answering them is optional.
			if _, rerr := s.send(ctx, ReasonPrompt(id)); rerr != nil {
				s.log.WarnContext(ctx, "telegram: the reason prompt not sent", "post_id", id, "error", rerr)
			}
		}
	case actReason:
		err = s.reason(ctx, id, version, q.Message)
		answer = TextReasonNoted
	case actRegenerate:
		_, err = s.cfg.Decider.Regenerate(ctx, id, "", shown, post.ByTelegram)
		answer = TextRegenerating
	case actEdit:
		err = s.askEdit(ctx, id, version, q.Message)
		answer = "Send the new text as a reply"
	case actCancel:
		err = s.cancel(ctx, id, q.Message)
		answer = TextCancelled
	}
	if err != nil {
		answer = s.refusal(ctx, id, err)
	}
	s.answer(ctx, q.ID, answer)
}

// reason keeps quick reason n (learning.QuickReasons, from 1) as post
// id's rejection reason, and shows it on the prompt pressed.
func (s *Service) reason(ctx context.Context, id int64, n int, prompt *InMessage) error {
	if n < 1 || n > len(learning.QuickReasons) {
		return errBadData
	}
	r := learning.QuickReasons[n-1]
	if err := s.cfg.Decider.Reason(ctx, id, r); err != nil {
		return err
	}
	if prompt != nil {
		return s.edit(ctx, prompt.Chat.ID, prompt.ID, ReasonGiven(id, r))
	}
	return nil
}

// cancel withdraws post id's auto-approval, closes its card (the one
// pressed) and sends a fresh card of the draft, back in review.
func (s *Service) cancel(ctx context.Context, id int64, card *InMessage) error {
	p, err := s.cfg.Decider.Cancel(ctx, id, post.ByTelegram)
	if err != nil {
		return err
	}
	if card != nil {
		m, err := s.cfg.Store.TelegramMessageByID(ctx, card.Chat.ID, card.ID)
		if err == nil {
			if err := s.edit(ctx, m.ChatID, m.MessageID, Closed(m.Text, TextCancelled)); err != nil {
				return err
			}
			err = s.cfg.Store.SetTelegramOutcome(ctx, m.ChatID, m.MessageID, TextCancelled, false)
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return s.sendCard(ctx, p)
}

// askEdit asks for the new text of post id's draft version, checking first
// that it is still the one shown.
func (s *Service) askEdit(ctx context.Context, id int64, version int, card *InMessage) error {
	p, err := s.cfg.Store.Post(ctx, id)
	if err != nil {
		return err
	}
	if !post.Regenerable(p.Status) {
		return &post.StateError{ID: id, Have: p.Status, Want: post.StatusPending}
	}
	if err := post.CheckShown(p, &version); err != nil {
		return err
	}
	m := Message{Text: EditPrompt(id), AskReply: true, Placeholder: "The new text"}
	if card != nil {
		m.ReplyTo = card.ID
	}
	text := m.Text
	msgID, err := s.send(ctx, m)
	if err != nil {
		return err
	}
	return s.cfg.Store.AddTelegramMessage(ctx, store.TelegramMessage{ChatID: s.cfg.Chat, MessageID: msgID, Kind: "edit",
		PostID: id, DraftVersion: version, Open: true, Text: text})
}

// refusal is the answer to a decision the domain refused; a stale version
// also brings the current draft as a new card.
func (s *Service) refusal(ctx context.Context, id int64, err error) string {
	var stale *post.VersionError
	var state *post.StateError
	var length *post.LengthError
	var content *post.ContentError
	var flagged *guard.OverrideError
	var started *store.SendStartedError
	switch {
	case errors.As(err, &started):
		return TextSendStarted
	case errors.As(err, &stale):
		if p, perr := s.cfg.Store.Post(ctx, id); perr == nil && p.Status == post.StatusPending {
			if cerr := s.sendCard(ctx, p); cerr != nil {
				s.log.WarnContext(ctx, "telegram: the current draft not sent", "post_id", id, "error", cerr)
			}
		}
		return TextStale
	case errors.As(err, &state):
		return TextAlreadyDecided
	case errors.As(err, &length):
		return TooLong(length.Length, length.Max)
	case errors.As(err, &content):
		return content.Reason
	case errors.As(err, &flagged):
		return "Flagged (" + strings.Join(flagged.Flags, ", ") + "): approve it in the web admin"
	case errors.Is(err, store.ErrNotFound):
		return "No such draft"
	}
	s.log.ErrorContext(ctx, "telegram: decision failed", "post_id", id, "error", err)
	return "Failed; try again or use the web admin"
}

// answer answers a press, logging a failure (the press is applied).
func (s *Service) answer(ctx context.Context, callbackID, text string) {
	if err := s.cfg.Messenger.Answer(ctx, callbackID, text); err != nil {
		s.log.WarnContext(ctx, "telegram: press not answered", "error", err)
	}
}

// message carries out a message: a command, an edited text (a reply to an
// edit prompt) or a redraft instruction (a reply to a card).
func (s *Service) message(ctx context.Context, m *InMessage) {
	if m.From == nil || m.From.ID != s.cfg.Admin {
		var from int64
		if m.From != nil {
			from = m.From.ID
		}
		s.log.WarnContext(ctx, "telegram: a message from someone else; nothing changed", "user_id", from)
		// In a group, only an attempt to act is answered, not every chat line.
		if m.Chat.ID > 0 || strings.HasPrefix(m.Text, "/") || m.ReplyTo != nil {
			s.reply(ctx, m.Chat.ID, m.ID, TextNotAllowed)
		}
		return
	}
	text := strings.TrimSpace(m.Text)
	if m.ReplyTo != nil {
		s.replyTo(ctx, m, text)
		return
	}
	cmd, _, _ := strings.Cut(text, " ")
	cmd, _, _ = strings.Cut(cmd, "@")
	switch cmd {
	case "/queue":
		s.reply(ctx, m.Chat.ID, m.ID, s.queueText(ctx))
	case "/pause":
		// The operator's pause stops every platform (Platform "").
		err := s.cfg.Store.SetPause(ctx, store.Pause{Refusal: store.OperatorRefusal, Reason: "paused from Telegram"})
		s.reply(ctx, m.Chat.ID, m.ID, outcomeOf(err, "Paused: scanning and sending stop until /resume."))
	case "/resume":
		lifted, err := s.cfg.Store.Resume(ctx)
		done := "Resumed."
		if !lifted {
			done = "Nothing was paused."
		}
		s.reply(ctx, m.Chat.ID, m.ID, outcomeOf(err, done))
	default:
		s.reply(ctx, m.Chat.ID, m.ID, "Press a card's buttons, reply to a card with an instruction to redraft it, or use /queue, /pause, /resume.")
	}
}

// outcomeOf is done, or a failure notice when err is set.
func outcomeOf(err error, done string) string {
	if err != nil {
		return "Failed: " + err.Error()
	}
	return done
}

// replyTo carries out a reply to one of the bot's messages.
func (s *Service) replyTo(ctx context.Context, m *InMessage, text string) {
	to, err := s.cfg.Store.TelegramMessageByID(ctx, m.Chat.ID, m.ReplyTo.ID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && to.PostID == 0) {
		s.reply(ctx, m.Chat.ID, m.ID, "Reply to a draft's card, or to an edit prompt.")
		return
	}
	if err != nil {
		s.log.ErrorContext(ctx, "telegram: reply not matched", "error", err)
		return
	}
	version := to.DraftVersion
	switch to.Kind {
	case "edit":
		if _, err := s.cfg.Decider.Edit(ctx, to.PostID, text, &version, post.ByTelegram); err != nil {
			s.reply(ctx, m.Chat.ID, m.ID, s.refusal(ctx, to.PostID, err))
		}
		// The edited draft arrives as a fresh card; the old one is marked replaced.
	case "card":
		instruction, err := post.CheckInstruction(text)
		if err != nil {
			s.reply(ctx, m.Chat.ID, m.ID, fmt.Sprintf("An instruction is one line of at most %d characters.", post.MaxInstruction))
			return
		}
		if _, err := s.cfg.Decider.Regenerate(ctx, to.PostID, instruction, &version, post.ByTelegram); err != nil {
			s.reply(ctx, m.Chat.ID, m.ID, s.refusal(ctx, to.PostID, err))
			return
		}
		s.reply(ctx, m.Chat.ID, m.ID, TextRegenerating)
	default:
		s.reply(ctx, m.Chat.ID, m.ID, "Reply to a draft's card, or to an edit prompt.")
	}
}

// reply sends text in answer to message id of chat.
func (s *Service) reply(ctx context.Context, chat, id int64, text string) {
	if _, err := s.sendTo(ctx, chat, Message{Text: text, ReplyTo: id}); err != nil {
		s.log.WarnContext(ctx, "telegram: reply not sent", "error", err)
	}
}

// queueText is /queue's answer.
func (s *Service) queueText(ctx context.Context) string {
	a, err := s.cfg.Store.AdminStats(ctx)
	if err != nil {
		return "Failed: " + err.Error()
	}
	oldest, err := s.cfg.Store.OldestPending(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return QueueText(0, 0, nil, s.now())
	}
	if err != nil {
		return "Failed: " + err.Error()
	}
	return QueueText(a.Pending, a.PendingMentions, &oldest, s.now())
}
