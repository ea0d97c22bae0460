// Package spend is what the persona costs, in one place: X's pay-per-use
// unit prices and the model's token prices, what sending a post will cost,
// the ledger's records (kept by pkg/store), the Meter that records every
// billable call and sums them, and the Gate that holds scans, sends and
// drafts back at the budgets' ceilings.
package spend

import (
	"infernal/pkg/post"
	"infernal/pkg/twittertext"
)

// Prices are X's unit prices in USD and the model's per-million-token
// prices (config X_PRICE_* and OPENAI_*_USD_PER_MILLION).
type Prices struct {
	// PostRead is a post read (search, another account's posts, lookups).
	PostRead float64
	// UserRead is a user read (a lookup by handle).
	UserRead float64
	// OwnedRead is a read of the persona's own mentions or timeline.
	OwnedRead float64
	// MediaRead is a media object returned with posts (X's "Media: Read").
	MediaRead float64
	// PostCreate is a post created.
	PostCreate float64
	// PostCreateSummoned is a reply to a post that summoned the persona
	// (mentioned it or quoted one of its posts), without a link.
	PostCreateSummoned float64
	// PostCreateURL is a post created with a link in it.
	PostCreateURL float64
	// PromptPerM and CompletionPerM price a million tokens of the model.
	PromptPerM     float64
	CompletionPerM float64
	// RepliesSummon says that every reply posted through the API answers a
	// post that summoned the persona (X_REPLY_POLICY=summoned: X refuses
	// the others), so that it is priced PostCreateSummoned; under the open
	// policy an API reply is priced PostCreate, the dearer.
	RepliesSummon bool
}

// DefaultPrices are X's 2026 pay-per-use prices (price list of
// 2026-04-16) and gpt-4o-mini's, under the summoned reply policy.
func DefaultPrices() Prices {
	return Prices{PostRead: 0.005, UserRead: 0.010, OwnedRead: 0.001, MediaRead: 0.005, PostCreate: 0.015, PostCreateSummoned: 0.010,
		PostCreateURL: 0.20, PromptPerM: 0.15, CompletionPerM: 0.60, RepliesSummon: true}
}

// SendCost is what sending text through route costs, and whether the link
// it holds makes it the dearer kind: the price of SendKind; summoned says
// that the post answered summoned the persona. A hand-posted reply
// (post.RouteManual) goes through X's web intent and costs the API nothing.
func (p Prices) SendCost(route post.Route, summoned bool, text string) (usd float64, withLink bool) {
	if route == post.RouteManual {
		return 0, false
	}
	kind := p.SendKind(route == post.RouteAPI, summoned, text)
	return p.Unit(kind), kind == KindPostCreateURL
}

// SendKind is the kind X bills a post of text as: with a link
// KindPostCreateURL; a reply (reply) to a post that summoned the persona
// (summoned, or every API reply under RepliesSummon)
// KindPostCreateSummoned, under every reply policy, as X bills it; else
// KindPostCreate. The client's meter and the send's price both use it.
func (p Prices) SendKind(reply, summoned bool, text string) Kind {
	switch {
	case twittertext.HasLink(text):
		return KindPostCreateURL
	case reply && (summoned || p.RepliesSummon):
		return KindPostCreateSummoned
	}
	return KindPostCreate
}

// ModelCost prices one answer of the model.
func (p Prices) ModelCost(promptTokens, completionTokens int) float64 {
	return (float64(promptTokens)*p.PromptPerM + float64(completionTokens)*p.CompletionPerM) / 1e6
}

// Kind is the kind of resource X bills a call for.
type Kind string

// The kinds of billed resources.
const (
	KindPostRead  Kind = "post_read"
	KindUserRead  Kind = "user_read"
	KindOwnedRead Kind = "owned_read"
	// KindMediaRead is a media object of a post read (includes.media).
	KindMediaRead     Kind = "media_read"
	KindPostCreate    Kind = "post_create"
	KindPostCreateURL Kind = "post_create_url"
	// KindPostCreateSummoned is a reply to a post that summoned the persona.
	KindPostCreateSummoned Kind = "post_create_summoned"
)

// Unit is the price of one resource of kind.
func (p Prices) Unit(kind Kind) float64 {
	switch kind {
	case KindPostRead:
		return p.PostRead
	case KindUserRead:
		return p.UserRead
	case KindOwnedRead:
		return p.OwnedRead
	case KindMediaRead:
		return p.MediaRead
	case KindPostCreate:
		return p.PostCreate
	case KindPostCreateURL:
		return p.PostCreateURL
	case KindPostCreateSummoned:
		return p.PostCreateSummoned
	}
	return 0
}

// Budgets are the spending ceilings in USD per UTC day and month
// (X_DAILY_BUDGET_USD, X_MONTHLY_BUDGET_USD, MODEL_DAILY_BUDGET_USD,
// MODEL_MONTHLY_BUDGET_USD); 0 means no ceiling.
type Budgets struct {
	XDaily       float64
	XMonthly     float64
	ModelDaily   float64
	ModelMonthly float64
}

// LimitsX reports whether any X ceiling is set; without one no scan or
// send ever waits for the X budget.
func (b Budgets) LimitsX() bool { return b.XDaily > 0 || b.XMonthly > 0 }

// LimitsModel reports whether any model ceiling is set; without one no
// draft ever waits for the model budget.
func (b Budgets) LimitsModel() bool { return b.ModelDaily > 0 || b.ModelMonthly > 0 }

// WarnShare is the share of a ceiling at which the dashboard warns.
const WarnShare = 0.8

// Fits reports whether spending more on top of spent stays within ceiling
// (0: none).
func Fits(spent, more, ceiling float64) bool {
	return ceiling <= 0 || spent+more <= ceiling+1e-9
}
