package post

// LearnedFrom is what shaped a draft: the past cases given to the writer
// as examples and the lessons in its prompt, by id. Both are empty for a
// draft written with learning off, or that nothing resembled, and for a
// text the administrator wrote.
type LearnedFrom struct {
	// Cases are the ids of the cases given as examples, best first.
	Cases []int64
	// Lessons are the ids of the lessons in the prompt, best first.
	Lessons []int64
	// Facts are the knowledge chunks in its prompt, best first
	// (grounded_in): empty when nothing in the knowledge base matched.
	Facts []Ground
}

// Ground is one knowledge chunk a draft's prompt held, by id: its ids
// stay when the document is deleted.
type Ground struct {
	DocumentID int64 `json:"document_id"`
	ChunkID    int64 `json:"chunk_id"`
}

// NonNil returns l with nil lists made empty, as the API answers them.
func (l LearnedFrom) NonNil() LearnedFrom {
	if l.Cases == nil {
		l.Cases = []int64{}
	}
	if l.Lessons == nil {
		l.Lessons = []int64{}
	}
	if l.Facts == nil {
		l.Facts = []Ground{}
	}
	return l
}
