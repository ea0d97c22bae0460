package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/robfig/cron/v3"

	"infernal/pkg/redisurl"
)

// Schedule is one periodic task and its cron spec.
type Schedule struct {
	Type string
	Spec string
	// Platform names the platform the runs are for; empty for a task that
	// concerns every platform (see PerPlatform).
	Platform string
}

// PlatformSchedules repeats each schedule of a per-platform type
// (PerPlatform) once for every platform, in order: each platform has its
// own scans on the same schedules. The others are kept once.
func PlatformSchedules(entries []Schedule, platforms []string) []Schedule {
	var out []Schedule
	for _, e := range entries {
		if !PerPlatform(e.Type) {
			out = append(out, e)
			continue
		}
		for _, p := range platforms {
			e.Platform = p
			out = append(out, e)
		}
	}
	return out
}

// leaderKey is the Redis key the running schedulers compete for.
const leaderKey = "infernal:scheduler:leader"

// heartbeatPrefix, followed by the host's name, is the key a running
// scheduler renews every leaseRenew, for its -healthcheck to find.
const heartbeatPrefix = "infernal:scheduler:heartbeat:"

// Lease timings: the leader renews every leaseRenew; a crashed leader is
// replaced within leaseTTL.
const (
	leaseTTL   = 15 * time.Second
	leaseRenew = 5 * time.Second
)

// renewScript extends the lease only while it is still ours.
var renewScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)

// releaseScript gives the lease up only while it is still ours.
var releaseScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// Scheduler enqueues the periodic tasks. Any number may run; they elect one
// leader through a lease in Redis and only the leader schedules, so two
// schedulers never double the work. Each task is also enqueued with
// asynq.Unique for a little less than its period, which covers the moment
// a new leader takes over.
type Scheduler struct {
	client   *Client
	redisOpt asynq.RedisConnOpt
	entries  []Schedule
	log      *slog.Logger
	id       string
	// heartbeat is this host's heartbeat key.
	heartbeat string
}

// NewScheduler checks every spec and returns a scheduler for them.
func NewScheduler(client *Client, redisURL string, entries []Schedule, log *slog.Logger) (*Scheduler, error) {
	conn, err := redisurl.Parse(redisURL)
	if err != nil {
		return nil, fmt.Errorf("tasks: REDIS_URL: %w", err)
	}
	for _, e := range entries {
		if _, err := Period(e.Spec); err != nil {
			return nil, fmt.Errorf("tasks: schedule %s: %w", e.Type, err)
		}
		if _, ok := periodic[e.Type]; !ok {
			return nil, fmt.Errorf("tasks: %q is not a periodic task", e.Type)
		}
		if err := checkPlatformName(e.Platform); err != nil {
			return nil, fmt.Errorf("tasks: schedule %s: %w", e.Type, err)
		}
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("tasks: scheduler: %w", err)
	}
	return &Scheduler{client: client, redisOpt: conn.Asynq(), entries: entries, log: log, id: hex.EncodeToString(b),
		heartbeat: heartbeatPrefix + host}, nil
}

// SchedulerHealthy is the scheduler's -healthcheck, run on the scheduler's
// host (in its container): Redis answers, a scheduler of this host renewed
// its heartbeat within the lease's time, and some scheduler leads.
func SchedulerHealthy(ctx context.Context, client *Client) error {
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("tasks: scheduler health: %w", err)
	}
	rc := client.redis
	if err := rc.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("tasks: scheduler health: redis: %w", err)
	}
	n, err := rc.Exists(ctx, heartbeatPrefix+host, leaderKey).Result()
	if err != nil {
		return fmt.Errorf("tasks: scheduler health: %w", err)
	}
	if n != 2 {
		beat, err := rc.Exists(ctx, heartbeatPrefix+host).Result()
		if err != nil {
			return fmt.Errorf("tasks: scheduler health: %w", err)
		}
		if beat == 0 {
			return fmt.Errorf("tasks: scheduler health: no heartbeat from a scheduler on %s", host)
		}
		return errors.New("tasks: scheduler health: no scheduler leads")
	}
	return nil
}

