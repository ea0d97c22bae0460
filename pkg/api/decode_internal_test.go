package api

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"infernal/pkg/settings"
)

// decodeTarget has the shapes the requests decode: a pointer field, a
// nested object, a list of objects, and a map.
type decodeTarget struct {
	Name  *string        `json:"name"`
	Caps  *settings.Caps `json:"caps"`
	Items []struct {
		Text string `json:"text"`
	} `json:"items"`
	Labels map[string]string `json:"labels"`
	Echo   answerOnly        `json:"echo"`
}

// decodeJSON accepts what the target describes and refuses the rest with a
// 400 naming the bad value's path ("" for the body as a whole).
func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		body       string
		allowEmpty bool
		wantField  string
		wantErr    string // part of the message; "" when the body is accepted
	}{
		{name: "accepted", body: `{"name":"imp","caps":{"sends_per_day":3},"items":[{"text":"a"}]}`},
		{name: "member names ignore case, as encoding/json", body: `{"NAME":"imp"}`},
		{name: "empty allowed", body: ``, allowEmpty: true},
		{name: "empty refused", body: ``, wantErr: "request body must be a JSON object"},
		{name: "null body, as an empty one", body: `null`},
		{name: "not JSON", body: `name=imp`, wantErr: "malformed JSON"},
		{name: "cut short", body: `{"name":`, wantErr: "malformed JSON"},
		{name: "an array", body: `["imp"]`, wantErr: "request body must be a JSON object"},
		{name: "trailing object", body: `{"name":"imp"}{}`, wantErr: "unexpected data after the object"},
		{name: "trailing garbage", body: `{"name":"imp"} x`, wantErr: "unexpected data after the object"},
		{name: "trailing space", body: "{\"name\":\"imp\"} \n"},
		{name: "invalid UTF-8", body: "{\"name\":\"\xff\"}", wantErr: "valid UTF-8"},
		{name: "unknown member", body: `{"name":"imp","tone":"dark"}`, wantField: "tone", wantErr: `unknown field "tone"`},
		{name: "unknown nested member", body: `{"caps":{"sends_per_week":3}}`, wantField: "caps.sends_per_week", wantErr: "unknown field"},
		{name: "unknown member of a list item", body: `{"items":[{"text":"a"},{"txt":"b"}]}`, wantField: "items[1].txt", wantErr: "unknown field"},
		{name: "first unknown by name", body: `{"zeta":1,"alpha":2}`, wantField: "alpha", wantErr: "unknown field"},
		{name: "wrong type", body: `{"name":42}`, wantField: "name", wantErr: `field "name" must be a string`},
		{name: "repeated member", body: `{"name":"a","name":"b"}`, wantField: "name", wantErr: `field "name" is given more than once`},
		{name: "repeated member in another case", body: `{"name":"a","NAME":"b"}`, wantField: "NAME", wantErr: "more than once"},
		{name: "repeated nested member", body: `{"caps":{"sends_per_day":3,"sends_per_day":4}}`, wantField: "caps.sends_per_day", wantErr: "more than once"},
		{name: "repeated member of a list item", body: `{"items":[{"text":"a","text":"b"}]}`, wantField: "items[0].text", wantErr: "more than once"},
		{name: "repeated unknown member", body: `{"tone":1,"tone":2}`, wantField: "tone", wantErr: `unknown field "tone"`},
		{name: "repeated key in a map", body: `{"labels":{"a":"x","a":"y"}}`, wantField: "labels.a", wantErr: "more than once"},
		{name: "keys differing in case in a map", body: `{"labels":{"a":"x","A":"y"}}`},
		{name: "null member", body: `{"name":null}`, wantField: "name", wantErr: `field "name" must not be null`},
		{name: "null nested member", body: `{"caps":{"sends_per_day":null}}`, wantField: "caps.sends_per_day", wantErr: "must not be null"},
		{name: "null list", body: `{"items":null}`, wantField: "items", wantErr: "must not be null"},
		{name: "null list item", body: `{"items":[null]}`, wantField: "items[0]", wantErr: "must not be null"},
		{name: "null in a list item", body: `{"items":[{"text":null}]}`, wantField: "items[0].text", wantErr: "must not be null"},
		{name: "null map value", body: `{"labels":{"a":null}}`, wantField: "labels.a", wantErr: "must not be null"},
		{name: "null with spaces", body: `{"name": null }`, wantField: "name", wantErr: "must not be null"},
		{name: "the string null", body: `{"name":"null"}`},
		{name: "answer-only, any list", body: `{"echo":[{"entry":"a","handle":null,"id":"1"}]}`},
		{name: "answer-only, null", body: `{"echo":null}`},
		{name: "answer-only, garbage of another shape", body: `{"echo":{"x":[1,"two",{"y":null}]}}`},
		{name: "answer-only, members it does not know", body: `{"echo":{"anything":1}}`},
		{name: "answer-only, repeated inside", body: `{"echo":[{"entry":"a","entry":"b"}]}`, wantField: "echo[0].entry", wantErr: "more than once"},
		{name: "answer-only, repeated", body: `{"echo":1,"echo":2}`, wantField: "echo", wantErr: "more than once"},
		{name: "wrong nested type", body: `{"caps":{"sends_per_day":"3"}}`, wantField: "caps.sends_per_day", wantErr: "must be a int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("PUT", "/api/settings", strings.NewReader(tt.body))
			var v decodeTarget
			err := decodeJSON(r, &v, tt.allowEmpty)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fieldErr *bodyError
			if !errors.As(err, &fieldErr) {
				t.Fatalf("got %v, want a *bodyError", err)
			}
			if fieldErr.Field != tt.wantField || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got field %q, %q; want field %q, %q", fieldErr.Field, err.Error(), tt.wantField, tt.wantErr)
			}
		})
	}
}
