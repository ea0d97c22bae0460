package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"infernal/pkg/api"
	"infernal/pkg/decision"
	"infernal/pkg/post"
)

// publish takes a pending post through approval to posted, as the worker does.
func (e *env) publish(id int64, at time.Time) {
	e.t.Helper()
	ctx := context.Background()
	if _, err := e.decide().Approve(ctx, id, decision.Approval{By: post.ByWeb}); err != nil {
		e.t.Fatal(err)
	}
	if _, _, err := e.store.BeginSend(ctx, id); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.MarkPosted(ctx, id, "r"+strconv.FormatInt(id, 10), at); err != nil {
		e.t.Fatal(err)
	}
}

// homeFigures are the counts of the public statistics that a recount checks.
type homeFigures struct {
	PostedSins         int `json:"posted_sins"`
	PendingSins        int `json:"pending_sins"`
	MortalInteractions struct {
		TotalMentions int `json:"total_mentions"`
		TotalReplies  int `json:"total_replies"`
		Mentions24h   int `json:"mentions_24h"`
		Replies24h    int `json:"replies_24h"`
	} `json:"mortal_interactions"`
}

// stats reads the public statistics and their ETag.
func (e *env) stats() (homeFigures, string) {
	e.t.Helper()
	resp := e.raw("GET", "/api/public/stats", "", "")
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		e.t.Fatalf("stats: %d", resp.StatusCode)
	}
	var out struct{ Stats homeFigures }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		e.t.Fatal(err)
	}
	return out.Stats, resp.Header.Get("ETag")
}

// statsAfter reads the public statistics until their ETag differs from
// old: a stale answer is served once while the next is computed.
func (e *env) statsAfter(old string) (homeFigures, string) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h, tag := e.stats()
		if tag != old {
			return h, tag
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the statistics stayed at ETag %s", old)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recount counts the same figures straight from the posts table.
func (e *env) recount() homeFigures {
	e.t.Helper()
	var h homeFigures
	m := &h.MortalInteractions
	dayAgo := e.clock.Now().Add(-24 * time.Hour)
	err := e.store.Pool().QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM posts WHERE status = 'posted'),
		(SELECT count(*) FROM posts WHERE status = 'pending'),
		(SELECT count(*) FROM posts WHERE source = 'mention'),
		(SELECT count(*) FROM posts WHERE source = 'mention' AND status = 'posted'),
		(SELECT count(*) FROM posts WHERE source = 'mention' AND created_at >= $1),
		(SELECT count(*) FROM posts WHERE source = 'mention' AND status = 'posted' AND posted_at >= $1)`, dayAgo).
		Scan(&h.PostedSins, &h.PendingSins, &m.TotalMentions, &m.TotalReplies, &m.Mentions24h, &m.Replies24h)
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

// The public statistics are served from memory for api.DefaultPublicTTL,
// then computed again and match a recount of the posts table; a reject
// through the API makes them stale at once; a client holding the answer
// gets 304.
func TestPublicStatsCachedAndExact(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for i := range 6 {
		src := post.SourceMention
		if i%2 == 1 {
			src = post.SourceConversation
		}
		id := e.pending("a"+strconv.Itoa(i), src, i, "reply "+strconv.Itoa(i))
		if i < 3 {
			e.publish(id, e.clock.Now().Add(-time.Duration(i)*time.Minute))
		}
	}
	first, etag := e.stats()
	if want := e.recount(); first != want {
		t.Fatalf("first answer %+v, recount %+v", first, want)
	}
	if first.PostedSins != 3 || first.PendingSins != 3 {
		t.Fatalf("figures %+v, want 3 posted and 3 pending", first)
	}

	// The client holding the answer gets 304 and no body.
	req, err := http.NewRequest("GET", e.srv.URL+"/api/public/stats", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("If-None-Match", etag)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified || resp.Header.Get("Cache-Control") != "public, max-age=10" {
		t.Errorf("revalidation: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}

	// The worker posts one more, in another process as far as the web tier knows.
	late := e.pending("late", post.SourceMention, 0, "late reply")
	e.publish(late, e.clock.Now())
	if cached, _ := e.stats(); cached != first {
		t.Errorf("within the lifetime the answer changed: %+v, want the cached %+v", cached, first)
	}
	e.clock.Add(api.DefaultPublicTTL)
	after, newTag := e.statsAfter(etag)
	if want := e.recount(); after != want {
		t.Errorf("after the lifetime %+v, recount %+v", after, want)
	}
	if after.PostedSins != 4 || newTag == etag {
		t.Errorf("after the lifetime: %+v etag %s (was %s)", after, newTag, etag)
	}

	// A reject through this process drops the cached answers at once.
	doomed := e.pending("doomed", post.SourceConversation, 0, "doomed")
	e.clock.Add(api.DefaultPublicTTL)
	before, beforeTag := e.statsAfter(newTag)
	if status, body := e.do("POST", "/api/posts/"+strconv.FormatInt(doomed, 10)+"/reject", e.token, "{}"); status != 200 {
		t.Fatalf("reject: %d %s", status, body)
	}
	now, _ := e.statsAfter(beforeTag)
	if want := e.recount(); now != want || now.PendingSins != before.PendingSins-1 {
		t.Errorf("after a reject %+v (before %+v), recount %+v", now, before, want)
	}
}
