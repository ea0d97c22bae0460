package writer

import (
	"fmt"
	"time"
)

// Busy is a model call that was not made, or was refused (429), because
// the provider's rate-limit window is closed until Until. It is ErrBusy: a
// draft waiting for it is not failing, and its task is retried at Until.
type Busy struct {
	// Until is when the window opens again.
	Until time.Time
	// Reason says which window, or what the provider answered.
	Reason string
}

// Error implements error.
func (b *Busy) Error() string {
	return fmt.Sprintf("%s: %s until %s", ErrBusy, b.Reason, b.Until.UTC().Format(time.RFC3339Nano))
}

// Is makes a Busy match ErrBusy.
func (b *Busy) Is(target error) bool { return target == ErrBusy }
