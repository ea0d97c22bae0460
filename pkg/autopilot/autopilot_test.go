package autopilot_test

import (
	"strings"
	"testing"

	"infernal/pkg/autopilot"
	"infernal/pkg/post"
	"infernal/pkg/settings"
)

// rules trust @friend, review 5, sloth and pride only, 5 an hour.
func rules() settings.Autopilot {
	a := settings.DefaultAutopilot()
	a.Enabled = true
	a.Authors = []string{"friend"}
	a.Categories = []string{"sloth", "pride"}
	return a
}

// facts are a draft that qualifies under rules.
func facts() autopilot.Facts {
	return autopilot.Facts{Post: post.Post{
		ID: 1, Status: post.StatusPending, AuthorUsername: "Friend", Category: "sloth", ReplyRoute: post.RouteAPI,
		Review: &post.Review{Score: 5, Reason: "sharp"}, Flags: []string{},
	}, RecentApprovals: 4}
}

func TestQualify(t *testing.T) {
	t.Parallel()
	detail, why := autopilot.Qualify(rules(), facts())
	if why != "" {
		t.Fatalf("the qualifying draft was refused: %s", why)
	}
	if detail["summary"] != "Auto-approved: trusted author @friend, review 5/5" || detail["author"] != "friend" || detail["review_score"] != 5 {
		t.Errorf("detail = %v", detail)
	}

	any := rules()
	any.AnyAuthor, any.Authors, any.Categories = true, []string{}, []string{}
	f := facts()
	f.Post.AuthorUsername, f.Post.Category = "stranger", "wrath"
	detail, why = autopilot.Qualify(any, f)
	if why != "" || detail["summary"] != "Auto-approved: any author, review 5/5" || detail["any_author"] != true {
		t.Errorf("any author: detail = %v, why = %q", detail, why)
	}

	// Each condition alone blocks.
	tests := []struct {
		name  string
		rules func(*settings.Autopilot)
		facts func(*autopilot.Facts)
		want  string
	}{
		{name: "autopilot off", rules: func(a *settings.Autopilot) { a.Enabled = false }, want: "off"},
		{name: "not pending", facts: func(f *autopilot.Facts) { f.Post.Status = post.StatusApproved }, want: "not pending"},
		{name: "unjudged", facts: func(f *autopilot.Facts) { f.Post.Review = nil }, want: "unjudged"},
		{name: "score below", facts: func(f *autopilot.Facts) { f.Post.Review = &post.Review{Score: 4} }, want: "below"},
		{name: "stranger", facts: func(f *autopilot.Facts) { f.Post.AuthorUsername = "stranger" }, want: "not a trusted author"},
		// A trusted X handle names no one on Mastodon or Bluesky: there a name alike is another person.
		{name: "the name on Mastodon", facts: func(f *autopilot.Facts) { f.Post.Platform = post.MastodonPlatform }, want: "not a trusted author"},
		{name: "the name on Bluesky", facts: func(f *autopilot.Facts) { f.Post.Platform = post.BlueskyPlatform }, want: "not a trusted author"},
		{name: "category", facts: func(f *autopilot.Facts) { f.Post.Category = "wrath" }, want: "category"},
		{name: "hand-posted route", facts: func(f *autopilot.Facts) { f.Post.ReplyRoute = post.RouteManual }, want: "API"},
		{name: "near-duplicate", facts: func(f *autopilot.Facts) { f.Post.Flags = []string{"near_duplicate"} }, want: "flagged"},
		{name: "link", facts: func(f *autopilot.Facts) { f.Post.Flags = []string{"link"} }, want: "flagged"},
		{name: "edited by a person", facts: func(f *autopilot.Facts) { f.HumanDecided = true }, want: "person"},
		{name: "paused", facts: func(f *autopilot.Facts) { f.Paused = true }, want: "pause"},
		{name: "spend ceiling", facts: func(f *autopilot.Facts) { f.SpendBlocked = true }, want: "spend"},
		{name: "send caps", facts: func(f *autopilot.Facts) { f.CapsFull = true }, want: "caps"},
		{name: "hour used up", facts: func(f *autopilot.Facts) { f.RecentApprovals = 5 }, want: "last hour"},
		{name: "max per hour 0", rules: func(a *settings.Autopilot) { a.MaxPerHour = 0 }, facts: func(f *autopilot.Facts) { f.RecentApprovals = 0 }, want: "last hour"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, f := rules(), facts()
			if tt.rules != nil {
				tt.rules(&r)
			}
			if tt.facts != nil {
				tt.facts(&f)
			}
			detail, why := autopilot.Qualify(r, f)
			if detail != nil || !strings.Contains(why, tt.want) {
				t.Errorf("Qualify() = %v, %q; want refused with %q", detail, why, tt.want)
			}
		})
	}
}
