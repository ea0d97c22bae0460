package e2e

import (
	"encoding/json"
	"strconv"
	"testing"

	"infernal/pkg/post"
	"infernal/pkg/twittertext"
)

// The reviewer's controls end to end: a regenerated draft comes back from
// the worker through the queue, the history keeps both versions, and a
// bulk approval sends what it approved and reports what it could not.
func TestRegenerateAndBulkThroughTheWorker(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.startWorker()
	s.runScans()
	m := s.waitForList("/api/posts/mentions", 1)[0]
	path := "/api/posts/" + strconv.FormatInt(m.ID, 10)

	status, body := s.do("POST", path+"/regenerate", `{"instruction":"shorter"}`)
	if status != 200 {
		t.Fatalf("regenerate: %d %s", status, body)
	}
	var regenerated listed
	if err := json.Unmarshal(body, &regenerated); err != nil || regenerated.ProposedResponse == "" || regenerated.ProposedResponse == m.ProposedResponse {
		t.Fatalf("regenerated draft %q, was %q (%v)", regenerated.ProposedResponse, m.ProposedResponse, err)
	}
	if twittertext.WeightedLength(regenerated.ProposedResponse) >= twittertext.WeightedLength(m.ProposedResponse) {
		t.Errorf("asked for shorter, got %q after %q", regenerated.ProposedResponse, m.ProposedResponse)
	}
	status, body = s.call("GET", path+"/history")
	var h struct {
		Versions []struct{ Text, Origin, Instruction string }
	}
	if err := json.Unmarshal(body, &h); status != 200 || err != nil || len(h.Versions) != 2 {
		t.Fatalf("history: %d %s (%v)", status, body, err)
	}
	if v := h.Versions; v[0].Origin != "writer" || v[0].Text != m.ProposedResponse ||
		v[1].Origin != "regenerate" || v[1].Instruction != "shorter" || v[1].Text != regenerated.ProposedResponse {
		t.Errorf("history %+v", h.Versions)
	}

	status, body = s.do("POST", "/api/posts/bulk", `{"ids":[`+strconv.FormatInt(m.ID, 10)+`,987654],"action":"approve"}`)
	var out struct {
		Results []struct {
			ID    int64
			OK    bool
			Error *string
		}
	}
	if err := json.Unmarshal(body, &out); status != 200 || err != nil || len(out.Results) != 2 ||
		!out.Results[0].OK || out.Results[1].OK || out.Results[1].Error == nil {
		t.Fatalf("bulk: %d %s (%v)", status, body, err)
	}
	p := s.waitForStatus(m.ID, post.StatusPosted)
	if p.ProposedResponse != regenerated.ProposedResponse {
		t.Errorf("posted %q, want the regenerated draft", p.ProposedResponse)
	}
	if n := s.personaReplies(m.OriginalPostID); n != 1 {
		t.Errorf("mention answered %d times, want once", n)
	}
}
