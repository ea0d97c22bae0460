package settings

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"infernal/pkg/post"
)

// PlatformOptions are the administrator's choices that one platform alone
// knows of (post.Descriptor.Options), by platform name and option key, as
// JSON {"mastodon": {"reply_to_direct": false}}. WithDefaults gives every
// option of the table a value; an option absent is off.
type PlatformOptions map[string]map[string]bool

// DefaultPlatformOptions is a fresh install's: every option of every
// platform off.
func DefaultPlatformOptions() PlatformOptions { return PlatformOptions(nil).WithDefaults() }

// On reports whether the option key of the platform named is on.
func (o PlatformOptions) On(platform, key string) bool { return o[platform][key] }

// WithDefaults returns a copy of o that holds every option of the table,
// off where o has no value, and nothing else: options stored for a
// platform or an option the table no longer holds are dropped.
func (o PlatformOptions) WithDefaults() PlatformOptions {
	out := PlatformOptions{}
	for _, d := range post.Descriptors() {
		if len(d.Options) == 0 {
			continue
		}
		out[d.Name] = map[string]bool{}
		for _, opt := range d.Options {
			out[d.Name][opt.Key] = o[d.Name][opt.Key]
		}
	}
	return out
}

// Apply returns o (WithDefaults) with the changes of a PUT: each platform
// named gets every one of its options from changes, a platform left out
// keeps its own. A platform without options, an option the platform does
// not have, or one of its options missing (nil) is a *FieldError naming
// platforms.<name>[.<key>].
func (o PlatformOptions) Apply(changes map[string]map[string]*bool) (PlatformOptions, error) {
	out := o.WithDefaults()
	// In order, so that of several bad entries the same one is named each time.
	for _, name := range slices.Sorted(maps.Keys(changes)) {
		field := "platforms." + name
		d, ok := post.Describe(name)
		if !ok || len(d.Options) == 0 {
			return nil, &FieldError{Field: field, Problem: "is not a platform with options of its own (" + strings.Join(optionPlatforms(), ", ") + ")"}
		}
		given := changes[name]
		for _, key := range slices.Sorted(maps.Keys(given)) {
			if !slices.ContainsFunc(d.Options, func(opt post.Option) bool { return opt.Key == key }) {
				return nil, &FieldError{Field: field + "." + key, Problem: fmt.Sprintf("is not an option of %s", d.Label)}
			}
		}
		for _, opt := range d.Options {
			v := given[opt.Key]
			if v == nil {
				return nil, &FieldError{Field: field + "." + opt.Key, Problem: "is required"}
			}
			out[name][opt.Key] = *v
		}
	}
	return out, nil
}

// optionPlatforms are the names of the table's platforms that have options.
func optionPlatforms() []string {
	var out []string
	for _, d := range post.Descriptors() {
		if len(d.Options) > 0 {
			out = append(out, d.Name)
		}
	}
	return out
}
