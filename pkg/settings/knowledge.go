package settings

import "fmt"

// Knowledge is how much of the knowledge base (pkg/knowledge) a draft's
// prompt gets.
type Knowledge struct {
	// Chunks is the most knowledge chunks in a prompt, 0 (none) to
	// MaxKnowledgeChunks; only those above the similarity floor go in.
	Chunks int `json:"chunks"`
}

// MaxKnowledgeChunks is the most knowledge chunks a prompt may get.
const MaxKnowledgeChunks = 5

// DefaultKnowledge is a fresh install's: 3 chunks.
func DefaultKnowledge() Knowledge {
	return Knowledge{Chunks: 3}
}

// Normalize checks k's range; a bad value is a *FieldError naming
// knowledge.chunks.
func (k Knowledge) Normalize() (Knowledge, error) {
	if k.Chunks < 0 || k.Chunks > MaxKnowledgeChunks {
		return Knowledge{}, &FieldError{"knowledge.chunks", fmt.Sprintf("%d is out of range 0 to %d", k.Chunks, MaxKnowledgeChunks)}
	}
	return k, nil
}
