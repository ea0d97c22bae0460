package auth_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"infernal/pkg/auth"
	"infernal/pkg/store/storetest"
)

// light is the hashing cost of the tests about something else than the
// hash: the deployed cost would spend a fifth of a second of CPU a check
// under the race detector. TestPasswords, TestHashCost and TestWithHashCost
// check the deployed cost.
var light = auth.WithHashCost(auth.HashCost{MemoryKiB: 64, Passes: 1})

func TestPasswords(t *testing.T) {
	t.Parallel()
	hash, err := auth.HashPassword("hellfire666")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q is not argon2id in PHC form", hash)
	}
	other, err := auth.HashPassword("hellfire666")
	if err != nil || other == hash {
		t.Errorf("two hashes of one password must differ by salt")
	}
	tests := []struct {
		name     string
		hash     string
		password string
		want     bool
		wantErr  bool
	}{
		{name: "right", hash: hash, password: "hellfire666", want: true},
		{name: "wrong", hash: hash, password: "hellfire667", want: false},
		{name: "empty", hash: hash, password: "", want: false},
		{name: "not argon2id", hash: "$2a$10$abcdefghijklmnopqrstuv", password: "x", wantErr: true},
		{name: "truncated", hash: "$argon2id$v=19$m=19456", password: "x", wantErr: true},
		{name: "bad salt", hash: "$argon2id$v=19$m=19456,t=2,p=1$!!!$AAAA", password: "x", wantErr: true},
		{name: "bad version", hash: "$argon2id$v=1$m=19456,t=2,p=1$AAAA$AAAA", password: "x", wantErr: true},
		{name: "garbage", hash: "garbage", password: "x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := auth.CheckPassword(tt.hash, tt.password)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("CheckPassword = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
	if p := auth.RandomPassword(); len(p) != 24 || p == auth.RandomPassword() {
		t.Errorf("RandomPassword gave %q", p)
	}
}

func TestHashCost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cost    auth.HashCost
		prefix  string
		wantErr bool
	}{
		{name: "default", cost: auth.DefaultHashCost(), prefix: "$argon2id$v=19$m=19456,t=2,p=1$"},
		{name: "light", cost: auth.HashCost{MemoryKiB: 64, Passes: 1}, prefix: "$argon2id$v=19$m=64,t=1,p=1$"},
		{name: "no memory", cost: auth.HashCost{MemoryKiB: 7, Passes: 1}, wantErr: true},
		{name: "no passes", cost: auth.HashCost{MemoryKiB: 64}, wantErr: true},
		{name: "zero", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash, err := tt.cost.Hash("hellfire666")
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Hash at %+v = %q, want an error", tt.cost, hash)
				}
				return
			}
			if err != nil || !strings.HasPrefix(hash, tt.prefix) {
				t.Fatalf("Hash = %q, %v; want the prefix %q", hash, err, tt.prefix)
			}
			// The cost travels in the hash: the check reads it back.
			if ok, err := auth.CheckPassword(hash, "hellfire666"); err != nil || !ok {
				t.Errorf("CheckPassword(right) = %v, %v", ok, err)
			}
			if ok, err := auth.CheckPassword(hash, "hellfire667"); err != nil || ok {
				t.Errorf("CheckPassword(wrong) = %v, %v", ok, err)
			}
		})
	}
}

func TestWithHashCost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct {
		name   string
		cost   auth.HashCost
		prefix string
	}{
		{name: "a light cost is used", cost: auth.HashCost{MemoryKiB: 64, Passes: 1}, prefix: "$argon2id$v=19$m=64,t=1,p=1$"},
		{name: "a cost argon2id refuses keeps the default", cost: auth.HashCost{MemoryKiB: 1}, prefix: "$argon2id$v=19$m=19456,t=2,p=1$"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := storetest.New(t)
			svc, err := auth.NewService(st, time.Hour, time.Now, auth.WithHashCost(tt.cost))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
				t.Fatal(err)
			}
			a, err := st.AdminByUsername(ctx, "admin")
			if err != nil || !strings.HasPrefix(a.PasswordHash, tt.prefix) {
				t.Fatalf("stored hash %q (%v), want the prefix %q", a.PasswordHash, err, tt.prefix)
			}
			if _, _, err := svc.Login(ctx, "admin", "hellfire666", "192.0.2.1"); err != nil {
				t.Errorf("login with the password: %v", err)
			}
		})
	}
}

