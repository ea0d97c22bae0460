package auth_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"infernal/pkg/auth"
	"infernal/pkg/store/storetest"
)

func TestPasswords(t *testing.T) {
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

func TestBootstrap(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	svc, err := auth.NewService(st, time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))

	// No password and no admin: one is generated and printed once.
	if err := svc.Bootstrap(ctx, "admin", "", log); err != nil {
		t.Fatal(err)
	}
	first := logs.String()
	i := strings.Index(first, "password=")
	if i < 0 {
		t.Fatalf("the generated password was not printed: %s", first)
	}
	generated := strings.Fields(first[i+len("password="):])[0]
	if _, _, err := svc.Login(ctx, "admin", generated, "127.0.0.1"); err != nil {
		t.Fatalf("login with the generated password: %v", err)
	}
	logs.Reset()
	if err := svc.Bootstrap(ctx, "admin", "", log); err != nil || logs.Len() != 0 {
		t.Fatalf("second start must neither regenerate nor print: %v %q", err, logs.String())
	}

	// A configured password replaces it.
	if err := svc.Bootstrap(ctx, "admin", "a new password", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Login(ctx, "admin", generated, "127.0.0.2"); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Errorf("old password still works: %v", err)
	}
	token, expires, err := svc.Login(ctx, "admin", "a new password", "127.0.0.2")
	if err != nil || len(token) != 43 || time.Until(expires) < 59*time.Minute {
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

func TestThrottleByAddress(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	svc, err := auth.NewService(st, time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
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
	ctx := context.Background()
	st := storetest.New(t)
	now := time.Now()
	clock := func() time.Time { return now }
	svc, err := auth.NewService(st, time.Hour, clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Bootstrap(ctx, "admin", "hellfire666", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
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
