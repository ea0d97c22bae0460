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
}

// NonNil returns l with nil lists made empty, as the API answers them.
func (l LearnedFrom) NonNil() LearnedFrom {
	if l.Cases == nil {
		l.Cases = []int64{}
	}
	if l.Lessons == nil {
		l.Lessons = []int64{}
	}
	return l
}
