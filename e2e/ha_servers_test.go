package e2e

// The helpers in this file start the high-availability topologies a failover
// test needs, on loopback, from the locally installed server binaries: a
// Redis primary with a replica watched by three sentinels, and a PostgreSQL
// primary with a synchronous standby. Each helper owns its processes and
// stops them when the test ends; TestHAServersFailOver shows they fail over.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"infernal/pkg/servertest"
)

// haMasterName is the name the sentinels monitor the Redis primary under,
// and the master named by redisHA.URL.
const haMasterName = "infernal"

// haStartTimeout bounds each wait while a topology starts: a server
// accepting connections, the replica or standby catching up, the sentinels
// finding each other.
const haStartTimeout = 30 * time.Second

// haLogLines is how many lines of each server's log a failed test shows.
const haLogLines = 40

// needServerBinary skips the test when a server binary it needs is missing
// (err says which and why), or fails it when servertest.RequireEnv is 1, as
// under the project's test command, so that a missing server cannot pass
// unseen there.
func needServerBinary(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv(servertest.RequireEnv) == "1" {
		t.Fatalf("%s is missing while %s=1: %v", what, servertest.RequireEnv, err)
	}
	t.Skipf("skipped: this test needs %s: %v", what, err)
}

// redisServerPath returns the path of redis-server, skipping or failing the
// test (see needServerBinary) when it is not installed.
func redisServerPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("redis-server")
	needServerBinary(t, "redis-server", err)
	return p
}

// pgVersionLess orders PostgreSQL version folder names ("9.6" < "15" <
// "16") by their numbers, as `sort -V` does in scripts/services.sh; a part
// that is not a number sorts first.
func pgVersionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errX := strconv.Atoi(as[i])
		y, errY := strconv.Atoi(bs[i])
		if errX != nil {
			x = -1
		}
		if errY != nil {
			y = -1
		}
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// postgresBinDir returns the folder of the PostgreSQL server binaries
// (initdb, pg_ctl, pg_basebackup), found as pg_bin in scripts/services.sh
// finds it: Debian keeps them off PATH in /usr/lib/postgresql/VERSION/bin,
// and the newest version wins; otherwise the folder of initdb on PATH. It
// skips or fails the test (see needServerBinary) when there is none.
func postgresBinDir(t testing.TB) string {
	t.Helper()
	dirs, err := filepath.Glob("/usr/lib/postgresql/*/bin")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(dirs, func(a, b string) int {
		va, vb := filepath.Base(filepath.Dir(a)), filepath.Base(filepath.Dir(b))
		switch {
		case pgVersionLess(va, vb):
			return -1
		case pgVersionLess(vb, va):
			return 1
		}
		return 0
	})
	if len(dirs) > 0 {
		newest := dirs[len(dirs)-1]
		if _, err := os.Stat(filepath.Join(newest, "initdb")); err == nil {
			return newest
		}
	}
	p, err := exec.LookPath("initdb")
	needServerBinary(t, "the PostgreSQL server binaries (Debian's postgresql package)", err)
	return filepath.Dir(p)
}

// freePorts returns n distinct loopback ports no one listens on right now.
// Unlike n calls of freeAddr it holds every port open until all are chosen,
// so the kernel cannot hand the same one out twice.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, 0, n)
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			if err := l.Close(); err != nil {
				t.Errorf("free port: %v", err)
			}
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// loopback returns the 127.0.0.1 address of port.
func loopback(port int) string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// fileTail returns the last n lines of the file at path, or why it cannot.
func fileTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// redisProc is one redis-server process a test started: a data server or a
// sentinel.
type redisProc struct {
	name string
	addr string
	// log is the file holding the process's stdout and stderr: Redis logs to
	// stdout when no logfile is set, which also keeps the errors it prints
	// before it could open one.
	log    string
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process has been waited for
}

// alive reports whether the process is still running.
func (p *redisProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// kill stops the process with SIGKILL, as a crash would, and waits for it.
func (p *redisProc) kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("kill %s: %v", p.name, err)
	}
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Errorf("%s did not exit 10 s after SIGKILL", p.name)
	}
}

