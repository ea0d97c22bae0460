package guard

import (
	_ "embed" // for confusablesData
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// ConfusablesVersion is the Unicode version of the confusables.txt that
// prototype maps from; the embedded table's Version line must name it.
const ConfusablesVersion = "13.0.0"

// confusablesData is the table Skeleton maps through, written by
// scripts/confusables/gen.mjs; its header documents the format.
//
//go:embed confusables.txt
var confusablesData string

// confusables is the embedded table, parsed on first use. It is read-only
// once built, so any goroutine may read it.
var confusables = sync.OnceValue(func() map[rune]string {
	table, err := parseConfusables(confusablesData)
	if err != nil {
		// The file is compiled in and the tests parse it: a broken table is
		// a broken build, not a condition to handle at run time.
		panic(fmt.Errorf("guard: embedded confusables.txt: %w", err))
	}
	if table.version != ConfusablesVersion {
		panic(fmt.Errorf("guard: embedded confusables.txt is Unicode %q, ConfusablesVersion %q", table.version, ConfusablesVersion))
	}
	return table.prototypes
})

// A confusablesTable is a parsed confusables.txt of pkg/guard.
type confusablesTable struct {
	// version is the Unicode version the Version line names.
	version string
	// prototypes maps each listed character to its prototype.
	prototypes map[rune]string
}

// parseConfusables reads the format scripts/confusables/gen.mjs writes: "#"
// comments, among them a "# Version: " and a "# Entries: " line, and one
// "source ; prototype" mapping per line, code points in hexadecimal, the
// prototype's separated by spaces. It fails on a malformed line, a source
// listed twice, or a number of mappings other than Entries.
func parseConfusables(data string) (confusablesTable, error) {
	t := confusablesTable{prototypes: make(map[rune]string, 1<<13)}
	entries := -1
	// Prototypes repeat ("a" for a hundred letters): keep one copy of each.
	interned := make(map[string]string)
	var buf []byte
	n := 0
	for line := range strings.Lines(data) {
		n++
		line = strings.TrimSpace(line)
		if comment, ok := strings.CutPrefix(line, "#"); ok {
			comment = strings.TrimSpace(comment)
			if v, ok := strings.CutPrefix(comment, "Version:"); ok {
				t.version = strings.TrimSpace(v)
			} else if v, ok := strings.CutPrefix(comment, "Entries:"); ok {
				e, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil {
					return confusablesTable{}, fmt.Errorf("line %d: entries: %w", n, err)
				}
				entries = e
			}
			continue
		}
		if line == "" {
			continue
		}
		from, to, ok := strings.Cut(line, ";")
		if !ok {
			return confusablesTable{}, fmt.Errorf("line %d: no ';' in %q", n, line)
		}
		src, err := codePoint(from)
		if err != nil {
			return confusablesTable{}, fmt.Errorf("line %d: source: %w", n, err)
		}
		buf = buf[:0]
		for f := range strings.FieldsSeq(to) {
			r, err := codePoint(f)
			if err != nil {
				return confusablesTable{}, fmt.Errorf("line %d: prototype: %w", n, err)
			}
			buf = utf8.AppendRune(buf, r)
		}
		if len(buf) == 0 {
			return confusablesTable{}, fmt.Errorf("line %d: empty prototype for %U", n, src)
		}
		if _, dup := t.prototypes[src]; dup {
			return confusablesTable{}, fmt.Errorf("line %d: %U listed twice", n, src)
		}
		p, ok := interned[string(buf)]
		if !ok {
			p = string(buf)
			interned[p] = p
		}
		t.prototypes[src] = p
	}
	if t.version == "" {
		return confusablesTable{}, errors.New("no Version line")
	}
	if entries != len(t.prototypes) {
		return confusablesTable{}, fmt.Errorf("%d mappings, the Entries line says %d", len(t.prototypes), entries)
	}
	return t, nil
}

// codePoint parses a code point written in hexadecimal ("0430").
func codePoint(s string) (rune, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 16, 32)
	if err != nil {
		return 0, fmt.Errorf("code point %q: %w", s, err)
	}
	if v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) {
		return 0, fmt.Errorf("code point %q: not a Unicode scalar value", s)
	}
	return rune(v), nil
}

// prototype is confusables.txt's mapping of r to the prototype it is
// confusable with; ok is false for a character the file does not list
// (it is its own prototype).
func prototype(r rune) (p string, ok bool) {
	p, ok = confusables()[r]
	return p, ok
}
