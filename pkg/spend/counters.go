package spend

import "github.com/prometheus/client_golang/prometheus"

// promCounters exports spending as Prometheus counters.
type promCounters struct {
	xCalls, xResources, xUSD         *prometheus.CounterVec
	modelTokens, modelUSD, modelRuns *prometheus.CounterVec
}

// NewCounters registers the spend counters on reg: X calls, billed
// resources and USD by endpoint; model answers, tokens and USD by model.
func NewCounters(reg prometheus.Registerer) Counters {
	c := &promCounters{
		xCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "infernal_x_calls_total",
			Help: "Billable calls made to X, by endpoint."}, []string{"endpoint"}),
		xResources: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "infernal_x_billed_resources_total",
			Help: "Resources X billed (each once per UTC day), by endpoint."}, []string{"endpoint"}),
		xUSD: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "infernal_x_spend_usd_total",
			Help: "What X billed, in US dollars, by endpoint."}, []string{"endpoint"}),
		modelRuns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "infernal_model_answers_total",
			Help: "Answers of the model, by model."}, []string{"model"}),
		modelTokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "infernal_model_tokens_total",
			Help: "Tokens the model used, by model and kind (prompt, completion)."}, []string{"model", "kind"}),
		modelUSD: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "infernal_model_spend_usd_total",
			Help: "What the model cost, in US dollars, by model."}, []string{"model"}),
	}
	reg.MustRegister(c.xCalls, c.xResources, c.xUSD, c.modelRuns, c.modelTokens, c.modelUSD)
	return c
}

// AddX counts a call of endpoint, its newly billed resources and their price.
func (c *promCounters) AddX(endpoint string, resources int, usd float64) {
	c.xCalls.WithLabelValues(endpoint).Inc()
	c.xResources.WithLabelValues(endpoint).Add(float64(resources))
	c.xUSD.WithLabelValues(endpoint).Add(usd)
}

// AddModel counts an answer of model, its tokens and their price.
func (c *promCounters) AddModel(model string, prompt, completion int, usd float64) {
	c.modelRuns.WithLabelValues(model).Inc()
	c.modelTokens.WithLabelValues(model, "prompt").Add(float64(prompt))
	c.modelTokens.WithLabelValues(model, "completion").Add(float64(completion))
	c.modelUSD.WithLabelValues(model).Add(usd)
}
