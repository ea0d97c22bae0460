package api_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/api"
	"infernal/pkg/auth"
	"infernal/pkg/pipeline"
	"infernal/pkg/post"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/offline"
)

// serveWaiting serves e's API again with regenerate and preview waiting up to wait.
func serveWaiting(t *testing.T, e *env, wait time.Duration) {
	t.Helper()
	authn, err := auth.NewService(e.store, time.Hour, time.Now, testHashing())
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, api.New(api.Config{Store: e.store, Auth: authn, Queue: e.queue,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Platform: "sandbox", Handle: "devil", RegenerateWait: wait, PreviewWait: wait}))
	t.Cleanup(srv.Close)
	e.srv = srv
}

// startWorker runs the worker's draft stages on e's queue until the test ends.
func startWorker(t *testing.T, e *env) {
	t.Helper()
	d := &pipeline.Drafter{Store: e.store, Writer: offline.New("devil"), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Handle: "devil"}
	srv, err := tasks.NewServer(tasks.ServerConfig{
		RedisURL: e.redisURL,
		Register: func(mux *asynq.ServeMux) {
			mux.HandleFunc(tasks.TypeRegeneratePost, d.Regenerate)
		},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
}

type historyBody struct {
	Versions []struct {
		Text        string    `json:"text"`
		Origin      string    `json:"origin"`
		Instruction string    `json:"instruction"`
		At          time.Time `json:"at"`
	} `json:"versions"`
}

func (e *env) history(pid int64) historyBody {
	e.t.Helper()
	status, body := e.do("GET", "/api/posts/"+id(pid)+"/history", e.token, "")
	if status != 200 {
		e.t.Fatalf("history: %d %s", status, body)
	}
	var h historyBody
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		e.t.Fatal(err)
	}
	return h
}

// Regenerate goes through the queue to a worker and back: the reviewer
// gets the new draft, and the history keeps every version with its origin.
func TestRegenerateKeepsHistory(t *testing.T) {
	t.Parallel()
	e := setup(t)
	// Long enough that the test never sees a 202 from a slow machine; the worker answers in milliseconds.
	serveWaiting(t, e, 15*time.Second)
	startWorker(t, e)
	pid := e.pending("1", post.SourceMention, 0, "The first draft, from the writer.")
	var texts []string
	for _, body := range []string{``, `{}`, `{"instruction":"  shorter  "}`} {
		status, out := e.do("POST", "/api/posts/"+id(pid)+"/regenerate", e.token, body)
		if status != 200 {
			t.Fatalf("regenerate %q: %d %s", body, status, out)
		}
		var p struct {
			ID               int64  `json:"id"`
			Status           string `json:"status"`
			ProposedResponse string `json:"proposed_response"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil || p.ID != pid || p.Status != "pending" || p.ProposedResponse == "" {
			t.Fatalf("regenerate answer %s (%v)", out, err)
		}
		texts = append(texts, p.ProposedResponse)
	}
	edited := "An edit by hand."
	if status, out := e.do("POST", "/api/posts/"+id(pid)+"/approve", e.token, `{"response":"`+edited+`"}`); status != 200 {
		t.Fatalf("approve: %d %s", status, out)
	}
	h := e.history(pid)
	var got []string
	for _, v := range h.Versions {
		got = append(got, v.Origin+"/"+v.Instruction)
	}
	if want := []string{"writer/", "regenerate/", "regenerate/", "regenerate/shorter", "admin/"}; !slices.Equal(got, want) {
		t.Fatalf("history %q, want %q", got, want)
	}
	wantTexts := append(append([]string{"The first draft, from the writer."}, texts...), edited)
	for i, v := range h.Versions {
		if v.Text != wantTexts[i] {
			t.Errorf("version %d = %q, want %q", i, v.Text, wantTexts[i])
		}
		if i > 0 && (v.Text == h.Versions[i-1].Text || v.At.Before(h.Versions[i-1].At)) {
			t.Errorf("version %d repeats or predates the one before", i)
		}
	}
	// Judged now: no more regenerating.
	status, out := e.do("POST", "/api/posts/"+id(pid)+"/regenerate", e.token, `{"instruction":"crueler"}`)
	if status != 409 || !strings.Contains(errorOf(t, out), "it is approved, not pending") {
		t.Errorf("regenerate an approved post: %d %s, want 409", status, out)
	}
	if status, out := e.do("POST", "/api/posts/424242/regenerate", e.token, ``); status != 404 {
		t.Errorf("regenerate an unknown post: %d %s, want 404", status, out)
	}
	if status, out := e.do("GET", "/api/posts/424242/history", e.token, ``); status != 404 {
		t.Errorf("history of an unknown post: %d %s, want 404", status, out)
	}
}

// Without a worker in time, regenerate answers 202 with the post as it is,
// and the task waits in the queue.
func TestRegenerateAccepted(t *testing.T) {
	t.Parallel()
	e := setup(t)
	serveWaiting(t, e, time.Millisecond)
	pid := e.pending("1", post.SourceMention, 0, "as it was")
	status, out := e.do("POST", "/api/posts/"+id(pid)+"/regenerate", e.token, `{"instruction":"mention the coffee"}`)
	if status != 202 || !strings.Contains(out, `"proposed_response":"as it was"`) {
		t.Fatalf("regenerate: %d %s, want 202 with the post as it is", status, out)
	}
	queued, err := e.queue.Inspector().ListPendingTasks(tasks.QueueHigh)
	if err != nil || len(queued) != 1 || queued[0].Type != tasks.TypeRegeneratePost ||
		!strings.Contains(string(queued[0].Payload), `"instruction":"mention the coffee"`) {
		t.Errorf("queued: %+v %v", queued, err)
	}
	if h := e.history(pid); len(h.Versions) != 1 || h.Versions[0].Origin != "writer" || h.Versions[0].Text != "as it was" {
		t.Errorf("history %+v, want the writer's one version", h)
	}
}

type bulkBody struct {
	Results []struct {
		ID     int64   `json:"id"`
		OK     bool    `json:"ok"`
		Error  *string `json:"error"`
		Status int     `json:"status"`
		Post   *struct {
			Status string `json:"status"`
		} `json:"post"`
	} `json:"results"`
}

// A bulk action judges each id through the single route's path and reports
// each result, in order: successes and failures side by side.
func TestBulk(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := e.pending("1", post.SourceMention, 0, "burn")
	b := e.pending("2", post.SourceMention, 0, strings.Repeat("🔥", 141))
	c := e.pending("3", post.SourceConversation, 0, "meh")
	done := e.pending("4", post.SourceConversation, 0, "gone")
	if status, out := e.do("POST", "/api/posts/"+id(done)+"/reject", e.token, ``); status != 200 {
		t.Fatalf("reject: %d %s", status, out)
	}
	type want struct {
		id     int64
		ok     bool
		status int
		error  string
	}
	tests := []struct {
		name  string
		body  string
		want  []want
		check func(t *testing.T)
	}{
		{name: "approve a mix", body: `{"ids":[` + id(a) + `,424242,` + id(b) + `,` + id(done) + `],"action":"approve"}`,
			want: []want{{a, true, 200, ""}, {424242, false, 404, "not found"}, {b, false, 422, "282 characters"}, {done, false, 409, "it is rejected, not pending"}},
			check: func(t *testing.T) {
				wantStatus(t, e, a, post.StatusApproved)
				wantStatus(t, e, b, post.StatusPending)
				if info, err := e.queue.Inspector().GetTaskInfo(tasks.QueueCritical, tasks.SendTaskID(a)); err != nil || info.Type != tasks.TypeSendPost {
					t.Errorf("send task of %d: %+v %v", a, info, err)
				}
			}},
		{name: "reject a mix", body: `{"ids":[` + id(c) + `,` + id(a) + `,` + id(b) + `],"action":"reject","override":true}`,
			want: []want{{c, true, 200, ""}, {a, false, 409, "it is approved, not pending"}, {b, true, 200, ""}},
			check: func(t *testing.T) {
				wantStatus(t, e, c, post.StatusRejected)
				wantStatus(t, e, b, post.StatusRejected)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := e.do("POST", "/api/posts/bulk", e.token, tt.body)
			if status != 200 {
				t.Fatalf("bulk: %d %s", status, out)
			}
			var got bulkBody
			if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Results) != len(tt.want) {
				t.Fatalf("bulk answer %s (%v)", out, err)
			}
			for i, w := range tt.want {
				r := got.Results[i]
				if r.ID != w.id || r.OK != w.ok || r.Status != w.status {
					t.Errorf("result %d = %+v, want %+v", i, r, w)
				}
				switch {
				case w.ok && (r.Error != nil || r.Post == nil):
					t.Errorf("result %d: ok with error %v / post %v", i, r.Error, r.Post)
				case !w.ok && (r.Error == nil || !strings.Contains(*r.Error, w.error) || r.Post != nil):
					t.Errorf("result %d error %v, want it to contain %q", i, r.Error, w.error)
				}
			}
			tt.check(t)
		})
	}
	t.Run("refused whole", func(t *testing.T) {
		fresh := e.pending("5", post.SourceMention, 0, "x")
		status, out := e.do("POST", "/api/posts/bulk", e.token, `{"ids":[`+id(fresh)+`,`+id(fresh)+`],"action":"approve"}`)
		if status != 400 || !strings.Contains(errorOf(t, out), "ids[1] repeats") {
			t.Errorf("repeated id: %d %s", status, out)
		}
		wantStatus(t, e, fresh, post.StatusPending)
	})
}
