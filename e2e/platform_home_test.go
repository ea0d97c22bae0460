package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"infernal/pkg/post"
)

// platformHomes are where a platform may be named in code: its client
// (pkg/platform/<name>), the table (pkg/post), the settings the operator
// gives at start (pkg/config, and pkg/atproto, the AT Protocol's rules that
// config checks for Bluesky), the worker's wiring (cmd/worker), and the
// tests and benchmarks that run them. Everything else reads the table.
var platformHomes = []string{"pkg/platform/", "pkg/post/", "pkg/config/", "pkg/atproto/", "cmd/worker/", "e2e/", "bench/"}

// The frontend may name a platform only in the types generated from the
// OpenAPI document; its facts come from GET /api/platforms.
var frontendHomes = []string{"frontend/src/api/types.ts"}

// tablePlatforms are the names the check looks for: every platform of the
// table but X, whose name is a letter (its facts are checked by the
// descriptor's tests), and the simulated sandbox, whose world lives in the
// store's own tables.
func tablePlatforms() []string {
	var out []string
	for _, d := range post.Descriptors() {
		if d.Name != post.XPlatform && !d.Simulated {
			out = append(out, d.Name)
		}
	}
	return out
}

// Adding a platform is its client package and a row of the table: outside
// the homes above, no Go identifier or string, and no frontend code (its
// comments aside), names Bluesky or Mastodon. A switch on a platform's name
// elsewhere would be a fact the table does not hold.
func TestPlatformsAreNamedOnlyInTheirHomes(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	names := tablePlatforms()
	if !slices.Contains(names, post.MastodonPlatform) || !slices.Contains(names, post.BlueskyPlatform) {
		t.Fatalf("the names looked for are %v", names)
	}
	named := func(text string) string {
		for _, n := range names {
			if strings.Contains(strings.ToLower(text), n) {
				return n
			}
		}
		return ""
	}
	home := func(rel string, homes []string) bool {
		return slices.ContainsFunc(homes, func(h string) bool { return rel == h || strings.HasPrefix(rel, h) })
	}
	var goFiles, tsFiles int
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if d.Name() == "node_modules" || d.Name() == "dist" || strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !home(rel, platformHomes):
			goFiles++
			for _, hit := range goNames(t, path, named) {
				t.Errorf("%s:%s", rel, hit)
			}
		case strings.HasPrefix(rel, "frontend/src/") && regexp.MustCompile(`\.(ts|tsx|css)$`).MatchString(rel) &&
			!regexp.MustCompile(`\.test\.tsx?$`).MatchString(rel) && !home(rel, frontendHomes):
			tsFiles++
			for _, hit := range frontendNames(t, path, named) {
				t.Errorf("%s:%s", rel, hit)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk saw the tree, not an empty folder.
	if goFiles < 100 || tsFiles < 50 {
		t.Fatalf("checked %d Go and %d frontend files", goFiles, tsFiles)
	}
}

// goNames lists the identifiers and string literals of a Go file that name
// a platform, by line.
func goNames(t *testing.T, path string, named func(string) string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	ast.Inspect(f, func(n ast.Node) bool {
		var text string
		switch n := n.(type) {
		case *ast.Ident:
			text = n.Name
		case *ast.BasicLit:
			text = n.Value
		default:
			return true
		}
		if p := named(text); p != "" {
			hits = append(hits, strconv.Itoa(fset.Position(n.Pos()).Line)+": names "+p)
		}
		return true
	})
	return hits
}

// comments are a frontend file's comments: /* … */ blocks and // lines
// (a // inside a string such as "https://" is not one).
var comments = regexp.MustCompile(`(?s)/\*.*?\*/|(^|[^:'"\x60])//[^\n]*`)

// frontendNames lists the lines of a frontend file's code that name a
// platform.
func frontendNames(t *testing.T, path string, named func(string) string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Comments are blanked line for line, so that the numbers still hold.
	code := comments.ReplaceAllStringFunc(string(src), func(c string) string {
		return regexp.MustCompile(`[^\n]`).ReplaceAllString(c, " ")
	})
	var hits []string
	for i, line := range strings.Split(code, "\n") {
		if p := named(line); p != "" {
			hits = append(hits, strconv.Itoa(i+1)+": names "+p)
		}
	}
	return hits
}