func TestBootstrap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	svc, err := auth.NewService(st, time.Hour, time.Now, light)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))

	// No password and no admin: one is generated and handed back, never logged.
	generated, err := svc.Bootstrap(ctx, "admin", "", log)
	if err != nil {
		t.Fatal(err)
	}
	if len(generated) != 24 {
		t.Fatalf("generated password %q", generated)
	}
	if strings.Contains(logs.String(), generated) {
		t.Fatalf("the generated password went into the log: %s", logs.String())
	}
	if _, _, err := svc.Login(ctx, "admin", generated, "127.0.0.1"); err != nil {
		t.Fatalf("login with the generated password: %v", err)
	}
	again, err := svc.Bootstrap(ctx, "admin", "", log)
	if err != nil || again != "" {
		t.Fatalf("second start must not regenerate: %q %v", again, err)
	}
	if _, _, err := svc.Login(ctx, "admin", generated, "127.0.0.1"); err != nil {
		t.Fatalf("the generated password must survive a restart: %v", err)
	}

	// A configured password replaces it.
	if _, err := svc.Bootstrap(ctx, "admin", "a new password", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Login(ctx, "admin", generated, "127.0.0.2"); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Errorf("old password still works: %v", err)
	}
	before := time.Now()
	token, expires, err := svc.Login(ctx, "admin", "a new password", "127.0.0.2")
	// The session lives an hour from the login, however long the login took.
	if err != nil || len(token) != 43 || expires.Before(before.Add(time.Hour)) || expires.After(time.Now().Add(time.Hour)) {
		t.Fatalf("login: %q %v %v", token, expires, err)
	}
	if err := svc.Authenticate(ctx, token); err != nil {
		t.Errorf("fresh token refused: %v", err)
	}
	if err := svc.Logout(ctx, token); err != nil {
		t.Fatal(err)
	}
	if err := svc.Authenticate(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("revoked token accepted: %v", err)
	}
	if err := svc.Authenticate(ctx, ""); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("empty token accepted: %v", err)
	}
}

// Changing the administrator's credentials at start revokes what the old
// ones gave: a new password ends every session, a new name disables the old
// one. Restarting with the same settings revokes nothing.
func TestBootstrapRevokes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	svc, err := auth.NewService(st, time.Hour, time.Now, light)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	boot := func(username, password string) string {
		t.Helper()
		generated, err := svc.Bootstrap(ctx, username, password, log)
		if err != nil {
			t.Fatal(err)
		}
		return generated
	}
	login := func(username, password string) string {
		t.Helper()
		token, _, err := svc.Login(ctx, username, password, "192.0.2.1")
		if err != nil {
			t.Fatalf("login %s: %v", username, err)
		}
		return token
	}
	live := func(token string) bool {
		t.Helper()
		err := svc.Authenticate(ctx, token)
		if err != nil && !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatal(err)
		}
		return err == nil
	}

	boot("admin", "first password")
	first := login("admin", "first password")
	boot("admin", "first password")
	if !live(first) {
		t.Fatal("a restart with the same password revoked the session")
	}
	boot("admin", "second password")
	if live(first) {
		t.Error("a session made with the old password survived the password change")
	}
	second := login("admin", "second password")

	tests := []struct {
		name     string
		username string
		password string
		want     bool
	}{
		{name: "renamed admin's old name", username: "admin", password: "second password", want: false},
		{name: "new name", username: "lucifer", password: "third password", want: true},
	}
	boot("lucifer", "third password")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := svc.Login(ctx, tt.username, tt.password, "192.0.2.2")
			if (err == nil) != tt.want {
				t.Errorf("login %s: %v, want success %v", tt.username, err, tt.want)
			}
			if err != nil && !errors.Is(err, auth.ErrInvalidCredentials) {
				t.Errorf("login %s: %v, want Invalid credentials", tt.username, err)
			}
		})
	}
	if live(second) {
		t.Error("a session of the renamed admin survived the rename")
	}

	// Renamed back without a password: the disabled account does not come
	// back with its old password, a new one is generated.
	generated := boot("admin", "")
	if generated == "" {
		t.Fatal("renaming back without a password generated none")
	}
	if _, _, err := svc.Login(ctx, "admin", "second password", "192.0.2.3"); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Errorf("the disabled account's old password works again: %v", err)
	}
	login("admin", generated)
	if _, _, err := svc.Login(ctx, "lucifer", "third password", "192.0.2.3"); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Errorf("the other name still logs in: %v", err)
	}
}

