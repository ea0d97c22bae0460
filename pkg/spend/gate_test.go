package spend_test

import (
	"context"
	"testing"
	"time"

	"infernal/pkg/spend"
)

// countingLedger counts the sums read from it; it records nothing.
type countingLedger struct {
	spend.Ledger
	reads int
	spent spend.Sums
}

func (l *countingLedger) SpendTotals(context.Context, time.Time) (spend.Sums, error) {
	l.reads++
	return l.spent, nil
}

// The ledger is read only where a ceiling is set: without one, a draft or a
// send goes on and costs no query; with one, the ceiling still decides.
func TestGateReadsTheLedgerOnlyUnderACeiling(t *testing.T) {
	t.Parallel()
	spent := spend.Sums{XUSD: 5, ModelUSD: 5}
	tests := []struct {
		name          string
		budgets       spend.Budgets
		wantModelWhy  bool
		wantSendFits  bool
		wantScanWhy   bool
		wantReadsOver int // ledger reads over the three checks
	}{
		{name: "no ceilings", budgets: spend.Budgets{}, wantSendFits: true},
		{name: "model ceiling only, reached", budgets: spend.Budgets{ModelDaily: 1}, wantModelWhy: true, wantSendFits: true, wantReadsOver: 2},
		{name: "X ceiling only, reached", budgets: spend.Budgets{XMonthly: 1}, wantScanWhy: true, wantReadsOver: 4},
		{name: "ceilings not reached", budgets: spend.Budgets{XDaily: 100, ModelMonthly: 100}, wantSendFits: true, wantReadsOver: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ledger := &countingLedger{spent: spent}
			b := &spend.Gate{Meter: &spend.Meter{Ledger: ledger, Now: time.Now}, Budgets: tt.budgets}
			ctx := context.Background()
			why, err := b.ModelBlocked(ctx)
			if err != nil || (why != "") != tt.wantModelWhy {
				t.Errorf("ModelBlocked = %q, %v; want a reason: %v", why, err, tt.wantModelWhy)
			}
			fits, err := b.SendFits(ctx, 0.01)
			if err != nil || fits != tt.wantSendFits {
				t.Errorf("SendFits = %v, %v; want %v", fits, err, tt.wantSendFits)
			}
			why, err = b.ScanBlocked(ctx)
			if err != nil || (why != "") != tt.wantScanWhy {
				t.Errorf("ScanBlocked = %q, %v; want a reason: %v", why, err, tt.wantScanWhy)
			}
			if ledger.reads != tt.wantReadsOver {
				t.Errorf("ledger read %d times, want %d", ledger.reads, tt.wantReadsOver)
			}
		})
	}
}
