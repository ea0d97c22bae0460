package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"infernal/pkg/store"
)

// adminCalls is how many times each admin view is called.
const adminCalls = 50

// adminTarget is the median every admin view must stay under.
const adminTarget = 50 * time.Millisecond

// insightsTarget is the median the insights of 90 days must stay under (issue 31).
const insightsTarget = 200 * time.Millisecond

// adminViews times every admin list in every order (first and last page),
// the statistics, the public log's last page, approve and reject; and
// checks the plan of each read.
func adminViews(ctx context.Context, w *webProcess, dbURL string, rep *report) error {
	type view struct{ name, path string }
	var views []view
	for _, tab := range []string{"pending", "mentions", "profile", "targeted"} {
		for _, sort := range []string{"date", "engagement", "likes", "retweets", "replies"} {
			path := "/api/posts/" + tab + "?sortBy=" + sort
			status, body, _, err := w.get(path + "&page=1")
			if err != nil || status != http.StatusOK {
				return fmt.Errorf("bench: %s answered %d: %w", path, status, err)
			}
			var out struct {
				Pagination struct {
					TotalPages int `json:"totalPages"`
				} `json:"pagination"`
			}
			if err := json.Unmarshal(body, &out); err != nil {
				return fmt.Errorf("bench: %s: %w", path, err)
			}
			last := max(1, out.Pagination.TotalPages)
			views = append(views,
				view{name: fmt.Sprintf("list %s by %s, page 1", tab, sort), path: path + "&page=1"},
				view{name: fmt.Sprintf("list %s by %s, last page (%d)", tab, sort, last), path: path + "&page=" + strconv.Itoa(last)})
		}
	}
	views = append(views, view{name: "admin stats", path: "/api/posts/stats"})
	var threads struct{ n int }
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer st.Close()
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM log_threads`).Scan(&threads.n); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	deep := max(0, (threads.n-1)/15*15)
	views = append(views, view{name: fmt.Sprintf("public log, last page (offset %d, not cached)", deep),
		path: "/api/public/logs?offset=" + strconv.Itoa(deep)})

	for _, v := range views {
		var took []time.Duration
		for range adminCalls {
			status, _, d, err := w.get(v.path)
			if err != nil || status != http.StatusOK {
				return fmt.Errorf("bench: %s answered %d: %w", v.path, status, err)
			}
			took = append(took, d)
		}
		rep.add(timingRow(v.name, took))
	}

	// Approve and reject, each on posts of the mention queue's first pages.
	for _, action := range []string{"approve", "reject"} {
		var took []time.Duration
		// Each round approves or rejects a whole page (pending and failed
		// posts alike), so the next round reads a new one.
		for round := 0; len(took) < adminCalls; round++ {
			if round > adminCalls {
				return fmt.Errorf("bench: %s: the queue does not shrink", action)
			}
			_, body, _, err := w.get("/api/posts/mentions?page=1&sortBy=date")
			if err != nil {
				return err
			}
			var out struct {
				Posts []struct {
					ID int64 `json:"id"`
				} `json:"posts"`
			}
			if err := json.Unmarshal(body, &out); err != nil || len(out.Posts) == 0 {
				return fmt.Errorf("bench: no pending mentions left to %s: %w", action, err)
			}
			for _, p := range out.Posts {
				if len(took) == adminCalls {
					break
				}
				start := time.Now()
				status, resp, err := w.send("POST", "/api/posts/"+strconv.FormatInt(p.ID, 10)+"/"+action, []byte("{}"))
				if err != nil || status != http.StatusOK {
					return fmt.Errorf("bench: %s %d: %d %s: %w", action, p.ID, status, resp, err)
				}
				took = append(took, time.Since(start))
			}
		}
		rep.add(timingRow(action+" (one post)", took))
	}

	// Issue 31: the insights of 90 days, the widest range, at the full history.
	var took []time.Duration
	for range adminCalls {
		status, _, d, err := w.get("/api/insights?days=90")
		if err != nil || status != http.StatusOK {
			return fmt.Errorf("bench: /api/insights?days=90 answered %d: %w", status, err)
		}
		took = append(took, d)
	}
	// The first call computes the figures (nothing asked for that range
	// before); the others are answered from the insights cache the worker
	// keeps computing (store.RefreshInsightsCache).
	med, p99 := percentile(took, 0.5), percentile(took, 0.99)
	rep.add(Row{Figure: fmt.Sprintf("insights of 90 days (/api/insights?days=90): median (p99) of %d calls; the first, computed: %s",
		len(took), ms(took[0])),
		Value: fmt.Sprintf("%s (%s)", ms(med), ms(p99)), Target: "median < 200 ms", Verdict: verdict(med < insightsTarget)})

	plans, err := st.QueryPlans(ctx, 10, 15)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	scans := 0
	for _, p := range plans {
		bad := ""
		for _, t := range p.SeqScans {
			if t == "posts" || t == "log_threads" || t == "log_messages" {
				bad = " **(sequential scan of " + t + ")**"
				scans++
			}
		}
		rep.plans = append(rep.plans, fmt.Sprintf("| %s | %s%s |", p.Name, p.Shape, bad))
	}
	rep.add(Row{Figure: fmt.Sprintf("plans of %d reads with a sequential scan of posts or the log", len(plans)),
		Value: strconv.Itoa(scans), Target: "0", Verdict: verdict(scans == 0)})
	return nil
}

// timingRow reports the median and p99 of one view's calls.
func timingRow(name string, took []time.Duration) Row {
	med, p99 := percentile(took, 0.5), percentile(took, 0.99)
	return Row{Figure: fmt.Sprintf("%s: median (p99) of %d calls", name, len(took)),
		Value: fmt.Sprintf("%s (%s)", ms(med), ms(p99)), Target: "median < 50 ms", Verdict: verdict(med < adminTarget)}
}
