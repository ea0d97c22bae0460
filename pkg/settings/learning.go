package settings

import "fmt"

// Learning is whether and how much the drafts learn from the
// administrator's past decisions (pkg/learning).
type Learning struct {
	// Enabled turns learning on; off, every prompt is as without it.
	Enabled bool `json:"enabled"`
	// Examples is how many similar past replies a draft gets as examples,
	// 0 to MaxLearningExamples.
	Examples int `json:"examples"`
	// Lessons is the most lessons in a prompt, 0 to MaxLearningLessons.
	Lessons int `json:"lessons"`
}

// The bounds of the learning settings.
const (
	MaxLearningExamples = 8
	MaxLearningLessons  = 10
)

// DefaultLearning is a fresh install's: on, 3 examples, 5 lessons.
func DefaultLearning() Learning {
	return Learning{Enabled: true, Examples: 3, Lessons: 5}
}

// Normalize checks l's ranges; a bad value is a *FieldError naming
// learning.<field>.
func (l Learning) Normalize() (Learning, error) {
	if l.Examples < 0 || l.Examples > MaxLearningExamples {
		return Learning{}, &FieldError{"learning.examples", fmt.Sprintf("%d is out of range 0 to %d", l.Examples, MaxLearningExamples)}
	}
	if l.Lessons < 0 || l.Lessons > MaxLearningLessons {
		return Learning{}, &FieldError{"learning.lessons", fmt.Sprintf("%d is out of range 0 to %d", l.Lessons, MaxLearningLessons)}
	}
	return l, nil
}
