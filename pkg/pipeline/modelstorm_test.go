package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"infernal/pkg/pipeline"
	"infernal/pkg/ratelimit"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
	"infernal/pkg/writer/openai"
	"infernal/pkg/writer/openai/openaitest"
)

// A provider answering 429 for a while loses no draft: two workers share
// its windows, send nothing while a 429 keeps them closed, wait in the
// queue without using up their attempts, and every mention of the burst
// ends drafted once the storm is over, none failed.
func TestBurstDrainsThroughA429Storm(t *testing.T) {
	t.Parallel()
	e := setup(t)
	storetest.UncapReplies(t, e.store)
	ctx := context.Background()
	const burst = 60
	plat := &burstPlatform{Platform: e.plat, mentions: &burstTimeline{first: 2_000_000, n: burst, bound: 500}}
	s := *e.pipe.Scanner
	s.Platform = plat
	if err := s.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
		t.Fatal(err)
	}
	model := openaitest.New(openaitest.Config{Latency: 20 * time.Millisecond, PerMinute: 6000, Burst: 20,
		StormFor: 2 * time.Second, StormRetryAfter: 4 * time.Second})
	standIn := httptest.NewServer(model)
	defer standIn.Close()
	for range 2 {
		windows, err := ratelimit.Open(e.redisURL, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer windows.Close()
		w, err := openai.New(openai.Config{BaseURL: standIn.URL + "/v1", Model: "stand-in", Concurrency: 4, Limiter: windows})
		if err != nil {
			t.Fatal(err)
		}
		// Each server drafts with its own writer: its own copy of the stages.
		stages := *e.pipe.Stages
		d := *stages.Drafter
		d.Writer = w
		stages.Drafter = &d
		p := *e.pipe
		p.Stages = &stages
		srv, err := tasks.NewServer(tasks.ServerConfig{
			RedisURL: e.redisURL, Register: p.Register, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			RetryDelay: pipeline.RetryDelay, IsFailure: pipeline.IsFailure, Concurrency: 8,
			DelayedTaskCheckInterval: 100 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer srv.Shutdown()
	}
	waitAllPending(t, e, burst, func() string { return fmt.Sprintf("the stand-in saw %+v", model.Stats()) })
	st := model.Stats()
	if st.Refused == 0 || st.InsideWindow != 0 || st.Answered < burst {
		t.Errorf("the stand-in saw %+v, want 429s, %d drafts or more, no call inside a closed window", st, burst)
	}
}