func TestLogoutAll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	svc, err := auth.NewService(st, time.Hour, time.Now, light)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for _, address := range []string{"192.0.2.1", "192.0.2.2", "2001:db8::1"} {
		token, _, err := svc.Login(ctx, "admin", "hellfire666", address)
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, token)
	}
	if err := svc.LogoutAll(ctx, tokens[0]); err != nil {
		t.Fatal(err)
	}
	for i, token := range tokens {
		if err := svc.Authenticate(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("session %d survived log out everywhere: %v", i, err)
		}
	}
	if err := svc.LogoutAll(ctx, tokens[0]); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("log out everywhere with a revoked token: %v", err)
	}
}

func TestWritePasswordFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing bool
	}{
		{name: "new file"},
		{name: "existing world-readable file", existing: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "admin-password")
			if tt.existing {
				if err := os.WriteFile(path, []byte("an older, longer password\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := auth.WritePasswordFile(path, "s3cret"); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", info.Mode().Perm())
			}
			b, err := os.ReadFile(path)
			if err != nil || string(b) != "s3cret\n" {
				t.Errorf("file holds %q (%v)", b, err)
			}
		})
	}
}

func TestThrottleByAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	svc, err := auth.NewService(st, time.Hour, time.Now, light)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	// Guessing many names from one address trips the address limit.
	for i := 0; i < auth.MaxPerAddress; i++ {
		_, _, err := svc.Login(ctx, "guess"+strings.Repeat("x", i%7)+string(rune('a'+i)), "nope", "10.6.6.6")
		if !errors.Is(err, auth.ErrInvalidCredentials) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	_, _, err = svc.Login(ctx, "admin", "hellfire666", "10.6.6.6")
	var throttled *auth.ThrottledError
	if !errors.As(err, &throttled) || throttled.RetryAfter <= 0 || throttled.RetryAfter > auth.Window {
		t.Fatalf("from a guessing address: %v, want throttled", err)
	}
	if _, _, err := svc.Login(ctx, "admin", "hellfire666", "10.6.6.7"); err != nil {
		t.Errorf("another address must still get in: %v", err)
	}
}

func TestPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	now := time.Now()
	clock := func() time.Time { return now }
	svc, err := auth.NewService(st, time.Hour, clock, light)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < auth.MaxPerUsername; i++ {
		if _, _, err := svc.Login(ctx, "admin", "wrong", "127.0.0.1"); !errors.Is(err, auth.ErrInvalidCredentials) {
			t.Fatal(err)
		}
	}
	// Two windows later, and pruned, the old failures no longer throttle.
	now = now.Add(2 * auth.Window)
	if err := svc.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := st.CountLoginFailures(ctx, "admin", "127.0.0.1", time.Time{})
	if err != nil || f.ByUsername != 0 {
		t.Errorf("failures after pruning: %+v %v", f, err)
	}
	token, _, err := svc.Login(ctx, "admin", "hellfire666", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(26 * time.Hour)
	if err := svc.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	now = now.Add(-26 * time.Hour)
	if err := svc.Authenticate(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("a pruned session still authenticates: %v", err)
	}
}
