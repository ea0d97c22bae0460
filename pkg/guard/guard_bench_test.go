package guard

import "testing"

// benchText is a reply of ordinary length with a look-alike letter.
const benchText = "@infernal Montag, Regen, und die Kaffeemaschine ist kaputt. Ist das schon die Hölle? ѕсаm or not, I can't stop laughing ☕"

func BenchmarkCanonical(b *testing.B) {
	for b.Loop() {
		Canonical(benchText)
	}
}

func BenchmarkOptOut(b *testing.B) {
	for b.Loop() {
		OptOut(benchText)
	}
}

func BenchmarkNearDuplicate(b *testing.B) {
	recent := make([]string, 50)
	for i := range recent {
		recent[i] = benchText
	}
	for b.Loop() {
		NearDuplicate(benchText+" again", recent, DefaultNearDuplicateThreshold)
	}
}

// BenchmarkNearDuplicateWords compares one draft with a week of a busy
// persona's texts, their Words kept: the near-duplicate guard's cost per
// draft in the worker.
func BenchmarkNearDuplicateWords(b *testing.B) {
	recent := make([]Words, 500)
	for i := range recent {
		recent[i] = ContentWords(benchText)
	}
	draft := ContentWords(benchText + " again")
	for b.Loop() {
		NearDuplicateWords(draft, recent, DefaultNearDuplicateThreshold)
	}
}

// BenchmarkParseConfusables parses the embedded confusables table: the
// one-time cost of the first Skeleton in a process.
func BenchmarkParseConfusables(b *testing.B) {
	for b.Loop() {
		if _, err := parseConfusables(confusablesData); err != nil {
			b.Fatal(err)
		}
	}
}
