package guard

import "time"

// SendTurn reports whether a post may start its send at now under caps,
// when sent are the send starts of the last day and ahead counts the
// posts approved before it that still wait: those are served first, as if
// they started now, so approvals go out in approval order whenever the caps
// bind, while a window with room for all of them holds nobody back. When
// not ok, next is when to ask again: when a slot is left for this post
// after the ones ahead of it, assuming no other sends.
func SendTurn(sent []time.Time, ahead int, now time.Time, caps SendCaps) (next time.Time, ok bool) {
	if ahead <= 0 {
		return SendSlot(sent, now, caps)
	}
	all := make([]time.Time, 0, len(sent)+ahead)
	all = append(all, sent...)
	for range ahead {
		all = append(all, now)
	}
	return SendSlot(all, now, caps)
}

// Bounds returns, the defaults applied, the least and the most sends caps
// allow in any of their windows, and their longest window. They bound what
// deciding needs: when the sends of the longest window and the posts ahead
// number less than least, every window has room, whatever their times;
// otherwise SendTurn decides the same on the most recent most send times
// and at most most posts ahead as on all of them.
func (c SendCaps) Bounds() (least, most int, longest time.Duration) {
	c = c.WithDefaults()
	return min(c.PerWindow, c.PerDay), max(c.PerWindow, c.PerDay), max(c.Window, sendDay)
}
