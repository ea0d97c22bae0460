package spend

import "context"

// Gate measures spending against the budgets before a stage spends: scans
// stop at an X ceiling, a send goes only while it fits, drafts wait at a
// model ceiling. A nil Gate, or one without a Meter, never holds anything
// back.
type Gate struct {
	Meter   *Meter
	Budgets Budgets
}

// spent is today's and this month's spending; ok is false without a meter
// or when limited is false: without a ceiling to compare with, the four
// sums of the ledger are not read (a draft or a send would otherwise pay
// for them every time).
func (g *Gate) spent(ctx context.Context, limited func(Budgets) bool) (spent Spent, ok bool, err error) {
	if g == nil || g.Meter == nil || !limited(g.Budgets) {
		return Spent{}, false, nil
	}
	s, err := g.Meter.Spent(ctx)
	return s, err == nil, err
}

// ScanBlocked says why scans must stop for the X budget, "" when they may go on.
func (g *Gate) ScanBlocked(ctx context.Context) (string, error) {
	s, ok, err := g.spent(ctx, Budgets.LimitsX)
	if !ok {
		return "", err
	}
	return g.Budgets.ScanBlocked(s), nil
}

// ModelBlocked says why drafts must wait for the model budget, "" when they may go on.
func (g *Gate) ModelBlocked(ctx context.Context) (string, error) {
	s, ok, err := g.spent(ctx, Budgets.LimitsModel)
	if !ok {
		return "", err
	}
	return g.Budgets.ModelBlocked(s), nil
}

// LimitsX reports whether a ceiling of X spending is set, so that a send
// must be priced before it goes.
func (g *Gate) LimitsX() bool {
	return g != nil && g.Meter != nil && g.Budgets.LimitsX()
}

// SendFits reports whether a send costing usd fits the X budget.
func (g *Gate) SendFits(ctx context.Context, usd float64) (bool, error) {
	s, ok, err := g.spent(ctx, Budgets.LimitsX)
	if !ok {
		return err == nil, err
	}
	return g.Budgets.SendFits(s, usd), nil
}

// Allow lets a scan spend a read of endpoint on closing a gap while the X
// budget does not stop scans: the read budget of the gap reads.
func (g *Gate) Allow(ctx context.Context, _ string) bool {
	why, err := g.ScanBlocked(ctx)
	// A meter that cannot be read allows nothing: the gap waits for the next scan.
	return err == nil && why == ""
}
