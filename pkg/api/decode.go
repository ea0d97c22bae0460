package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// bodyError is a request body decodeJSON refuses: a 400 whose answer
// names the bad value's JSON path in "field" ("" for the body as a whole).
type bodyError struct {
	// Field is the JSON path of the bad value, "" for the body as a whole.
	Field string
	// Message says what is wrong, for the client.
	Message string
}

// Error returns the message.
func (e *bodyError) Error() string { return e.Message }

// decodeJSON reads the request body, one JSON object, into v, strictly:
// valid UTF-8, nothing after the object, no member v has no field for (at
// any depth), every value of its field's type; the body's size is bounded
// by limitBody. An empty body leaves v as it is when allowEmpty is set.
//
// Every refusal is a *bodyError, a 400 naming what is wrong by its JSON
// path: an unknown member or a value of the wrong type by its path, a body
// that is not one JSON object by "" (the body as a whole). The decoder's
// own errors are told apart by type, never by their text.
func decodeJSON(r *http.Request, v any, allowEmpty bool) error {
	body, err := readBody(r)
	if err != nil {
		// A body over the limit is a *http.MaxBytesError, answered 413.
		return fmt.Errorf("read the request body: %w", err)
	}
	whole := func(message string) error { return &bodyError{Field: "", Message: message} }
	if !utf8.Valid(body) {
		// encoding/json would silently turn the bad bytes into U+FFFD.
		return whole("request body must be valid UTF-8")
	}
	if len(body) == 0 {
		if allowEmpty {
			return nil
		}
		return whole("request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case !errors.As(err, &typeErr):
			return whole("malformed JSON: " + err.Error())
		case typeErr.Field == "":
			return whole("request body must be a JSON object")
		default:
			return &bodyError{Field: typeErr.Field, Message: fmt.Sprintf("field %q must be a %s", typeErr.Field, typeErr.Type)}
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return whole("malformed JSON: unexpected data after the object")
	}
	// The decode above ignored unknown members; they are refused here, by name.
	if name := unknownMember(body, reflect.TypeOf(v), ""); name != "" {
		return &bodyError{Field: name, Message: fmt.Sprintf("unknown field %q", name)}
	}
	return nil
}

// unknownMember returns the JSON path of the first member of raw (in name
// order, depth first) that t has no field for, "" when every member has
// one. It descends into the objects of struct fields and of slices; names
// match as encoding/json matches them, exactly or else ignoring case.
func unknownMember(raw json.RawMessage, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil {
			// Not an object (null): the decode has already judged it.
			return ""
		}
		for _, name := range slices.Sorted(maps.Keys(members)) {
			field, ok := jsonField(t, name)
			if !ok {
				return joinPath(path, name)
			}
			if p := unknownMember(members[name], field.Type, joinPath(path, name)); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return ""
		}
		for i, item := range items {
			if p := unknownMember(item, t.Elem(), path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	}
	return ""
}

// jsonField finds the field of struct t that the JSON member name fills.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	var folded reflect.StructField
	found := false
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if tag == name {
			return f, true
		}
		if !found && strings.EqualFold(tag, name) {
			folded, found = f, true
		}
	}
	return folded, found
}

// joinPath is the JSON path of member name under path.
func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
