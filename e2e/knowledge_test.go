package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"infernal/pkg/tasks"
)

// The persona cites the operator's knowledge base, through the real worker
// binary (WRITER=openai against a model stand-in that records prompts)
// and the web tier on the same database: a document uploaded through the
// API has its relevant chunk in the prompt of a post that asks about it,
// and the post's answer and card name it (grounded_in, the history's
// facts); an unrelated post gets no facts.
func TestKnowledgeGroundsADraft(t *testing.T) {
	f := newProcessFixture(t)
	fx, llm, st, queue := f.fx, f.llm, f.st, f.queue
	ctx := context.Background()
	s := f.webSystem(t)

	const fact = "The brimstone sauna opens on Sundays at noon and closes when the lava cools."
	doc := fmt.Sprintf(`{"title":"Sauna rules","text":"# Sauna\n\n%s\n\n# Towels\n\nTowels are asbestos and cost one soul each."}`, fact)
	if status, body := s.do("POST", "/api/knowledge", doc); status != 201 {
		t.Fatalf("upload: %d %s", status, body)
	}

	var logs processLog
	cmd := startWorkerProcess(t, f.worker, f.dbURL, f.redisURL, fx, llm, &logs)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("worker output:\n%s", logs.String())
		}
	})
	asker := fx.addUser("bather", "A Bather")
	scan := func(text, reply string) int64 {
		t.Helper()
		llm.reply(text, reply)
		mention := fx.postAs(asker, text)
		if err := queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
			t.Fatal(err)
		}
		return waitDrafted(t, st, mention)
	}
	type ground struct {
		DocumentID int64 `json:"document_id"`
		ChunkID    int64 `json:"chunk_id"`
	}
	// groundedIn is post id's grounded_in, as the admin's list answers it.
	groundedIn := func(id int64) []ground {
		t.Helper()
		status, body := s.call("GET", "/api/posts/mentions")
		var list struct {
			Posts []struct {
				ID         int64    `json:"id"`
				GroundedIn []ground `json:"grounded_in"`
			} `json:"posts"`
		}
		if err := json.Unmarshal(body, &list); status != 200 || err != nil {
			t.Fatalf("mentions: %d %s", status, body)
		}
		for _, p := range list.Posts {
			if p.ID == id {
				return p.GroundedIn
			}
		}
		t.Fatalf("post %d is not listed: %s", id, body)
		return nil
	}

	ask := "@" + persona + " when does the brimstone sauna open on Sundays?"
	aID := scan(ask, "The sauna opens at noon on Sundays, sinner.")
	prompt := strings.Join(llm.promptsWith("brimstone sauna open on Sundays"), "\n")
	if !strings.Contains(prompt, fact) || !strings.Contains(prompt, "use only if relevant; never invent beyond them") {
		t.Fatalf("the asking post's prompt lacks the fact:\n%s", prompt)
	}
	if strings.Contains(prompt, "asbestos") {
		t.Fatalf("an irrelevant chunk is in the prompt:\n%s", prompt)
	}
	// The sample document seeded on first start may follow: it speaks of
	// brimstone and opening too; the sauna's chunk comes first.
	var docID int64
	status, body := s.call("GET", "/api/knowledge")
	var docs struct {
		Documents []struct {
			ID    int64  `json:"id"`
			Title string `json:"title"`
		} `json:"documents"`
	}
	if err := json.Unmarshal(body, &docs); status != 200 || err != nil {
		t.Fatalf("documents: %d %s", status, body)
	}
	for _, d := range docs.Documents {
		if d.Title == "Sauna rules" {
			docID = d.ID
		}
	}
	if g := groundedIn(aID); len(g) == 0 || g[0].DocumentID != docID || g[0].ChunkID == 0 {
		t.Fatalf("grounded_in = %+v, want the sauna chunk first", g)
	}
	status, body = s.call("GET", fmt.Sprintf("/api/posts/%d/history", aID))
	var hist struct {
		Facts []struct{ Title, Text string } `json:"facts"`
	}
	if err := json.Unmarshal(body, &hist); status != 200 || err != nil || len(hist.Facts) == 0 ||
		hist.Facts[0].Title != "Sauna rules" || hist.Facts[0].Text != fact {
		t.Fatalf("the card's facts: %d %s", status, body)
	}

	other := "@" + persona + " parliament votes on the fisheries quota tomorrow"
	bID := scan(other, "Even hell has quotas.")
	bPrompt := strings.Join(llm.promptsWith("fisheries quota"), "\n")
	if bPrompt == "" || strings.Contains(bPrompt, "<facts-") || strings.Contains(bPrompt, "knowledge base") {
		t.Fatalf("the unrelated post's prompt holds facts, or none was asked:\n%s", bPrompt)
	}
	if g := groundedIn(bID); len(g) != 0 {
		t.Fatalf("the unrelated post's grounded_in = %+v", g)
	}
}
