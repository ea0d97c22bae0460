package post

import "strings"

// MaxMedia is how many media a post keeps at most (the platforms' limit of
// images on one post).
const MaxMedia = 4

// The media types, as Media.Type names them.
const (
	MediaPhoto = "photo"
	MediaVideo = "video"
	MediaGIF   = "animated_gif"
)

// Media is one image, video or GIF of a post, as the platform served it:
// what the reviewer's card shows and the model sees. It is kept and
// answered in this shape.
type Media struct {
	// Type is MediaPhoto, MediaVideo or MediaGIF.
	Type string `json:"type"`
	// URL is the full image, "" for a video or a GIF.
	URL string `json:"url"`
	// PreviewURL is a still or thumbnail of it, "" when the platform gave none.
	PreviewURL string `json:"preview_url"`
	// Alt is the author's description of it, "" when they wrote none.
	Alt string `json:"alt"`
}

// Image is the address of m as an image: the photo itself, else its still.
func (m Media) Image() string {
	if m.URL != "" {
		return m.URL
	}
	return m.PreviewURL
}

// Thumb is the smaller address of m as an image: its preview, else the photo.
func (m Media) Thumb() string {
	if m.PreviewURL != "" {
		return m.PreviewURL
	}
	return m.URL
}

// Link is a post's link card as the platform built it: the address linked
// to and the title and description the platform read there. Nothing of
// the product ever fetches the address.
type Link struct {
	URL         string `json:"url"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// Bounds of what is kept of media and link cards.
const (
	maxAltRunes   = 1000
	maxTitleRunes = 300
	maxDescRunes  = 1000
)

// SafeMedia is media as kept and shown: at most MaxMedia, each with its
// addresses checked by SafeURL (allowHTTP as there), a type of the three
// (else a photo), its alt text made storable and bounded; a media without
// any safe address is dropped. Never nil.
func SafeMedia(media []Media, allowHTTP bool) []Media {
	out := make([]Media, 0, min(len(media), MaxMedia))
	for _, m := range media {
		if len(out) == MaxMedia {
			break
		}
		switch m.Type {
		case MediaPhoto, MediaVideo, MediaGIF:
		default:
			m.Type = MediaPhoto
		}
		m.URL, m.PreviewURL = SafeURL(m.URL, allowHTTP), SafeURL(m.PreviewURL, allowHTTP)
		if m.URL == "" && m.PreviewURL == "" {
			continue
		}
		m.Alt = bounded(StorableText(m.Alt), maxAltRunes)
		out = append(out, m)
	}
	return out
}

// SafeLink is l as kept and shown: nil when l is nil or its address is not
// safe (SafeURL), its title and description made storable and bounded.
func SafeLink(l *Link, allowHTTP bool) *Link {
	if l == nil {
		return nil
	}
	u := SafeURL(l.URL, allowHTTP)
	if u == "" {
		return nil
	}
	return &Link{URL: u, Title: bounded(strings.TrimSpace(StorableText(l.Title)), maxTitleRunes),
		Description: bounded(strings.TrimSpace(StorableText(l.Description)), maxDescRunes)}
}

// bounded is s cut to at most n runes.
func bounded(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
