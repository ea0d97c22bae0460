package post

import "time"

// Channel is where a decision on a post came from.
type Channel string

// The channels of a decision.
const (
	// ByWeb is a decision on one card in the web admin.
	ByWeb Channel = "web"
	// ByBulk is a decision on several cards at once in the web admin.
	ByBulk Channel = "bulk"
	// ByTelegram is a decision made in the Telegram review chat.
	ByTelegram Channel = "telegram"
	// ByAutopilot is an approval by the administrator's autopilot rules.
	ByAutopilot Channel = "autopilot"
)

// Action is what a decision did.
type Action string

// The actions of a decision.
const (
	// ActionApprove approved the draft (with an edited text, if any).
	ActionApprove Action = "approve"
	// ActionReject rejected it.
	ActionReject Action = "reject"
	// ActionEdit saved an edited text without approving it.
	ActionEdit Action = "edit"
	// ActionRegenerate asked the writer for a new draft.
	ActionRegenerate Action = "regenerate"
	// ActionCancel withdrew an approval before it was sent.
	ActionCancel Action = "cancel"
	// ActionDraftAnyway overrode the guard that skipped the post: it is
	// drafted after all.
	ActionDraftAnyway Action = "draft_anyway"
	// ActionMarkPosted recorded that the reply awaiting hand-posting was
	// posted by hand.
	ActionMarkPosted Action = "mark_posted"
	// ActionGiveUp gave up the reply awaiting hand-posting: it is rejected.
	ActionGiveUp Action = "give_up"
)

// Decision is one decision in a post's history.
type Decision struct {
	Action Action
	By     Channel
	// DraftVersion is the version the decision was made on.
	DraftVersion int
	// Detail is what the channel adds, such as the autopilot rule that matched.
	Detail map[string]any
	At     time.Time
}
