package settings

// Mastodon are the administrator's choices that only Mastodon knows of.
type Mastodon struct {
	// ReplyToDirect lets a direct mention (visibility direct) be answered,
	// always direct, never wider; off, such mentions are left unanswered
	// (skipped with reason direct_message). The worker reads it at every
	// scan and send, so a change applies without a restart.
	ReplyToDirect bool `json:"reply_to_direct"`
}

// DefaultMastodon is a fresh install's: direct mentions are not answered.
func DefaultMastodon() Mastodon {
	return Mastodon{}
}
