package tasks_test

import (
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"infernal/pkg/tasks"
)

func TestDecodePost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload string
		want    tasks.PostPayload
		wantErr bool
	}{
		{name: "post id", payload: `{"post_id":42}`, want: tasks.PostPayload{PostID: 42}},
		{name: "post id and platform", payload: `{"post_id":42,"platform":"bluesky"}`, want: tasks.PostPayload{PostID: 42, Platform: "bluesky"}},
		{name: "empty platform", payload: `{"post_id":42,"platform":""}`, want: tasks.PostPayload{PostID: 42}},
		{name: "garbage", payload: `garbage`, wantErr: true},
		{name: "empty", payload: ``, wantErr: true},
		{name: "zero id", payload: `{"post_id":0}`, wantErr: true},
		{name: "negative id", payload: `{"post_id":-1}`, wantErr: true},
		{name: "string id", payload: `{"post_id":"1"}`, wantErr: true},
		{name: "unknown field", payload: `{"post_id":1,"x":1}`, wantErr: true},
		{name: "trailing data", payload: `{"post_id":1}{}`, wantErr: true},
		{name: "platform not a name", payload: `{"post_id":1,"platform":"X/../"}`, wantErr: true},
		{name: "platform too long", payload: `{"post_id":1,"platform":"` + strings.Repeat("x", 33) + `"}`, wantErr: true},
		{name: "platform a number", payload: `{"post_id":1,"platform":7}`, wantErr: true},
		{name: "platform without id", payload: `{"platform":"x"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tasks.DecodePost(asynq.NewTask(tasks.TypeDraftPost, []byte(tt.payload)))
			if tt.wantErr {
				if !errors.Is(err, asynq.SkipRetry) {
					t.Errorf("DecodePost = %+v, %v; want an error wrapping asynq.SkipRetry", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("DecodePost = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestNewDraftTaskNamesThePlatform checks that a draft task carries its
// post's platform, read back by DecodePost, and that a draft task without
// a platform's name is refused when it is made.
func TestNewDraftTaskNamesThePlatform(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		id       int64
		platform string
		wantErr  bool
	}{
		{name: "x", id: 3, platform: "x"},
		{name: "bluesky", id: 4, platform: "bluesky"},
		{name: "no platform", id: 5, platform: "", wantErr: true},
		{name: "not a name", id: 6, platform: "Blue Sky", wantErr: true},
		{name: "bad id", id: 0, platform: "x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task, err := tasks.NewDraftTask(tt.id, tt.platform, tasks.QueueDefault)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NewDraftTask(%d, %q) made a task; want an error", tt.id, tt.platform)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := tasks.DecodePost(task)
			if err != nil || got != (tasks.PostPayload{PostID: tt.id, Platform: tt.platform}) || task.Type() != tasks.TypeDraftPost {
				t.Fatalf("DecodePost(NewDraftTask) = %+v, %v (%s); want post %d on %q", got, err, task.Type(), tt.id, tt.platform)
			}
		})
	}
}

func TestDecodeRegenerate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload string
		want    tasks.RegeneratePayload
		wantErr bool
	}{
		{name: "with instruction", payload: `{"post_id":42,"instruction":"shorter"}`, want: tasks.RegeneratePayload{PostID: 42, Instruction: "shorter"}},
		{name: "without instruction", payload: `{"post_id":7}`, want: tasks.RegeneratePayload{PostID: 7}},
		{name: "garbage", payload: `garbage`, wantErr: true},
		{name: "empty", payload: ``, wantErr: true},
		{name: "zero id", payload: `{"post_id":0,"instruction":""}`, wantErr: true},
		{name: "number instruction", payload: `{"post_id":1,"instruction":3}`, wantErr: true},
		{name: "unknown field", payload: `{"post_id":1,"x":1}`, wantErr: true},
		{name: "trailing data", payload: `{"post_id":1}{}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tasks.DecodeRegenerate(asynq.NewTask(tasks.TypeRegeneratePost, []byte(tt.payload)))
			if tt.wantErr {
				if !errors.Is(err, asynq.SkipRetry) {
					t.Errorf("DecodeRegenerate = %+v, %v; want an error wrapping asynq.SkipRetry", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("DecodeRegenerate = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestNewRegenerateTask(t *testing.T) {
	t.Parallel()
	task, err := tasks.NewRegenerateTask(5, "less cruel")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tasks.DecodeRegenerate(task)
	if err != nil || got != (tasks.RegeneratePayload{PostID: 5, Instruction: "less cruel"}) || task.Type() != tasks.TypeRegeneratePost {
		t.Errorf("round trip = %+v, %v (%s)", got, err, task.Type())
	}
	if _, err := tasks.NewRegenerateTask(0, ""); err == nil {
		t.Error("NewRegenerateTask(0) made a task")
	}
}

func TestDecodePeriodic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		payload      string
		wantPlatform string
		wantErr      bool
	}{
		{name: "empty object", payload: `{}`},
		{name: "no payload, as the dashboard sends", payload: ``},
		{name: "a platform", payload: `{"platform":"bluesky"}`, wantPlatform: "bluesky"},
		{name: "an empty platform", payload: `{"platform":""}`},
		{name: "a platform that is not a name", payload: `{"platform":"X; DROP"}`, wantErr: true},
		{name: "a platform too long", payload: `{"platform":"` + strings.Repeat("x", 33) + `"}`, wantErr: true},
		{name: "a platform that is a number", payload: `{"platform":7}`, wantErr: true},
		{name: "array", payload: `[]`, wantErr: true},
		{name: "field", payload: `{"all":true}`, wantErr: true},
		{name: "trailing data", payload: `{}{}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tasks.DecodePeriodic(asynq.NewTask(tasks.TypeReconcile, []byte(tt.payload)))
			if tt.wantErr != (err != nil) || (err != nil && !errors.Is(err, asynq.SkipRetry)) {
				t.Errorf("DecodePeriodic = %v, want error %v wrapping asynq.SkipRetry", err, tt.wantErr)
			}
			if got != tt.wantPlatform {
				t.Errorf("DecodePeriodic platform = %q, want %q", got, tt.wantPlatform)
			}
		})
	}
}

func TestPlatformSchedules(t *testing.T) {
	t.Parallel()
	in := []tasks.Schedule{{Type: tasks.TypeScanMentions, Spec: "@every 20s"}, {Type: tasks.TypeReconcile, Spec: "@every 1m"}}
	tests := []struct {
		name      string
		platforms []string
		want      []tasks.Schedule
	}{
		{name: "one platform", platforms: []string{"sandbox"}, want: []tasks.Schedule{
			{Type: tasks.TypeScanMentions, Spec: "@every 20s", Platform: "sandbox"}, {Type: tasks.TypeReconcile, Spec: "@every 1m"}}},
		{name: "two platforms: a scan each, one reconcile", platforms: []string{"x", "bluesky"}, want: []tasks.Schedule{
			{Type: tasks.TypeScanMentions, Spec: "@every 20s", Platform: "x"}, {Type: tasks.TypeScanMentions, Spec: "@every 20s", Platform: "bluesky"},
			{Type: tasks.TypeReconcile, Spec: "@every 1m"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tasks.PlatformSchedules(in, tt.platforms); !slices.Equal(got, tt.want) {
				t.Errorf("PlatformSchedules = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNewServerRefusesBadConfig(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	register := func(*asynq.ServeMux) {}
	tests := []struct {
		name string
		cfg  tasks.ServerConfig
	}{
		{name: "no handlers", cfg: tasks.ServerConfig{RedisURL: "redis://127.0.0.1:6379/0", Log: log}},
		{name: "no logger", cfg: tasks.ServerConfig{RedisURL: "redis://127.0.0.1:6379/0", Register: register}},
		{name: "bad redis url", cfg: tasks.ServerConfig{RedisURL: "mysql://nowhere", Register: register, Log: log}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tasks.NewServer(tt.cfg); err == nil {
				t.Error("NewServer accepted it")
			}
		})
	}
}
