package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"infernal/pkg/spend"
	"infernal/pkg/store"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/openai/openaitest"
)

// embeddingsModel is the EMBEDDINGS_MODEL of these tests.
const embeddingsModel = "text-embedding-3-small"

// With EMBEDDINGS_MODEL, the real worker and web binaries rank by the
// provider's embeddings (the OpenAI stand-in's, behind the model's
// address, where synonyms are close): a draft's examples put first the
// case whose post means what the mention says in other words, ahead of
// one sharing more of its words, and the web tier's knowledge search puts
// first the chunk that does; both processes' embeddings count in the
// model spend.
func TestEmbeddingsRankInTheWorkerAndTheWeb(t *testing.T) {
	t.Parallel()
	f := newProcessFixture(t)
	web := buildBinary(t, "web")
	ctx := context.Background()
	model := openaitest.New(openaitest.Config{Concepts: [][]string{
		{"espresso", "coffee"}, {"machine", "maker", "machines"}, {"broke", "stopped", "died"}, {"fix", "repair", "mend"},
	}})
	f.llm.embedWith(model)
	const (
		wordyReply   = "Charon rows on, oar or no oar."
		meaningReply = "Even hell's coffee demons need a holiday."
	)
	if _, err := f.st.ImportCases(ctx, []store.ImportedCase{
		{Platform: "x", Mention: "This morning my rowing boat broke an oar near the obsidian docks; the harbour master will fix ropes, sails and lanterns before nightfall",
			Reply: wordyReply},
		{Platform: "x", Mention: "When the coffee machine stopped, a demon could fix it", Reply: meaningReply},
	}); err != nil {
		t.Fatal(err)
	}

	provider := []string{"WRITER=openai", "OPENAI_BASE_URL=" + f.llm.srv.URL, "OPENAI_API_KEY=" + liveLLMKey, "EMBEDDINGS_MODEL=" + embeddingsModel}
	common := []string{"DATABASE_URL=" + f.dbURL, "REDIS_URL=" + f.redisURL, "PERSONA_HANDLE=" + persona, "PLATFORM=x", "LOG_LEVEL=debug"}
	startProc(t, "worker", f.worker, slices.Concat(common, provider, []string{"METRICS_ADDR=127.0.0.1:0",
		"X_API_BASE_URL=" + f.fx.srv.URL, "X_API_KEY=" + liveConsumerKey, "X_API_SECRET=" + liveConsumerSecret,
		"X_ACCESS_TOKEN=" + liveAccessToken, "X_ACCESS_SECRET=" + liveAccessSecret, "OPENAI_MODEL=" + liveModel})...)
	addr := freeAddr(t)
	startProc(t, "web", web, slices.Concat(common, provider, []string{"HTTP_ADDR=" + addr, "ADMIN_PASSWORD=hellfire666",
		"STATIC_DIR=" + t.TempDir()})...)

	// The worker: a mention like both cases, in other words than the first.
	text := "@" + persona + " my espresso machine broke this morning, who can fix it"
	f.llm.reply(text, "Sloth fixes nothing, mortal.")
	mention := f.fx.postAs(f.fx.addUser("barista", "A Barista"), text)
	if err := f.queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
		t.Fatal(err)
	}
	waitDrafted(t, f.st, mention)
	prompt := strings.Join(f.llm.promptsWith("my espresso machine broke"), "\n")
	meaning, wordy := strings.Index(prompt, meaningReply), strings.Index(prompt, wordyReply)
	if meaning < 0 || (wordy >= 0 && wordy < meaning) {
		t.Fatalf("the prompt's examples do not put the coffee machine's reply first:\n%s", prompt)
	}

	// The web tier: the knowledge search ranks the same way.
	c := &webClient{t: t, base: "http://" + addr}
	deadline := time.Now().Add(liveWait)
	for c.readyz() != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("the web binary never got ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
	status, body := c.request("POST", "/api/auth/login", `{"username":"admin","password":"hellfire666"}`)
	var login struct{ Token string }
	if err := json.Unmarshal(body, &login); status != http.StatusOK || err != nil || login.Token == "" {
		t.Fatalf("login: %d %s (%v)", status, body, err)
	}
	c.token = login.Token
	for _, doc := range []string{
		`{"title":"Ferry","text":"# Ferry\n\nThis morning Charon's ferry broke an oar near the obsidian docks; the harbour master will fix ropes, sails and lanterns before nightfall."}`,
		`{"title":"Coffee","text":"# Coffee maker\n\nWhen the coffee machine stopped, a demon could fix it."}`,
	} {
		if status, body := c.request("POST", "/api/knowledge", doc); status != http.StatusCreated {
			t.Fatalf("upload: %d %s", status, body)
		}
	}
	status, body = c.request("GET", "/api/knowledge/search?q=my+espresso+machine+broke+this+morning,+who+can+fix+it", "")
	var found struct {
		Facts   []struct{ Title string }    `json:"facts"`
		Ranking struct{ By, Reason string } `json:"ranking"`
	}
	if err := json.Unmarshal(body, &found); status != http.StatusOK || err != nil || len(found.Facts) == 0 ||
		found.Facts[0].Title != "Coffee" || found.Ranking.By != "embeddings" {
		t.Fatalf("search: %d %s", status, body)
	}

	reqs := model.Embeddings()
	var fromWorker, fromWeb bool
	for _, r := range reqs {
		if r.Model != embeddingsModel {
			t.Fatalf("embeddings asked of %q, want %q", r.Model, embeddingsModel)
		}
		fromWorker = fromWorker || strings.Contains(r.Input[0], "@"+persona)
		fromWeb = fromWeb || r.Input[0] == "my espresso machine broke this morning, who can fix it"
	}
	if !fromWorker || !fromWeb {
		t.Fatalf("embeddings requests %+v, want the worker's and the web tier's", reqs)
	}
	day, _ := spend.Periods(time.Now())
	sums, err := f.st.SpendTotals(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	tokens := 0
	for _, m := range sums.ByModel {
		if m.Model == embeddingsModel {
			tokens += m.PromptTokens
		}
	}
	if tokens == 0 {
		t.Fatalf("the model spend holds no embeddings: %+v", sums.ByModel)
	}
}
