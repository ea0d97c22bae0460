package pipeline_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"infernal/pkg/post"
	"infernal/pkg/store/storetest"
	"infernal/pkg/tasks"
)

// BenchmarkBurstOfMentionsDrafted measures one worker (the real server:
// DefaultConcurrency slots, strict queue priority) with the offline writer taking a
// burst of 1,500 mentions from its scans to the admin's list: the scans are
// asked for every 200 ms, as a scheduler would, and an op ends when all
// 1,501 mentions are pending. It reports the seconds a burst took and the
// drafts per second (the burst must be drafted within two minutes on the
// 2-core machine).
func BenchmarkBurstOfMentionsDrafted(b *testing.B) {
	const burst = 1_500
	for range b.N {
		b.StopTimer()
		e := setup(b)
		// The burst's mentions share their author: the reply caps are not measured.
		storetest.UncapReplies(b, e.store)
		ctx := context.Background()
		plat := &burstPlatform{Platform: e.plat, mentions: &burstTimeline{first: 1_000_000, n: 1, bound: 500}}
		s := *e.pipe.Scanner
		s.Platform = plat
		if err := s.ScanMentions(ctx, task(tasks.TypeScanMentions, struct{}{})); err != nil {
			b.Fatal(err)
		}
		e.pipe.Scanner = &s
		plat.mentions.add(burst)
		srv, err := tasks.NewServer(tasks.ServerConfig{
			RedisURL: e.redisURL, Register: e.pipe.Register, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			DelayedTaskCheckInterval: 100 * time.Millisecond,
		})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if err := srv.Start(); err != nil {
			b.Fatal(err)
		}
		for {
			if err := e.queue.EnqueuePeriodic(ctx, tasks.TypeScanMentions); err != nil {
				b.Fatal(err)
			}
			_, n, err := e.store.ListPending(ctx, post.SourceMention, post.SortDate, 1, 1)
			if err != nil {
				b.Fatal(err)
			}
			if n == burst+1 {
				break
			}
			if time.Since(start) > 10*time.Minute {
				b.Fatalf("%d of %d mentions drafted after 10 minutes", n, burst+1)
			}
			time.Sleep(200 * time.Millisecond)
		}
		took := time.Since(start)
		b.StopTimer()
		srv.Shutdown()
		b.ReportMetric(took.Seconds(), "s/burst")
		b.ReportMetric(burst/took.Seconds(), "drafts/s")
	}
}
