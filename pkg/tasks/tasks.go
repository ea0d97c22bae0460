// Package tasks is the queue contract of the pipeline's work carried by
// Redis through asynq: the task type names, their payloads, constructors and
// decoders, the queues they run in, the client that enqueues them, the
// scheduler of the periodic ones, and the worker's server (NewServer). What
// the worker does with each task lives in pkg/pipeline.
package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"infernal/pkg/persona"
)

// Task type names.
const (
	TypeScanMentions      = "scan:mentions"
	TypeScanConversations = "scan:conversations"
	TypeScanTargeted      = "scan:targeted"
	TypeGenerateProfile   = "generate:profile"
	TypeDraftPost         = "draft:post"
	TypeRegeneratePost    = "regenerate:post"
	TypePreviewPersona    = "preview:persona"
	TypeSendPost          = "send:post"
	TypeRefreshMetrics    = "refresh:metrics"
	TypeReconcile         = "reconcile"
)

// Queues, by priority: sending first, then the drafts of mentions, then the
// other drafts (and profile posts, reconciliation), scanning last.
const (
	QueueCritical = "critical"
	QueueHigh     = "high"
	QueueDefault  = "default"
	QueueLow      = "low"
)

// QueuePriorities orders the queues for the worker, which takes them in
// strict priority (see NewServer): a task of a lower queue runs only while
// every higher queue is empty, so a burst of mentions is drafted before the
// conversations and targeted posts found with it, and scans wait while
// drafts do (a worker reads no faster than it drafts).
var QueuePriorities = map[string]int{QueueCritical: 6, QueueHigh: 4, QueueDefault: 3, QueueLow: 1}

// PostPayload names the post a draft or send task works on. A draft task
// also names the post's platform, so the worker routes it to that
// platform's stage without reading the database. A draft task queued
// before payloads carried it has no platform: the worker then reads the
// post's platform from its row, as it does for a send task.
type PostPayload struct {
	PostID   int64  `json:"post_id"`
	Platform string `json:"platform,omitempty"`
}

// RegeneratePayload asks for a new draft of a post under review, written
// to the reviewer's instruction (may be empty).
type RegeneratePayload struct {
	PostID      int64  `json:"post_id"`
	Instruction string `json:"instruction"`
}

// PreviewPayload asks for one draft answering PostText, written with
// Persona (an unsaved one, already normalised), or with the stored persona
// when Persona is nil. It makes no post.
type PreviewPayload struct {
	PostText string           `json:"post_text"`
	Persona  *persona.Persona `json:"persona"`
}

// PreviewResult is what a preview task writes as its result: the draft
// and its category, or Error when it could not be written.
type PreviewResult struct {
	Response string `json:"response"`
	Category string `json:"category"`
	Error    string `json:"error,omitempty"`
}

// PreviewRetention is how long a preview task and its result are kept
// once done: long enough for the web tier waiting on it to read it.
const PreviewRetention = 5 * time.Minute

// ScanPayload is the payload of the periodic tasks, decoded strictly so
// that garbage is refused.
type ScanPayload struct {
	// Platform names the platform the run is for (platform.Platform.Name:
	// "x", "bluesky", "sandbox"); empty for a run that concerns every
	// platform (reconcile) or one asked for by hand, which the worker's
	// first platform takes.
	Platform string `json:"platform,omitempty"`
}

// NewDraftTask asks for a draft of post id, on platform (its name, as
// platform.Platform.Name gives it), in queue (QueueHigh for a mention,
// QueueDefault otherwise). Its TaskID makes one post drafted by one task.
func NewDraftTask(id int64, platform, queue string) (*asynq.Task, error) {
	if platform == "" {
		return nil, fmt.Errorf("tasks: %s %d: no platform", TypeDraftPost, id)
	}
	if err := checkPlatformName(platform); err != nil {
		return nil, fmt.Errorf("tasks: %s %d: %w", TypeDraftPost, id, err)
	}
	return newPostTask(TypeDraftPost, id, platform,
		asynq.TaskID(DraftTaskID(id)), asynq.Queue(queue),
		asynq.MaxRetry(8), asynq.Timeout(2*time.Minute), asynq.Retention(24*time.Hour))
}

