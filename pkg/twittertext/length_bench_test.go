package twittertext

import (
	"strings"
	"testing"
)

func BenchmarkWeightedLength(b *testing.B) {
	texts := map[string]string{
		"ascii": strings.Repeat("the gates of hell are open ", 10),
		"mixed": "Mondays 😈 are proof 🔥 https://example.com/hell?x=1 that 地獄 exists 👨‍👩‍👧‍👦 — " + strings.Repeat("é", 50),
	}
	for name, text := range texts {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				WeightedLength(text)
			}
		})
	}
}