// redisHA is a Redis primary and its replica, watched by three sentinels
// under the master name "infernal", all on loopback and owned by the test.
type redisHA struct {
	bin       string
	dir       string
	servers   []*redisProc // the data servers: the first primary, then the replica
	sentinels []*redisProc
	started   []*redisProc // every process started, which the cleanup kills
}

// startRedisSentinel starts a Redis primary, a replica of it and three
// sentinels monitoring them (quorum 2, down after 1 s), and returns once the
// replica is in sync and every sentinel knows the replica and the other two
// sentinels. Everything is killed when the test ends.
func startRedisSentinel(t *testing.T) *redisHA {
	t.Helper()
	h := &redisHA{bin: redisServerPath(t), dir: t.TempDir()}
	// Registered before anything starts, so that a start failing half way
	// still stops what did start; and after t.TempDir, so that it runs
	// before the folder is removed (cleanups run last registered first).
	t.Cleanup(func() { h.stop(t) })
	ports := freePorts(t, 5)

	// The primary, then its replica. Diskless replication waits 5 s by
	// default for more replicas to share the transfer with; there is only
	// one. Both get the setting since either may be primary later.
	common := []string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"}
	primary := h.start(t, "redis-primary", ports[0], common...)
	h.servers = append(h.servers, primary)
	replica := h.start(t, "redis-replica", ports[1],
		append(slices.Clone(common), "--replicaof", "127.0.0.1", strconv.Itoa(ports[0]))...)
	h.servers = append(h.servers, replica)
	h.waitReplicaLinked(t, replica)

	// The sentinels start only once the replica is linked: a sentinel learns
	// of replicas from the primary's INFO, which it asks at once and then
	// only every 10 s.
	for i, port := range ports[2:] {
		name := fmt.Sprintf("sentinel%d", i+1)
		dir := filepath.Join(h.dir, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// A sentinel rewrites its configuration file with what it learns, so
		// each gets its own writable one.
		conf := filepath.Join(dir, "sentinel.conf")
		text := fmt.Sprintf(`port %d
bind 127.0.0.1
dir "%s"
sentinel monitor %s 127.0.0.1 %d 2
sentinel down-after-milliseconds %s 1000
sentinel failover-timeout %s 5000
sentinel parallel-syncs %s 1
`, port, dir, haMasterName, ports[0], haMasterName, haMasterName, haMasterName)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		h.sentinels = append(h.sentinels, h.spawn(t, name, port, dir, conf, "--sentinel"))
	}
	for _, s := range h.sentinels {
		h.waitSentinelReady(t, s)
	}
	return h
}

// start runs a Redis data server on port with args, in its own folder, and
// waits until it answers PING.
func (h *redisHA) start(t *testing.T, name string, port int, args ...string) *redisProc {
	t.Helper()
	dir := filepath.Join(h.dir, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--port", strconv.Itoa(port), "--dir", dir}, args...)
	p := h.spawn(t, name, port, dir, args...)
	h.waitUp(t, p)
	return p
}

// spawn starts redis-server with args in dir, its output going to
// dir/NAME.log. It does not wait for it to listen.
func (h *redisHA) spawn(t *testing.T, name string, port int, dir string, args ...string) *redisProc {
	t.Helper()
	p := &redisProc{name: name, addr: loopback(port), log: filepath.Join(dir, name+".log"), exited: make(chan struct{})}
	out, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(h.bin, args...)
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = out, out
	err = p.cmd.Start()
	// The child holds its own copy of the file now.
	if cerr := out.Close(); cerr != nil {
		t.Errorf("%s: %v", p.log, cerr)
	}
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		// Its exit status is of no interest: the test kills it on purpose,
		// and an early exit shows as a server that does not answer, with
		// its log.
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	// Recorded here, before any wait, so that the cleanup kills a process
	// that fails to come up.
	h.started = append(h.started, p)
	return p
}

// stop kills every process still running and, if the test failed, shows
// the end of each one's log.
func (h *redisHA) stop(t *testing.T) {
	for _, p := range h.started {
		if p.alive() {
			p.kill(t)
		}
	}
	if t.Failed() {
		for _, p := range h.started {
			t.Logf("%s (%s) log tail:\n%s", p.name, p.addr, fileTail(p.log, haLogLines))
		}
	}
}

// redisClient returns a client of the data server or sentinel at addr that
// gives up quickly, for the helpers' polling.
func redisClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:        addr,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
		MaxRetries: -1,
		// Redis 7.0 does not know CLIENT SETINFO; without this every new
		// connection would send it for nothing.
		DisableIdentity: true,
	})
}

