package tasks

import (
	"net/http"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// queueCollector reports the size of each queue, by task state, when scraped.
type queueCollector struct {
	inspector *asynq.Inspector
	size      *prometheus.Desc
	up        *prometheus.Desc
}

// Describe sends the metrics' descriptions.
func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.size
	ch <- c.up
}

// Collect reads every queue's counts from Redis.
func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	queues, err := c.inspector.Queues()
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
	for _, q := range queues {
		info, err := c.inspector.GetQueueInfo(q)
		if err != nil {
			continue
		}
		for state, n := range map[string]int{
			"pending": info.Pending, "active": info.Active, "scheduled": info.Scheduled,
			"retry": info.Retry, "archived": info.Archived, "completed": info.Completed,
		} {
			ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(n), q, state)
		}
	}
}

// MetricsHandler serves Prometheus metrics of the queues: their sizes by state.
func MetricsHandler(inspector *asynq.Inspector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&queueCollector{
		inspector: inspector,
		size:      prometheus.NewDesc("infernal_queue_tasks", "Tasks in a queue, by state.", []string{"queue", "state"}, nil),
		up:        prometheus.NewDesc("infernal_queue_redis_up", "Whether Redis answered the last scrape.", nil, nil),
	})
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