// beat renews this host's heartbeat; a failure is only logged, the loop
// that calls it already reports Redis being away.
func (s *Scheduler) beat(ctx context.Context, rc redis.UniversalClient) {
	if err := rc.Set(ctx, s.heartbeat, s.id, leaseTTL).Err(); err != nil && ctx.Err() == nil {
		s.log.Debug("scheduler: heartbeat not written", "error", err)
	}
}

// Period is the shortest time between two runs of a cron spec.
func Period(spec string) (time.Duration, error) {
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		return 0, err
	}
	shortest := time.Duration(1<<63 - 1)
	t := sched.Next(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for i := 0; i < 50; i++ {
		next := sched.Next(t)
		if d := next.Sub(t); d < shortest {
			shortest = d
		}
		t = next
	}
	return shortest, nil
}

// uniqueFor is how long a periodic run blocks the next: just under its
// period, in whole seconds as asynq keeps it, and at least one second.
func uniqueFor(period time.Duration) time.Duration {
	d := (period - period/10).Truncate(time.Second)
	if d < time.Second {
		d = time.Second
	}
	return d
}

// Run competes for leadership and schedules while it leads, until ctx ends.
func (s *Scheduler) Run(ctx context.Context) error {
	rc := s.client.redis
	defer s.release(rc)
	for {
		s.beat(ctx, rc)
		ok, err := rc.SetNX(ctx, leaderKey, s.id, leaseTTL).Result()
		if err != nil && ctx.Err() == nil {
			s.log.Warn("scheduler: Redis unreachable; retrying", "error", err)
		}
		if ok {
			s.log.Info("scheduler: leading", "id", s.id)
			if err := s.lead(ctx, rc); err != nil {
				return err
			}
			s.log.Info("scheduler: leadership lost or stopping", "id", s.id)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(leaseRenew):
		}
	}
}

// lead runs an asynq scheduler while the lease can be renewed.
func (s *Scheduler) lead(ctx context.Context, rc redis.UniversalClient) error {
	sched := asynq.NewScheduler(s.redisOpt, &asynq.SchedulerOpts{
		Location: time.UTC,
		LogLevel: asynq.WarnLevel,
		PostEnqueueFunc: func(info *asynq.TaskInfo, err error) {
			switch {
			case errors.Is(err, asynq.ErrDuplicateTask):
				s.log.Debug("scheduler: previous run still holds its slot", "error", err)
			case err != nil:
				s.log.Warn("scheduler: enqueue failed", "error", err)
			default:
				s.log.Debug("scheduler: enqueued", "type", info.Type, "id", info.ID)
			}
		},
	})
	first := make([]*asynq.Task, 0, len(s.entries))
	for _, e := range s.entries {
		period, err := Period(e.Spec)
		if err != nil {
			return err
		}
		t, err := newPeriodicTask(e.Type, e.Platform, uniqueFor(period))
		if err != nil {
			return err
		}
		if _, err := sched.Register(e.Spec, t); err != nil {
			return fmt.Errorf("tasks: register %s %s %q: %w", e.Type, e.Platform, e.Spec, err)
		}
		first = append(first, t)
	}
	if err := sched.Start(); err != nil {
		return fmt.Errorf("tasks: start scheduler: %w", err)
	}
	defer sched.Shutdown()
	// Run everything once now, so a fresh start does not wait a whole period
	// (six hours for profile posts) before there is anything to see.
	for _, t := range first {
		if err := s.client.enqueueUnique(ctx, t); err != nil {
			s.log.Warn("scheduler: first run not queued", "type", t.Type(), "error", err)
		}
	}
	tick := time.NewTicker(leaseRenew)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			s.beat(ctx, rc)
			n, err := renewScript.Run(ctx, rc, []string{leaderKey}, s.id, leaseTTL.Milliseconds()).Int()
			if err != nil || n == 0 {
				return nil
			}
		}
	}
}

func (s *Scheduler) release(rc redis.UniversalClient) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := releaseScript.Run(ctx, rc, []string{leaderKey}, s.id).Err(); err != nil {
		s.log.Warn("scheduler: could not release leadership; it lapses on its own", "error", err)
	}
	if err := releaseScript.Run(ctx, rc, []string{s.heartbeat}, s.id).Err(); err != nil {
		s.log.Warn("scheduler: could not remove the heartbeat; it lapses on its own", "error", err)
	}
}