// NewSendTask asks for the approved post id to be sent. Its TaskID is the row
// id, so one approval is sent by one task.
func NewSendTask(id int64) (*asynq.Task, error) {
	return newPostTask(TypeSendPost, id, "",
		asynq.TaskID(SendTaskID(id)), asynq.Queue(QueueCritical),
		asynq.MaxRetry(25), asynq.Timeout(time.Minute), asynq.Retention(24*time.Hour))
}

// NewRegenerateTask asks for a new draft of post id, written to
// instruction, ahead of the other drafts (QueueHigh): the reviewer waits for
// it. Each request is a task of its own, and a failed one is not retried
// for long, since the reviewer can ask again.
func NewRegenerateTask(id int64, instruction string) (*asynq.Task, error) {
	if id <= 0 {
		return nil, fmt.Errorf("tasks: %s: bad post id %d", TypeRegeneratePost, id)
	}
	b, err := json.Marshal(RegeneratePayload{PostID: id, Instruction: instruction})
	if err != nil {
		return nil, fmt.Errorf("tasks: %s: %w", TypeRegeneratePost, err)
	}
	return asynq.NewTask(TypeRegeneratePost, b, asynq.Queue(QueueHigh),
		asynq.MaxRetry(2), asynq.Timeout(time.Minute), asynq.Retention(time.Hour)), nil
}

// NewPreviewTask asks for a preview draft, ahead of the other drafts
// (QueueHigh), since someone waits for it; it is not retried, the
// administrator may ask again, and its result is kept PreviewRetention.
func NewPreviewTask(p PreviewPayload) (*asynq.Task, error) {
	if p.PostText == "" {
		return nil, fmt.Errorf("tasks: %s: empty post text", TypePreviewPersona)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("tasks: %s: %w", TypePreviewPersona, err)
	}
	return asynq.NewTask(TypePreviewPersona, b, asynq.Queue(QueueHigh),
		asynq.MaxRetry(0), asynq.Timeout(time.Minute), asynq.Retention(PreviewRetention)), nil
}

// DraftTaskID is the TaskID of post id's draft task.
func DraftTaskID(id int64) string { return "draft:" + strconv.FormatInt(id, 10) }

// SendTaskID is the TaskID of post id's send task.
func SendTaskID(id int64) string { return "send:" + strconv.FormatInt(id, 10) }

// newPostTask builds a task of typ on post id, naming its platform when
// not "".
func newPostTask(typ string, id int64, platform string, opts ...asynq.Option) (*asynq.Task, error) {
	if id <= 0 {
		return nil, fmt.Errorf("tasks: %s: bad post id %d", typ, id)
	}
	b, err := json.Marshal(PostPayload{PostID: id, Platform: platform})
	if err != nil {
		return nil, fmt.Errorf("tasks: %s: %w", typ, err)
	}
	return asynq.NewTask(typ, b, opts...), nil
}

// periodic lists the periodic task types with their queue, timeout, retries
// and the Unique TTL of a run asked for by hand (the scheduler sets its own,
// just under each period). A fixed TaskID is never used, since an archived
// run would then block every later one.
var periodic = map[string]struct {
	queue   string
	timeout time.Duration
	unique  time.Duration
	retry   int
}{
	TypeScanMentions:      {QueueLow, 2 * time.Minute, 25 * time.Second, 3},
	TypeScanConversations: {QueueLow, 2 * time.Minute, 25 * time.Second, 3},
	TypeScanTargeted:      {QueueLow, 3 * time.Minute, 25 * time.Second, 3},
	TypeGenerateProfile:   {QueueDefault, 2 * time.Minute, 25 * time.Second, 3},
	TypeRefreshMetrics:    {QueueLow, 2 * time.Minute, 25 * time.Second, 2},
	TypeReconcile:         {QueueDefault, time.Minute, 25 * time.Second, 1},
}

// NewPeriodicTask builds a run of one of the periodic types, asked for by
// hand, for the worker's first platform.
func NewPeriodicTask(typ string) (*asynq.Task, error) {
	return newPeriodicTask(typ, "", periodic[typ].unique)
}

// PerPlatform reports whether a periodic type runs once per platform (the
// scans, profile posts and metrics), rather than once for all (reconcile).
func PerPlatform(typ string) bool { return typ != TypeReconcile }

