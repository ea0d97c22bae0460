package store

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// postColumns and postRow must name the same columns, since rows are read by
// name and a column without its field (or a field without its column) fails
// every query.
func TestPostColumnsMatchPostRow(t *testing.T) {
	t.Parallel()
	var columns []string
	for _, c := range strings.Split(postColumns, ",") {
		columns = append(columns, strings.TrimSpace(c))
	}
	var tags []string
	rt := reflect.TypeFor[postRow]()
	for i := 0; i < rt.NumField(); i++ {
		tags = append(tags, rt.Field(i).Tag.Get("db"))
	}
	slices.Sort(columns)
	slices.Sort(tags)
	if !slices.Equal(columns, tags) {
		t.Errorf("postColumns %v\npostRow tags %v", columns, tags)
	}
}
