package guard

// The starts of the reasons a skipped post stores, beside ReasonConversationCap
// and ReasonAuthorCap; the pipeline adds what matched after a colon, as in
// `opt-out: "leave me alone"` or `blocked phrase: "scam coin"`.
const (
	// ReasonOwnPost is a post of the persona itself (SameHandle).
	ReasonOwnPost = "own post"
	// ReasonOptOut is a post whose author asked the persona to stop (OptOut).
	ReasonOptOut = "opt-out"
	// ReasonBlockedAuthor is a post of a blocked author (BlockedAuthor).
	ReasonBlockedAuthor = "blocked author"
	// ReasonBlockedPhrase is a post holding a blocked phrase (MatchPhrase).
	ReasonBlockedPhrase = "blocked phrase"
	// ReasonLowReview is a draft the judge scored below the administrator's
	// minimum (settings' caps.min_review_score), as in
	// `second opinion: 2/5: mocks the mortal`.
	ReasonLowReview = "second opinion"
)
