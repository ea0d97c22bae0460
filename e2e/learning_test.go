package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"infernal/pkg/tasks"
)

// The persona learns from its editor, through the real worker binary
// (WRITER=openai against a model stand-in that records prompts) and the
// web tier on the same database: after an edit of post A's draft, a new
// post like A gets A's final text as an example and A's lesson in its
// prompt, and its card names both; a post unlike A gets neither; a
// disabled lesson is in no prompt; once A's author opts out, A's case is
// gone and never an example again.
func TestPersonaLearnsFromItsEditor(t *testing.T) {
	t.Parallel()
	f := newProcessFixture(t)
	fx, llm, st, queue := f.fx, f.llm, f.st, f.queue
	ctx := context.Background()
	s := f.webSystem(t)

	var logs processLog
	cmd := startWorkerProcess(t, f.worker, f.dbURL, f.redisURL, fx, llm, &logs)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("worker output:\n%s", logs.String())
		}
	})
	// scan posts text as a mention from u, waits for its draft and returns its row id.
	baker, other := fx.addUser("baker", "A Baker"), fx.addUser("reader", "A Reader")
	scan := func(u xUser, text, reply string) int64 {
		t.Helper()
		llm.reply(text, reply)
		mention := fx.postAs(u, text)
		if err := queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
			t.Fatal(err)
		}
		return waitDrafted(t, st, mention)
	}
	const lesson = "Keep replies under about 40 characters"
	llm.teach(lesson)

	a := "@" + persona + " my sourdough starter collapsed in the oven again"
	aID := scan(baker, a, "Your sourdough starter collapsed? Hell's ovens weep with you, mortal baker, every single night.")
	final := "Hell's ovens weep with you."
	if status, body := s.do("POST", fmt.Sprintf("/api/posts/%d/approve", aID), fmt.Sprintf(`{"response":%q}`, final)); status != 200 {
		t.Fatalf("approve A edited: %d %s", status, body)
	}

	b := "@" + persona + " the sourdough starter collapsed, is the oven too hot?"
	bID := scan(other, b, "An oven can never be too hot.")
	bPrompt := strings.Join(llm.promptsWith("is the oven too hot?"), "\n")
	if !strings.Contains(bPrompt, final) || !strings.Contains(bPrompt, lesson) {
		t.Fatalf("B's prompt lacks A's example or lesson:\n%s", bPrompt)
	}
	var card struct {
		LearnedFrom struct{ Cases, Lessons []int64 } `json:"learned_from"`
	}
	status, body := s.call("GET", fmt.Sprintf("/api/posts/%d/history", bID))
	if status != 200 || !strings.Contains(string(body), final) || !strings.Contains(string(body), lesson) {
		t.Fatalf("B's history does not show what shaped it: %d %s", status, body)
	}
	status, body = s.call("GET", "/api/posts/mentions")
	var list struct {
		Posts []json.RawMessage
	}
	if err := json.Unmarshal(body, &list); status != 200 || err != nil {
		t.Fatalf("mentions: %d %s", status, body)
	}
	for _, raw := range list.Posts {
		var p struct{ ID int64 }
		if err := json.Unmarshal(raw, &p); err == nil && p.ID == bID {
			if err := json.Unmarshal(raw, &card); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(card.LearnedFrom.Cases) != 1 || len(card.LearnedFrom.Lessons) != 1 {
		t.Fatalf("B's card learned_from = %+v, want A's case and lesson", card.LearnedFrom)
	}

	c := "@" + persona + " parliament votes on the fisheries quota tomorrow"
	scan(other, c, "Even hell has quotas.")
	cPrompt := strings.Join(llm.promptsWith("fisheries quota"), "\n")
	if cPrompt == "" || strings.Contains(cPrompt, final) || strings.Contains(cPrompt, lesson) {
		t.Fatalf("C's prompt holds what A taught, or none was asked:\n%s", cPrompt)
	}

	if status, body := s.do("PATCH", fmt.Sprintf("/api/lessons/%d", card.LearnedFrom.Lessons[0]), `{"enabled":false}`); status != 200 {
		t.Fatalf("disable the lesson: %d %s", status, body)
	}
	d := "@" + persona + " sourdough starter collapsed twice this week, the oven hates me"
	scan(other, d, "The oven is on my side.")
	dPrompt := strings.Join(llm.promptsWith("the oven hates me"), "\n")
	if !strings.Contains(dPrompt, final) || strings.Contains(dPrompt, lesson) {
		t.Fatalf("D's prompt: want A's example without the disabled lesson:\n%s", dPrompt)
	}

	// A's author opts out: the worker blocks them, and their case goes.
	optOut := "@" + persona + " stop replying to me"
	mention := fx.postAs(baker, optOut)
	if err := queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(liveWait)
	for {
		if _, total, err := st.Cases(ctx, "sourdough", 1); err == nil && total == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("A's case outlived its author's opt-out (%s)", mention)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Another reader: the first has used up the day's replies per author.
	e := "@" + persona + " my sourdough starter collapsed in a cold oven"
	scan(fx.addUser("reader2", "Another Reader"), e, "Cold ovens are heaven's.")
	ePrompt := strings.Join(llm.promptsWith("collapsed in a cold oven"), "\n")
	if ePrompt == "" || strings.Contains(ePrompt, final) {
		t.Fatalf("E's prompt still holds the opted-out author's reply:\n%s", ePrompt)
	}
}
