package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/argon2"
)

// argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes, 1 lane).
const (
	argonMemory  = 19 * 1024
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

var errBadHash = errors.New("auth: malformed password hash")

// HashCost is argon2id's cost: the memory it fills, in KiB, and the passes
// over it.
type HashCost struct {
	MemoryKiB uint32
	Passes    uint32
}

// DefaultHashCost is the cost every deployment uses: OWASP's recommended
// minimum for argon2id (19 MiB, 2 passes).
func DefaultHashCost() HashCost { return HashCost{MemoryKiB: argonMemory, Passes: argonTime} }

// valid reports whether argon2id accepts c with one lane.
func (c HashCost) valid() bool { return c.MemoryKiB >= 8*argonThreads && c.Passes >= 1 }

// HashPassword returns an argon2id hash of password at DefaultHashCost, in
// the PHC string format.
func HashPassword(password string) (string, error) { return DefaultHashCost().Hash(password) }

// Hash returns an argon2id hash of password at cost c, in the PHC string
// format; the cost is written into the hash, so CheckPassword reads it back.
func (c HashCost) Hash(password string) (string, error) {
	if !c.valid() {
		return "", fmt.Errorf("auth: hash cost %d KiB, %d passes is below argon2id's minimum", c.MemoryKiB, c.Passes)
	}
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, c.Passes, c.MemoryKiB, argonThreads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, c.MemoryKiB, c.Passes, argonThreads,
		enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// CheckPassword reports whether password matches hash, in constant time.
func CheckPassword(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil {
		return false, errBadHash
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(password), salt, passes, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// RandomPassword returns a password of 24 random URL-safe characters.
func RandomPassword() string {
	b := make([]byte, 18)
	// crypto/rand.Read never fails on the platforms Go supports.
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// WritePasswordFile writes a generated password to path, readable by its
// owner only, replacing what the file held; it keeps the password out of
// logs that collectors gather.
func WritePasswordFile(path, password string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("auth: password file: %w", err)
	}
	// A file that already existed keeps its mode through OpenFile; narrow it.
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("auth: password file: %w", errors.Join(err, f.Close()))
	}
	if _, err := fmt.Fprintln(f, password); err != nil {
		return fmt.Errorf("auth: password file: %w", errors.Join(err, f.Close()))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("auth: password file: %w", err)
	}
	return nil
}
