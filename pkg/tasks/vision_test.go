package tasks_test

import (
	"testing"
	"time"

	"infernal/pkg/tasks"
	"infernal/pkg/tasks/taskstest"
)

// A model found without images by one process is known to every other,
// with when it was found; only the first to mark it is told it was first.
func TestModelsWithoutImagesShared(t *testing.T) {
	t.Parallel()
	url := taskstest.RedisURL(t)
	a, err := tasks.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	b, err := tasks.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx := t.Context()
	if ok, err := b.WithoutImages(ctx, "llama3.2"); err != nil || ok {
		t.Fatalf("before any refusal: %v, %v", ok, err)
	}
	at := time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)
	for i, c := range []*tasks.Client{a, b} {
		first, err := c.MarkWithoutImages(ctx, "llama3.2", at.Add(time.Duration(i)*time.Hour))
		if err != nil || first != (i == 0) {
			t.Errorf("mark %d: first %v, %v; want %v", i, first, err, i == 0)
		}
	}
	if ok, err := b.WithoutImages(ctx, "llama3.2"); err != nil || !ok {
		t.Errorf("another process does not know: %v, %v", ok, err)
	}
	all, err := b.ModelsWithoutImages(ctx)
	if err != nil || len(all) != 1 || !all["llama3.2"].Equal(at) {
		t.Errorf("ModelsWithoutImages = %v, %v; want llama3.2 since %s", all, err, at)
	}
}
