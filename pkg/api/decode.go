package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// valid UTF-8, nothing after the object, no member v has no field for, no
// member given twice and no null (each at any depth), every value of its
// field's type; the body's size is bounded by limitBody. An empty body
// leaves v as it is when allowEmpty is set (so does the body null).
//
// Every refusal is a *bodyError, a 400 naming what is wrong by its JSON
// path: an unknown, repeated or null member or a value of the wrong type
// by its path, a body that is not one JSON object by "" (the body as a
// whole). The decoder's
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
			// encoding/json names a map's member by the map alone.
			field := typeErr.Field
			if p := mistypedPath(body, reflect.TypeOf(v), ""); p != "" {
				field = p
			}
			return &bodyError{Field: field, Message: fmt.Sprintf("field %q must be a %s", field, typeErr.Type)}
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return whole("malformed JSON: unexpected data after the object")
	}
	// The decode above ignored unknown members, took a null as left out and
	// let a repeated member's last value win; each is refused here, by path.
	return checkMembers(body, reflect.TypeOf(v), "")
}

// answerOnly is a request field that only answers carry (a count, an id
// the server worked out): taken, whatever JSON it holds, so that a client
// may send back what a GET answered, and ignored. Its members are checked
// for repeats alone.
type answerOnly json.RawMessage

// UnmarshalJSON keeps nothing: the value is ignored.
func (*answerOnly) UnmarshalJSON([]byte) error { return nil }

// answerOnlyType is answerOnly's type, which checkMembers does not judge.
var answerOnlyType = reflect.TypeFor[answerOnly]()

// member is one member of a JSON object, in the order written.
type member struct {
	name  string
	value json.RawMessage
}

// objectMembers returns the members of raw, a JSON object, in the order
// written; ok is false when raw is not an object.
func objectMembers(raw json.RawMessage) (members []member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false
		}
		members = append(members, member{name: name, value: value})
	}
	return members, true
}

// checkMembers refuses, with a *bodyError naming its JSON path, the first
// member of raw (depth first) that t has no field for, that repeats a
// member filling the same field, or that is null (no request takes a null:
// it would read as left out); nil when there is none. It descends into the
// objects of struct fields, of maps and of slices. Names match as
// encoding/json matches them, exactly or else ignoring case, so "text" and
// "TEXT" are the same member; unknown members are reported in name order.
func checkMembers(raw json.RawMessage, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == answerOnlyType {
		return repeatedMember(raw, path)
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		members, ok := objectMembers(raw)
		if !ok {
			// Not an object (null at the top): the decode has already judged it.
			return nil
		}
		seen := make(map[string]bool, len(members))
		for _, m := range members {
			_, key, ok := memberType(t, m.name)
			if !ok {
				continue
			}
			if seen[key] {
				return &bodyError{Field: joinPath(path, m.name), Message: fmt.Sprintf("field %q is given more than once", joinPath(path, m.name))}
			}
			seen[key] = true
		}
		slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.name, b.name) })
		for _, m := range members {
			p := joinPath(path, m.name)
			elem, _, ok := memberType(t, m.name)
			if !ok {
				return &bodyError{Field: p, Message: fmt.Sprintf("unknown field %q", p)}
			}
			if err := checkValue(m.value, elem, p); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		for i, item := range items {
			if err := checkValue(item, t.Elem(), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}

// repeatedMember refuses, with a *bodyError naming its JSON path, the first
// member of an object in raw, at any depth, that repeats a name; nil when
// none does.
func repeatedMember(raw json.RawMessage, path string) error {
	if members, ok := objectMembers(raw); ok {
		seen := make(map[string]bool, len(members))
		for _, m := range members {
			p := joinPath(path, m.name)
			if seen[m.name] {
				return &bodyError{Field: p, Message: fmt.Sprintf("field %q is given more than once", p)}
			}
			seen[m.name] = true
			if err := repeatedMember(m.value, p); err != nil {
				return err
			}
		}
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) == nil {
		for i, item := range items {
			if err := repeatedMember(item, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkValue refuses a null at path (but in an answer-only field, which
// takes anything), then checks what is inside the value.
func checkValue(raw json.RawMessage, t reflect.Type, path string) error {
	if t != answerOnlyType && bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return &bodyError{Field: path, Message: fmt.Sprintf("field %q must not be null", path)}
	}
	return checkMembers(raw, t, path)
}

// mistypedPath returns the JSON path of the deepest value of raw that
// does not decode into its type, t being raw's, descending through the
// members of objects (struct fields and map values) and the items of
// arrays; "" when raw decodes, or is itself the value that does not.
func mistypedPath(raw json.RawMessage, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	fits := func(value json.RawMessage, elem reflect.Type) bool {
		var typeErr *json.UnmarshalTypeError
		return !errors.As(json.Unmarshal(value, reflect.New(elem).Interface()), &typeErr)
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		members, _ := objectMembers(raw)
		for _, m := range members {
			elem, _, ok := memberType(t, m.name)
			if !ok {
				continue
			}
			if p := joinPath(path, m.name); !fits(m.value, elem) {
				if deeper := mistypedPath(m.value, elem, p); deeper != "" {
					return deeper
				}
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return ""
		}
		for i, item := range items {
			if p := path + "[" + strconv.Itoa(i) + "]"; !fits(item, t.Elem()) {
				if deeper := mistypedPath(item, t.Elem(), p); deeper != "" {
					return deeper
				}
				return p
			}
		}
	}
	return ""
}

// memberType is the type of the value the JSON member name fills in an
// object of type t (a struct or a map), and the key under which two
// members fill the same place (a struct's field name, a map's member
// name); ok is false for a struct member without a field.
func memberType(t reflect.Type, name string) (elem reflect.Type, key string, ok bool) {
	if t.Kind() == reflect.Map {
		return t.Elem(), name, true
	}
	f, ok := jsonField(t, name)
	if !ok {
		return nil, "", false
	}
	return f.Type, f.Name, true
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