// sentinelClient is redisClient for a sentinel's own commands.
func sentinelClient(addr string) *redis.SentinelClient {
	return redis.NewSentinelClient(&redis.Options{
		Addr:        addr,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
		MaxRetries:      -1,
		DisableIdentity: true,
	})
}

// poll calls check every 100 ms until it returns nil, failing the test with
// what and check's last error when timeout passes first or stop returns
// true (a process the wait depends on has died).
func poll(t *testing.T, what string, timeout time.Duration, stop func() bool, check func(ctx context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := check(ctx)
		cancel()
		if err == nil {
			return
		}
		if stop != nil && stop() {
			t.Fatalf("%s: a process it needs has exited; last: %v", what, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v: %v", what, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitUp waits until p answers PING.
func (h *redisHA) waitUp(t *testing.T, p *redisProc) {
	t.Helper()
	c := redisClient(p.addr)
	defer closeRedis(t, c)
	poll(t, p.name+" answers PING", haStartTimeout, func() bool { return !p.alive() }, func(ctx context.Context) error {
		return c.Ping(ctx).Err()
	})
}

// closeRedis closes a go-redis client, reporting a failure to the test.
func closeRedis(t testing.TB, c interface{ Close() error }) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("close redis client: %v", err)
	}
}

// waitReplicaLinked waits until the replica reports its link to the primary
// up, that is, the first full sync is done.
func (h *redisHA) waitReplicaLinked(t *testing.T, replica *redisProc) {
	t.Helper()
	c := redisClient(replica.addr)
	defer closeRedis(t, c)
	poll(t, replica.name+" linked to its primary", haStartTimeout, func() bool { return !replica.alive() }, func(ctx context.Context) error {
		info, err := c.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "master_link_status:up") {
			return fmt.Errorf("INFO replication says:\n%s", info)
		}
		return nil
	})
}

// downFlags reports whether a SENTINEL REPLICAS/SENTINELS entry's flags say
// the sentinel cannot reach that server.
func downFlags(flags string) bool {
	for _, f := range strings.Split(flags, ",") {
		switch f {
		case "s_down", "o_down", "disconnected":
			return true
		}
	}
	return false
}

// waitSentinelReady waits until sentinel s knows the replica, reachable and
// linked, and the other two sentinels, which it learns from their hello
// messages on the primary (every 2 s). Only then can the sentinels agree on
// a failover.
func (h *redisHA) waitSentinelReady(t *testing.T, s *redisProc) {
	t.Helper()
	c := sentinelClient(s.addr)
	defer closeRedis(t, c)
	wantSentinels := len(h.sentinels) - 1
	poll(t, s.name+" knows the replica and the other sentinels", haStartTimeout, func() bool { return !s.alive() }, func(ctx context.Context) error {
		replicas, err := c.Replicas(ctx, haMasterName).Result()
		if err != nil {
			return err
		}
		var linked int
		for _, r := range replicas {
			if !downFlags(r["flags"]) && r["master-link-status"] == "ok" {
				linked++
			}
		}
		if linked != len(h.servers)-1 {
			return fmt.Errorf("%d linked replicas, want %d: %v", linked, len(h.servers)-1, replicas)
		}
		sentinels, err := c.Sentinels(ctx, haMasterName).Result()
		if err != nil {
			return err
		}
		var up int
		for _, o := range sentinels {
			if !downFlags(o["flags"]) {
				up++
			}
		}
		if up != wantSentinels {
			return fmt.Errorf("%d other sentinels, want %d: %v", up, wantSentinels, sentinels)
		}
		return nil
	})
}

// URL returns the Redis URL that names the three sentinels and the master,
// in the form the product parses:
// redis-sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/0?master=infernal.
func (h *redisHA) URL() string {
	return "redis-sentinel://" + strings.Join(h.SentinelAddrs(), ",") + "/0?master=" + haMasterName
}

// SentinelAddrs returns the sentinels' host:port addresses, for
// redis.FailoverOptions.SentinelAddrs.
func (h *redisHA) SentinelAddrs() []string {
	addrs := make([]string, len(h.sentinels))
	for i, s := range h.sentinels {
		addrs[i] = s.addr
	}
	return addrs
}

// primaryAddr asks the sentinels in turn which server is the primary and
// returns the first answer, or the last error when none answers.
func (h *redisHA) primaryAddr() (string, error) {
	err := errors.New("no sentinel running")
	for _, s := range h.sentinels {
		if !s.alive() {
			continue
		}
		var addr []string
		addr, err = sentinelMaster(s.addr)
		if err == nil {
			return net.JoinHostPort(addr[0], addr[1]), nil
		}
	}
	return "", err
}

// sentinelMaster asks the sentinel at addr for the primary's [host, port].
func sentinelMaster(addr string) ([]string, error) {
	c := sentinelClient(addr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	got, err := c.GetMasterAddrByName(ctx, haMasterName).Result()
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	if err == nil && len(got) != 2 {
		err = fmt.Errorf("SENTINEL GET-MASTER-ADDR-BY-NAME %s answered %q", haMasterName, got)
	}
	return got, err
}

// PrimaryAddr returns the host:port of the server the sentinels name as
// primary (SENTINEL GET-MASTER-ADDR-BY-NAME), failing the test when no
// sentinel answers.
func (h *redisHA) PrimaryAddr(t *testing.T) string {
	t.Helper()
	addr, err := h.primaryAddr()
	if err != nil {
		t.Fatalf("ask the sentinels for the primary: %v", err)
	}
	return addr
}

// KillPrimary kills the server the sentinels name as primary with SIGKILL,
// waits for it to be gone, and returns its address (for WaitPromoted).
func (h *redisHA) KillPrimary(t *testing.T) string {
	t.Helper()
	addr := h.PrimaryAddr(t)
	for _, p := range h.servers {
		if p.addr == addr {
			if !p.alive() {
				t.Fatalf("the sentinels name %s (%s) as primary, but it has exited already", p.name, addr)
			}
			p.kill(t)
			return addr
		}
	}
	t.Fatalf("the sentinels name %s as primary, which is none of the servers started", addr)
	return ""
}

// role returns the first element of the ROLE answer of the server at addr:
// master, slave or sentinel.
func role(ctx context.Context, addr string) (string, error) {
	c := redisClient(addr)
	got, err := c.Do(ctx, "ROLE").Slice()
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if len(got) == 0 {
		return "", errors.New("ROLE answered nothing")
	}
	r, ok := got[0].(string)
	if !ok {
		return "", fmt.Errorf("ROLE answered %v", got)
	}
	return r, nil
}

// WaitPromoted waits up to timeout until every running sentinel names the
// same primary, other than oldAddr, and that server answers ROLE as master;
// it returns the new primary's address.
func (h *redisHA) WaitPromoted(t *testing.T, oldAddr string, timeout time.Duration) string {
	t.Helper()
	var promoted string
	poll(t, "a replica promoted in place of "+oldAddr, timeout, nil, func(ctx context.Context) error {
		named := map[string][]string{}
		for _, s := range h.sentinels {
			if !s.alive() {
				continue
			}
			addr, err := sentinelMaster(s.addr)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			a := net.JoinHostPort(addr[0], addr[1])
			named[a] = append(named[a], s.name)
		}
		if len(named) != 1 {
			return fmt.Errorf("the sentinels disagree on the primary: %v", named)
		}
		for a := range named {
			promoted = a
		}
		if promoted == oldAddr {
			return fmt.Errorf("the sentinels still name %s", oldAddr)
		}
		r, err := role(ctx, promoted)
		if err != nil {
			return fmt.Errorf("ROLE of %s: %w", promoted, err)
		}
		if r != "master" {
			return fmt.Errorf("the sentinels name %s, whose ROLE is %s", promoted, r)
		}
		return nil
	})
	return promoted
}

// pgServer is one PostgreSQL server of a postgresHA.
type pgServer struct {
	name string
	// home is the server's own folder, holding its socket and server.log
	// next to its data folder, home/data: not inside it, where
	// pg_basebackup would copy the primary's log and socket into the
	// standby's.
	home string
	dir  string // its data folder
	port int
}

// postgresHA is a PostgreSQL primary and a standby streaming from it that
// the primary waits for on every commit (synchronous replication), both on
// loopback, trusting any local user, owned by the test.
type postgresHA struct {
	bin     string
	base    string
	primary pgServer // the server started as primary, even once killed
	standby pgServer // the server started as standby, even once promoted
	// owner is the postgres user's uid and gid when the test runs as root:
	// PostgreSQL refuses to run as root, so everything runs as that user.
	owner *[2]int
}

// startPostgresHA starts a PostgreSQL primary and a synchronous standby
// cloned from it with pg_basebackup, and returns once the primary reports
// the standby as sync. Both are stopped and their folders removed when the
// test ends.
func startPostgresHA(t *testing.T) *postgresHA {
	t.Helper()
	h := &postgresHA{bin: postgresBinDir(t)}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL must run as the postgres user: %v", err)
		}
		uid, err := strconv.Atoi(u.Uid)
		if err != nil {
			t.Fatal(err)
		}
		gid, err := strconv.Atoi(u.Gid)
		if err != nil {
			t.Fatal(err)
		}
		h.owner = &[2]int{uid, gid}
	}
	// Not t.TempDir: its parents are private to this user, and the postgres
	// user must reach the data folders inside.
	base, err := os.MkdirTemp("", "infernal-ha-")
	if err != nil {
		t.Fatal(err)
	}
	h.base = base
	t.Cleanup(func() { h.stop(t) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 2)
	for i, s := range []*pgServer{&h.primary, &h.standby} {
		s.name = []string{"pg-primary", "pg-standby"}[i]
		s.home = filepath.Join(base, s.name)
		s.dir = filepath.Join(s.home, "data")
		s.port = ports[i]
		h.makeDir(t, s.home, 0o755)
		// PostgreSQL accepts only a data folder private to its user.
		h.makeDir(t, s.dir, 0o700)
	}

	h.run(t, "initdb", "-D", h.primary.dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	// synchronous_standby_names only on the primary's command line, not in
	// postgresql.conf, which pg_basebackup copies: a promoted standby with
	// it would wait on every commit for a standby it does not have. pg_ctl
	// hands -o to /bin/sh, hence the quotes around *.
	h.startServer(t, &h.primary, "-c synchronous_standby_names='*'")

	// -R writes standby.signal and a primary_conninfo holding the
	// connection's options, application_name among them, which names the
	// standby in pg_stat_replication. A fast checkpoint rather than a spread
	// one, which would take seconds.
	h.run(t, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(h.primary.port), "-U", "postgres",
		"-d", "application_name=standby1", "-D", h.standby.dir, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
	h.startServer(t, &h.standby, "")
	h.waitSync(t)
	return h
}

// makeDir creates the folder dir with mode perm, owned by the user the
// servers run as.
func (h *postgresHA) makeDir(t *testing.T, dir string, perm os.FileMode) {
	t.Helper()
	// Mkdir's mode passes through the umask; Chmod sets it as asked.
	if err := os.Mkdir(dir, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
	if h.owner != nil {
		if err := os.Chown(dir, h.owner[0], h.owner[1]); err != nil {
			t.Fatal(err)
		}
	}
}

// command returns the PostgreSQL program name with args, run as the
// postgres user when the test runs as root, from the base folder (which
// that user can enter, unlike perhaps the test's own folder).
func (h *postgresHA) command(name string, args ...string) *exec.Cmd {
	prog := filepath.Join(h.bin, name)
	var cmd *exec.Cmd
	if h.owner != nil {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", prog}, args...)...)
	} else {
		cmd = exec.Command(prog, args...)
	}
	cmd.Dir = h.base
	return cmd
}

// run runs the PostgreSQL program name with args, failing the test with
// its output if it fails.
func (h *postgresHA) run(t *testing.T, name string, args ...string) {
	t.Helper()
	if err := h.try(name, args...); err != nil {
		t.Fatal(err)
	}
}

// try runs the PostgreSQL program name with args and returns an error
// holding its output if it fails.
func (h *postgresHA) try(name string, args ...string) error {
	// pg_ctl start sends the server's output to its -l file, so the server
	// does not hold this pipe open.
	out, err := h.command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// startServer starts s with the options both servers share plus extra, and
// waits until it accepts connections. Fsync is off: the failover is
// simulated by killing processes, not the machine, so the page cache
// survives it.
//
// The port was free when chosen, but the tests running beside this one
// take ports too, and one may have taken it since: then the server starts
// again on another port.
func (h *postgresHA) startServer(t *testing.T, s *pgServer, extra string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		opts := fmt.Sprintf("-p %d -k '%s' -c listen_addresses=127.0.0.1 -c max_connections=200"+
			" -c wal_level=replica -c max_wal_senders=10 -c synchronous_commit=on -c fsync=off %s",
			s.port, s.home, extra)
		before := 0
		if old, err := os.ReadFile(s.log()); err == nil {
			before = len(old)
		}
		err := h.try("pg_ctl", "-D", s.dir, "-l", s.log(), "-w", "-t", "60", "-o", opts, "start")
		if err == nil {
			return
		}
		// Only what this attempt logged: pg_ctl appends to the file.
		logged, readErr := os.ReadFile(s.log())
		if attempt == 3 || readErr != nil || len(logged) < before || !strings.Contains(string(logged[before:]), "Address already in use") {
			t.Fatal(err)
		}
		s.port = freePorts(t, 1)[0]
	}
}

// log returns the path of the server's log file.
func (s pgServer) log() string {
	return filepath.Join(s.home, "server.log")
}

// running reports whether s's postmaster runs: it removes its pid file when
// it exits, even after an immediate stop.
func (s pgServer) running() bool {
	_, err := os.Stat(filepath.Join(s.dir, "postmaster.pid"))
	return err == nil
}

// stop stops the servers still running the way a crash would, shows the
// end of their logs if the test failed, and removes their folders.
func (h *postgresHA) stop(t *testing.T) {
	for _, s := range []pgServer{h.primary, h.standby} {
		if s.dir == "" {
			continue
		}
		if s.running() {
			if err := h.try("pg_ctl", "-D", s.dir, "-m", "immediate", "-w", "stop"); err != nil {
				t.Errorf("stop %s: %v", s.name, err)
			}
		}
		if t.Failed() {
			t.Logf("%s (port %d) server.log tail:\n%s", s.name, s.port, fileTail(s.log(), haLogLines))
		}
	}
	if err := os.RemoveAll(h.base); err != nil {
		t.Errorf("remove %s: %v", h.base, err)
	}
}

// pgURL returns the URL of database db on the given loopback ports, with
// query added to the parameters every URL here has.
func pgURL(db string, query string, ports ...int) string {
	hosts := make([]string, len(ports))
	for i, p := range ports {
		hosts[i] = loopback(p)
	}
	return "postgres://postgres@" + strings.Join(hosts, ",") + "/" + db + "?sslmode=disable" + query + "&connect_timeout=2"
}

// URL returns the multi-host URL of database db that finds whichever of the
// two servers accepts writes:
// postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/DB?sslmode=disable&target_session_attrs=read-write&connect_timeout=2.
func (h *postgresHA) URL(db string) string {
	return pgURL(db, "&target_session_attrs=read-write", h.primary.port, h.standby.port)
}

// PrimaryURL returns the URL of database db on the server started as
// primary only.
func (h *postgresHA) PrimaryURL(db string) string {
	return pgURL(db, "", h.primary.port)
}

// StandbyURL returns the URL of database db on the server started as
// standby only.
func (h *postgresHA) StandbyURL(db string) string {
	return pgURL(db, "", h.standby.port)
}

// PrimaryPort returns the port of the server started as primary, to tell
// which server a connection reached (inet_server_port()).
func (h *postgresHA) PrimaryPort() int { return h.primary.port }

// StandbyPort returns the port of the server started as standby.
func (h *postgresHA) StandbyPort() int { return h.standby.port }

// pgQueryRow connects to url, scans the one row query returns into dest,
// and disconnects.
func pgQueryRow(ctx context.Context, url, query string, dest ...any) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	err = conn.QueryRow(ctx, query).Scan(dest...)
	if cerr := conn.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// waitSync waits until the standby streams from the primary and the
// primary's pg_stat_replication shows it, by the application_name it
// connects with, as synchronous and alone. pg_basebackup's own WAL stream
// connected with that name too and counted as a sync standby, so a row
// named standby1 alone proves nothing until the standby's side confirms:
// once its WAL receiver streams, a lone row is its own.
func (h *postgresHA) waitSync(t *testing.T) {
	t.Helper()
	poll(t, "the standby streaming synchronously", haStartTimeout, func() bool { return !h.standby.running() }, func(ctx context.Context) error {
		var receiving int
		err := pgQueryRow(ctx, h.StandbyURL("postgres"),
			`SELECT count(*) FROM pg_stat_wal_receiver WHERE status = 'streaming'`, &receiving)
		if err != nil {
			return err
		}
		if receiving != 1 {
			return errors.New("the standby's WAL receiver is not streaming")
		}
		var all, sync int
		err = pgQueryRow(ctx, h.PrimaryURL("postgres"),
			`SELECT count(*), count(*) FILTER (WHERE application_name = 'standby1' AND sync_state = 'sync') FROM pg_stat_replication`,
			&all, &sync)
		if err != nil {
			return err
		}
		if all != 1 || sync != 1 {
			return fmt.Errorf("pg_stat_replication has %d rows, %d of them standby1 as sync; want 1 and 1", all, sync)
		}
		return nil
	})
}

// KillPrimary stops the server started as primary the way a crash would
// (pg_ctl stop -m immediate: no shutdown checkpoint, clients cut off).
func (h *postgresHA) KillPrimary(t *testing.T) {
	t.Helper()
	h.run(t, "pg_ctl", "-D", h.primary.dir, "-m", "immediate", "-w", "stop")
}

// Promote promotes the standby to a primary (pg_ctl promote) and waits
// until it has left recovery, that is, accepts writes.
func (h *postgresHA) Promote(t *testing.T) {
	t.Helper()
	h.run(t, "pg_ctl", "-D", h.standby.dir, "-w", "-t", "60", "promote")
	poll(t, "the standby out of recovery", haStartTimeout, nil, func(ctx context.Context) error {
		var recovering bool
		if err := pgQueryRow(ctx, h.StandbyURL("postgres"), `SELECT pg_is_in_recovery()`, &recovering); err != nil {
			return err
		}
		if recovering {
			return errors.New("pg_is_in_recovery() is still true")
		}
		return nil
	})
}

// TestHAServersFailOver checks the helpers above: a write acknowledged
// before the primary dies is there after the failover, and the clients
// given the topology's addresses find the new primary by themselves and
// can write to it.
func TestHAServersFailOver(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts seven Redis and PostgreSQL servers")
	}
	redisServerPath(t)
	postgresBinDir(t)
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		testRedisFailOver(t)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testPostgresFailOver(t)
	})
}

// testRedisFailOver is TestHAServersFailOver's Redis half.
func testRedisFailOver(t *testing.T) {
	began := time.Now()
	h := startRedisSentinel(t)
	t.Logf("redis: primary, replica and 3 sentinels ready in %v", time.Since(began).Round(time.Millisecond))
	if got, want := h.URL(), "redis-sentinel://"+strings.Join(h.SentinelAddrs(), ",")+"/0?master=infernal"; got != want || len(h.SentinelAddrs()) != 3 {
		t.Errorf("URL() = %q, want %q with 3 sentinels", got, want)
	}
	ctx := t.Context()
	c := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    haMasterName,
		SentinelAddrs: h.SentinelAddrs(),
		DialTimeout:   time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
		DisableIdentity: true,
	})
	defer closeRedis(t, c)
	if err := c.Set(ctx, "ha:before", "kept", 0).Err(); err != nil {
		t.Fatalf("SET before the failover: %v", err)
	}
	acked, err := c.Do(ctx, "WAIT", 1, 2000).Int64()
	if err != nil {
		t.Fatalf("WAIT: %v", err)
	}
	if acked < 1 {
		t.Fatalf("WAIT 1 2000 = %d replicas, want 1", acked)
	}

	began = time.Now()
	old := h.KillPrimary(t)
	promoted := h.WaitPromoted(t, old, 20*time.Second)
	t.Logf("redis: %s promoted in place of %s %v after SIGKILL", promoted, old, time.Since(began).Round(time.Millisecond))

	// The failover client finds the new primary by itself, through the
	// sentinels; until it has, reads fail, hence the retries.
	began = time.Now()
	var got string
	poll(t, "the key written before the failover read through the failover client", 20*time.Second, nil, func(ctx context.Context) error {
		got, err = c.Get(ctx, "ha:before").Result()
		return err
	})
	t.Logf("redis: failover client read again %v after the promotion", time.Since(began).Round(time.Millisecond))
	if got != "kept" {
		t.Errorf("GET ha:before after the failover = %q, want %q", got, "kept")
	}
	if err := c.Set(ctx, "ha:after", "written", 0).Err(); err != nil {
		t.Fatalf("SET after the failover: %v", err)
	}
	// The write went to the promoted server itself.
	direct := redisClient(promoted)
	defer closeRedis(t, direct)
	if got, err := direct.Get(ctx, "ha:after").Result(); err != nil || got != "written" {
		t.Errorf("GET ha:after on %s = %q, %v; want %q", promoted, got, err, "written")
	}
	if got := h.PrimaryAddr(t); got != promoted {
		t.Errorf("PrimaryAddr() = %s, want %s", got, promoted)
	}
}

