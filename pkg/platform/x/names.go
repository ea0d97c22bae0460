package x

import "context"

// The names the client asks X for, kept in this one file. X's
// documentation (2026) and its OpenAPI v2.159 name them tweet.fields,
// referenced_tweets and referenced_tweets.id, and X answers them; its newest
// published OpenAPI (v2.167) names post.fields and the expansion
// referenced_posts instead, and rejects the others. The client asks in one naming and, when X refuses
// a request for its names, asks again at once in the other (see
// Client.getPosts); answers are read in both (see tweet.refs and
// timelineResponse.includedPosts).
const (
	// paramUserFields asks for the user fields (userFields).
	paramUserFields = "user.fields"
	// paramMediaFields asks for the media fields (mediaFields).
	paramMediaFields = "media.fields"
	// paramExpansions asks for the objects of includes.
	paramExpansions = "expansions"
	// paramExclude leaves kinds of posts out of a user's timeline.
	paramExclude = "exclude"
	// excludeRetweets is paramExclude's value leaving reposts out.
	excludeRetweets = "retweets"
)

// naming is one of the two namings of the post fields X has published,
// with the values each asks for, taken from that naming's own OpenAPI
// lists (testdata/enums-v2.159.json and enums-v2.167.json; TestParamsInSpec
// checks every value sent against them).
type naming struct {
	// Name is how the naming is kept (NamingTweets or NamingPosts).
	Name string
	// PostFields is the parameter asking for post fields.
	PostFields string
	// Fields are the post fields every post read asks for: entities
	// (mentions and link cards) and the referenced posts tell whether the
	// post summons the persona, the only posts X lets a self-serve app
	// answer; lang is the post's language, kept with its case.
	Fields string
	// Expansions are the expansions every post read asks for: the author,
	// the media, the referenced posts and, where the naming has them,
	// their authors and media, so that a parent or quoted post read
	// alongside carries its author's handle and its images.
	Expansions string
}

// The namings' names, as Namings keeps them.
const (
	// NamingTweets is tweet.fields and referenced_tweets, X's documented
	// naming (OpenAPI v2.159), asked first.
	NamingTweets = "tweets"
	// NamingPosts is post.fields and referenced_posts, the naming of X's
	// newest OpenAPI (v2.167).
	NamingPosts = "posts"
)

// namings are both namings, the one asked first first. v2.167's
// post.fields lists neither author_id nor referenced_posts (the Post
// object has both: the expansions author_id and referenced_posts bring
// them), and its expansions have no referenced_posts.id.author_id: there a
// referenced post's author is whatever the post itself carries.
var namings = [2]naming{
	{Name: NamingTweets, PostFields: "tweet.fields",
		Fields:     "created_at,conversation_id,public_metrics,referenced_tweets,attachments,author_id,entities,lang",
		Expansions: "author_id,attachments.media_keys,referenced_tweets.id,referenced_tweets.id.author_id,referenced_tweets.id.attachments.media_keys"},
	{Name: NamingPosts, PostFields: "post.fields",
		Fields:     "created_at,conversation_id,public_metrics,attachments,entities,lang",
		Expansions: "author_id,attachments.media_keys,referenced_posts"},
}

// namingOf returns the naming called name, and the first for any other.
func namingOf(name string) naming {
	for _, n := range namings {
		if n.Name == name {
			return n
		}
	}
	return namings[0]
}

// other is the naming that is not n.
func (n naming) other() naming {
	if n.Name == namings[0].Name {
		return namings[1]
	}
	return namings[0]
}

// Field lists requested for the users and media of every post read, the
// same in both namings: a media object's type, its image (a photo's url, a
// video's or GIF's preview_image_url) and its alt text.
const (
	userFields  = "username,name,profile_image_url"
	mediaFields = "type,url,preview_image_url,alt_text"
)

// Namings keeps the naming X accepts, so that every process asks in it
// once one process has found it.
type Namings interface {
	// Naming returns the naming kept, "" when none is.
	Naming(ctx context.Context) (string, error)
	// SetNaming keeps name.
	SetNaming(ctx context.Context, name string) error
}
