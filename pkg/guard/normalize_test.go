package guard

import (
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "plain", in: "hello", want: "hello"},
		{name: "case folded", in: "HeLLo STRASSE", want: "hello strasse"},
		{name: "sharp s folds to ss", in: "Straße", want: "strasse"},
		{name: "full-width", in: "ＳＴＯＰ ｉｔ", want: "stop it"},
		{name: "ligature", in: "ﬁne", want: "fine"},
		{name: "zero-width space", in: "st\u200bop", want: "stop"},
		{name: "zero-width joiner and non-joiner", in: "s\u200dt\u200co\u2060p", want: "stop"},
		{name: "BOM and soft hyphen", in: "\ufeffsto\u00adp", want: "stop"},
		{name: "bidi controls", in: "\u202estop\u202c \u2066go\u2069", want: "stop go"},
		{name: "variation selector and tags", in: "sto\ufe0fp\U000E0041", want: "stop"},
		{name: "Hangul filler", in: "st\u3164op", want: "stop"},
		{name: "control characters", in: "st\x00o\x07p", want: "stop"},
		{name: "whitespace becomes spaces", in: "go\taway\nnow\u00a0ok", want: "go away now ok"},
		{name: "mathematical bold", in: "𝐒𝐭𝐨𝐩", want: "stop"},
		{name: "Cyrillic is kept (skeleton's job)", in: "стоп", want: "стоп"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSkeleton(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		// UTS #39's own example: Latin "paypal" and one with Cyrillic letters.
		{name: "paypal with Cyrillic а and р", a: "paypal", b: "раураl", want: true},
		{name: "Cyrillic а е о р с х у", a: "aeopcxy", b: "аеорсху", want: true},
		{name: "Greek omicron and alpha", a: "ο", b: "o", want: true},
		{name: "Greek alpha", a: "α", b: "a", want: true},
		{name: "digit one, capital I and small l", a: "1", b: "I", want: true},
		{name: "m and rn", a: "m", b: "rn", want: true},
		{name: "zero and capital O", a: "0", b: "O", want: true},
		{name: "distinct letters", a: "a", b: "b", want: false},
		{name: "case is not folded", a: "A", b: "a", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Skeleton(tt.a) == Skeleton(tt.b); got != tt.want {
				t.Errorf("Skeleton(%q) = %q, Skeleton(%q) = %q; equal %v, want %v", tt.a, Skeleton(tt.a), tt.b, Skeleton(tt.b), got, tt.want)
			}
		})
	}
}

func TestConfusablesTable(t *testing.T) {
	t.Parallel()
	// Lines of Unicode 13.0.0's confusables.txt, read off the file.
	tests := []struct {
		name string
		r    rune
		want string
	}{
		{name: "CYRILLIC SMALL LETTER A", r: 0x0430, want: "a"},
		{name: "CYRILLIC SMALL LETTER ER", r: 0x0440, want: "p"},
		{name: "GREEK SMALL LETTER OMICRON", r: 0x03BF, want: "o"},
		{name: "MATHEMATICAL BOLD SMALL A", r: 0x1D41A, want: "a"},
		{name: "LATIN SMALL LETTER M", r: 'm', want: "rn"},
		{name: "DIGIT ZERO", r: '0', want: "O"},
		{name: "CYRILLIC CAPITAL LETTER A", r: 0x0410, want: "A"},
		{name: "FULLWIDTH LATIN SMALL LETTER A", r: 0xFF41, want: "a"},
		{name: "FULLWIDTH LATIN CAPITAL LETTER A", r: 0xFF21, want: "A"},
		{name: "HYPHEN", r: 0x2010, want: "-"},
		{name: "QUOTATION MARK", r: '"', want: "''"},
		{name: "PERCENT SIGN", r: '%', want: "\u00BA/\u2080"},
		{name: "NO-BREAK SPACE", r: 0x00A0, want: " "},
		{name: "CJK COMPATIBILITY IDEOGRAPH-2FA1D", r: 0x2FA1D, want: "\U0002A600"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := prototype(tt.r); !ok || got != tt.want {
				t.Errorf("prototype(%U) = %q, %v, want %q", tt.r, got, ok, tt.want)
			}
		})
	}
	if _, ok := prototype('a'); ok {
		t.Error("prototype('a'): a prototype maps to itself, want no entry")
	}
	if n := len(confusables()); n != 6311 {
		t.Errorf("len(confusables()) = %d, want the 6311 mappings of confusables.txt 13.0.0", n)
	}
	if ConfusablesVersion != "13.0.0" {
		t.Errorf("ConfusablesVersion = %q, want 13.0.0", ConfusablesVersion)
	}
	table, err := parseConfusables(confusablesData)
	if err != nil {
		t.Fatalf("parseConfusables(confusables.txt): %v", err)
	}
	if table.version != ConfusablesVersion {
		t.Errorf("confusables.txt Version = %q, want ConfusablesVersion %q", table.version, ConfusablesVersion)
	}
	for r, p := range table.prototypes {
		if p == "" || p == string(r) {
			t.Errorf("confusables.txt maps %U to %q, want another, non-empty prototype", r, p)
		}
	}
}