// testPostgresFailOver is TestHAServersFailOver's PostgreSQL half.
func testPostgresFailOver(t *testing.T) {
	began := time.Now()
	h := startPostgresHA(t)
	t.Logf("postgres: primary and sync standby ready in %v", time.Since(began).Round(time.Millisecond))
	ctx := t.Context()
	url := h.URL("postgres")
	if want := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write&connect_timeout=2",
		h.PrimaryPort(), h.StandbyPort()); url != want {
		t.Errorf("URL(postgres) = %q, want %q", url, want)
	}

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect before the failover: %v", err)
	}
	var port int
	if err := conn.QueryRow(ctx, `SELECT inet_server_port()`).Scan(&port); err != nil {
		t.Fatal(err)
	}
	if port != h.PrimaryPort() {
		t.Errorf("before the failover the multi-host URL reached port %d, want the primary's %d", port, h.PrimaryPort())
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE ha_probe (id int PRIMARY KEY, note text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	// With synchronous_commit on and the standby sync, this returns only
	// once the standby has the row on disk.
	if _, err := conn.Exec(ctx, `INSERT INTO ha_probe VALUES (1, 'before')`); err != nil {
		t.Fatal(err)
	}
	if err := conn.Close(ctx); err != nil {
		t.Fatal(err)
	}

	began = time.Now()
	h.KillPrimary(t)
	h.Promote(t)
	t.Logf("postgres: standby promoted %v after the primary's crash", time.Since(began).Round(time.Millisecond))

	conn, err = pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect after the failover: %v", err)
	}
	defer func() {
		if err := conn.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	if err := conn.QueryRow(ctx, `SELECT inet_server_port()`).Scan(&port); err != nil {
		t.Fatal(err)
	}
	if port != h.StandbyPort() {
		t.Errorf("after the failover the multi-host URL reached port %d, want the promoted standby's %d", port, h.StandbyPort())
	}
	var note string
	if err := conn.QueryRow(ctx, `SELECT note FROM ha_probe WHERE id = 1`).Scan(&note); err != nil {
		t.Fatalf("read the row committed before the failover: %v", err)
	}
	if note != "before" {
		t.Errorf("row 1 after the failover has note %q, want %q", note, "before")
	}
	if _, err := conn.Exec(ctx, `INSERT INTO ha_probe VALUES (2, 'after')`); err != nil {
		t.Fatalf("write after the failover: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM ha_probe`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("ha_probe has %d rows after the failover, want 2", n)
	}
}