func newPeriodicTask(typ, platform string, unique time.Duration) (*asynq.Task, error) {
	p, ok := periodic[typ]
	if !ok {
		return nil, fmt.Errorf("tasks: %q is not a periodic task", typ)
	}
	if err := checkPlatformName(platform); err != nil {
		return nil, fmt.Errorf("tasks: %s: %w", typ, err)
	}
	b, err := json.Marshal(ScanPayload{Platform: platform})
	if err != nil {
		return nil, fmt.Errorf("tasks: %s: %w", typ, err)
	}
	return asynq.NewTask(typ, b, asynq.Queue(p.queue), asynq.Timeout(p.timeout), asynq.MaxRetry(p.retry),
		asynq.Unique(unique), asynq.Retention(time.Hour)), nil
}

// decode reads a payload strictly; garbage is refused without retry, so a
// poison task is archived at once and stops nothing else.
func decode(t *asynq.Task, v any) error {
	dec := json.NewDecoder(bytes.NewReader(t.Payload()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: bad payload: %w: %w", t.Type(), err, asynq.SkipRetry)
	}
	if dec.More() {
		return fmt.Errorf("%s: bad payload: trailing data: %w", t.Type(), asynq.SkipRetry)
	}
	return nil
}

// DecodePost reads the PostPayload of a draft or send task. A payload that
// is not exactly a PostPayload with a positive id, and a platform's name
// or none, is refused with an error wrapping asynq.SkipRetry, so the task
// is archived at once instead of retried.
func DecodePost(t *asynq.Task) (PostPayload, error) {
	var p PostPayload
	if err := decode(t, &p); err != nil {
		return PostPayload{}, err
	}
	if p.PostID <= 0 {
		return PostPayload{}, fmt.Errorf("%s: bad payload: post_id must be positive: %w", t.Type(), asynq.SkipRetry)
	}
	if err := checkPlatformName(p.Platform); err != nil {
		return PostPayload{}, fmt.Errorf("%s: bad payload: %w: %w", t.Type(), err, asynq.SkipRetry)
	}
	return p, nil
}

// DecodeRegenerate reads the RegeneratePayload of a regenerate task. A
// payload that is not exactly one, with a positive id, is refused with an
// error wrapping asynq.SkipRetry.
func DecodeRegenerate(t *asynq.Task) (RegeneratePayload, error) {
	var p RegeneratePayload
	if err := decode(t, &p); err != nil {
		return RegeneratePayload{}, err
	}
	if p.PostID <= 0 {
		return RegeneratePayload{}, fmt.Errorf("%s: bad payload: post_id must be positive: %w", t.Type(), asynq.SkipRetry)
	}
	return p, nil
}

// DecodePreview reads the PreviewPayload of a preview task. A payload that
// is not exactly one, with a post text, is refused with an error wrapping
// asynq.SkipRetry.
func DecodePreview(t *asynq.Task) (PreviewPayload, error) {
	var p PreviewPayload
	if err := decode(t, &p); err != nil {
		return PreviewPayload{}, err
	}
	if p.PostText == "" {
		return PreviewPayload{}, fmt.Errorf("%s: bad payload: post_text must not be empty: %w", t.Type(), asynq.SkipRetry)
	}
	return p, nil
}

// DecodePeriodic reads the ScanPayload of a periodic task, a JSON object
// with at most a platform name, or no payload at all, and returns the
// platform it names ("" for none). Anything else is refused with an error
// wrapping asynq.SkipRetry.
func DecodePeriodic(t *asynq.Task) (platform string, err error) {
	if len(t.Payload()) == 0 {
		// A periodic task run by hand from the dashboard may carry no payload at all.
		return "", nil
	}
	var p ScanPayload
	if err := decode(t, &p); err != nil {
		return "", err
	}
	if err := checkPlatformName(p.Platform); err != nil {
		return "", fmt.Errorf("%s: bad payload: %w: %w", t.Type(), err, asynq.SkipRetry)
	}
	return p.Platform, nil
}

// maxPlatformName bounds a platform's name in a payload.
const maxPlatformName = 32

// checkPlatformName accepts a platform's name as the platforms give it
// (lower-case letters and digits) or none.
func checkPlatformName(name string) error {
	if len(name) > maxPlatformName || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return fmt.Errorf("platform %q is not a platform's name", name)
	}
	return nil
}