func TestParseConfusables(t *testing.T) {
	t.Parallel()
	const header = "# Version: 13.0.0\n# Entries: 2\n"
	t.Run("valid", func(t *testing.T) {
		got, err := parseConfusables(header + "\n0430 ; 0061\n  0025 ;\t00BA 002F 2080  \n# a comment\n")
		if err != nil {
			t.Fatalf("parseConfusables: %v", err)
		}
		if got.version != "13.0.0" || len(got.prototypes) != 2 || got.prototypes[0x0430] != "a" || got.prototypes['%'] != "\u00BA/\u2080" {
			t.Errorf("parseConfusables = %+v, want version 13.0.0, U+0430 to a and %% to \u00BA/\u2080", got)
		}
	})
	bad := []struct {
		name, data string
	}{
		{name: "no version", data: "# Entries: 1\n0430 ; 0061\n"},
		{name: "count differs", data: header + "0430 ; 0061\n"},
		{name: "no entries line", data: "# Version: 13.0.0\n0430 ; 0061\n"},
		{name: "no separator", data: header + "0430 0061\n0431 ; 0062\n"},
		{name: "bad hex", data: header + "04G0 ; 0061\n0431 ; 0062\n"},
		{name: "surrogate", data: header + "D800 ; 0061\n0431 ; 0062\n"},
		{name: "out of range", data: header + "110000 ; 0061\n0431 ; 0062\n"},
		{name: "empty prototype", data: header + "0430 ;\n0431 ; 0062\n"},
		{name: "duplicate", data: header + "0430 ; 0061\n0430 ; 0062\n"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := parseConfusables(tt.data); err == nil {
				t.Errorf("parseConfusables(%q) = %+v, want an error", tt.data, got)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{name: "Cyrillic look-alikes", a: "scam coin", b: "ѕсаm соіn", want: true},
		{name: "full-width", a: "scam", b: "ＳＣＡＭ", want: true},
		{name: "zero-width joiners", a: "scam", b: "s\u200dc\u200da\u200dm", want: true},
		{name: "digits for letters", a: "loser", b: "L0SER", want: true},
		{name: "mathematical alphanumerics", a: "scam", b: "𝓼𝓬𝓪𝓶", want: true},
		{name: "diacritics dropped", a: "arrete", b: "Arrête", want: true},
		{name: "stacked marks dropped", a: "scam", b: "s\u0336c\u0336a\u0336m\u0336", want: true},
		{name: "Greek omicron", a: "hello", b: "hellο", want: true},
		{name: "different words", a: "scam", b: "scan", want: false},
		{name: "spaces still separate", a: "sc am", b: "scam", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ca, cb := Canonical(tt.a), Canonical(tt.b)
			if got := ca == cb; got != tt.want {
				t.Errorf("Canonical(%q) = %q, Canonical(%q) = %q; equal %v, want %v", tt.a, ca, tt.b, cb, got, tt.want)
			}
		})
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []token
	}{
		{name: "words", in: "go away!", want: []token{{text: "go", clause: true}, {text: "away"}}},
		{name: "a comma starts a clause", in: "no, go", want: []token{{text: "no", clause: true}, {text: "go", clause: true}}},
		{name: "mention keeps the clause start", in: "@bot_1 go away", want: []token{{text: "bot_1", mention: true, clause: true}, {text: "go", clause: true}, {text: "away"}}},
		{name: "sentence break", in: "ok. go", want: []token{{text: "ok", clause: true}, {text: "go", clause: true}}},
		{name: "emoji is a token and a break", in: "hi☕ there", want: []token{{text: "hi", clause: true}, {text: "☕"}, {text: "there", clause: true}}},
		{name: "unspaced script, one token a character", in: "停止", want: []token{{text: "停", clause: true}, {text: "止"}}},
		{name: "apostrophe separates", in: "don't", want: []token{{text: "don", clause: true}, {text: "t"}}},
		{name: "lone @ is punctuation", in: "a @ b", want: []token{{text: "a", clause: true}, {text: "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tokens(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("tokens(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"", "stop", "ѕсаm\u200d", "ＳＴＯＰ", "𝐒𝐭𝐨𝐩", "Straße", "%", "\xff\xfe", "@a_b c", "月曜日の朝", "다ᄇ자", "a\u0301\u0336", "ǅ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Canonical(s)
		if again := Canonical(c); again != c {
			t.Errorf("Canonical not idempotent on %q: %q then %q", s, c, again)
		}
		for _, tok := range tokens(c) {
			if tok.text == "" {
				t.Errorf("tokens(%q) has an empty token", c)
			}
		}
		_ = Skeleton(s)
		_, _ = MatchPhrase(s, []string{s, "stop"})
		_, _ = OptOut(s)
		_ = Similarity(s, c)
		_ = Flags(s, nil, "persona")
	})
}
