package spend

import (
	"math"
	"testing"

	"infernal/pkg/post"
)

func TestSendCost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		route    post.Route
		text     string
		open     bool
		summoned bool
		want     float64
		wantLink bool
	}{
		{name: "API reply, summoned by policy", route: post.RouteAPI, text: "burn", want: 0.010},
		{name: "API reply under the open policy", route: post.RouteAPI, text: "burn", open: true, want: 0.015},
		{name: "summoned API reply under the open policy", route: post.RouteAPI, text: "burn", open: true, summoned: true, want: 0.010},
		{name: "summoned profile post is no reply", route: "", text: "a thought", open: true, summoned: true, want: 0.015},
		{name: "profile post", route: "", text: "a thought from below", want: 0.015},
		{name: "summoned reply with a link", route: post.RouteAPI, text: "see hell.example.com", want: 0.20, wantLink: true},
		{name: "with a link", route: post.RouteAPI, text: "see hell.example.com", want: 0.20, wantLink: true},
		{name: "hand-posted", route: post.RouteManual, text: "see https://example.com", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prices := DefaultPrices()
			prices.RepliesSummon = !tt.open
			got, link := prices.SendCost(tt.route, tt.summoned, tt.text)
			if got != tt.want || link != tt.wantLink {
				t.Errorf("SendCost = %v, %v; want %v, %v", got, link, tt.want, tt.wantLink)
			}
		})
	}
}

func TestModelCost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		prompt, completion int
		want               float64
	}{
		{name: "a million each", prompt: 1_000_000, completion: 1_000_000, want: 0.75},
		{name: "nothing", want: 0},
		{name: "a small answer", prompt: 400, completion: 100, want: 0.00012},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultPrices().ModelCost(tt.prompt, tt.completion); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("ModelCost = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBudgetsLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		b                Budgets
		wantX, wantModel bool
	}{
		{name: "none", b: Budgets{}},
		{name: "X daily", b: Budgets{XDaily: 1}, wantX: true},
		{name: "X monthly", b: Budgets{XMonthly: 1}, wantX: true},
		{name: "model daily", b: Budgets{ModelDaily: 1}, wantModel: true},
		{name: "model monthly", b: Budgets{ModelMonthly: 1}, wantModel: true},
		{name: "all", b: Budgets{XDaily: 1, XMonthly: 2, ModelDaily: 3, ModelMonthly: 4}, wantX: true, wantModel: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.LimitsX(); got != tt.wantX {
				t.Errorf("LimitsX = %v, want %v", got, tt.wantX)
			}
			if got := tt.b.LimitsModel(); got != tt.wantModel {
				t.Errorf("LimitsModel = %v, want %v", got, tt.wantModel)
			}
		})
	}
}
