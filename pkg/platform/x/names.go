package x

import "context"

// The names the client asks X for, kept in this one file. X's
// documentation (2026) names them tweet.fields, referenced_tweets and
// referenced_tweets.id, and X answers them; its newest published OpenAPI
// (v2.167) names post.fields and referenced_posts instead and rejects
// referenced_tweets.id. The client asks in one naming and, when X refuses
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

// naming is one of the two namings of the post fields X has published.
type naming struct {
	// Name is how the naming is kept (NamingTweets or NamingPosts).
	Name string
	// PostFields is the parameter asking for post fields.
	PostFields string
	// Referenced is the post field listing the posts it answers, quotes
	// or reposts, and the expansion (Referenced + ".id") putting them in
	// includes.
	Referenced string
}

// The namings' names, as Namings keeps them.
const (
	// NamingTweets is tweet.fields and referenced_tweets, X's documented
	// naming, asked first.
	NamingTweets = "tweets"
	// NamingPosts is post.fields and referenced_posts, the naming of X's
	// newest OpenAPI.
	NamingPosts = "posts"
)

// namings are both namings, the one asked first first.
var namings = [2]naming{
	{Name: NamingTweets, PostFields: "tweet.fields", Referenced: "referenced_tweets"},
	{Name: NamingPosts, PostFields: "post.fields", Referenced: "referenced_posts"},
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

// postFields lists the post fields every post read asks for: entities
// (mentions) and the referenced posts tell whether the post summons the
// persona, the only posts X lets a self-serve app answer.
func (n naming) postFields() string {
	return "created_at,conversation_id,public_metrics," + n.Referenced + ",attachments,author_id,entities"
}

// expansions lists the expansions every post read asks for: the author,
// the media, the referenced posts and their authors, so that a parent or
// quoted post read alongside carries its author's handle.
func (n naming) expansions() string {
	return "author_id,attachments.media_keys," + n.Referenced + ".id," + n.Referenced + ".id.author_id"
}

// Field lists requested for the users and media of every post read.
const (
	userFields  = "username,name,profile_image_url"
	mediaFields = "url,preview_image_url"
)

// Namings keeps the naming X accepts, so that every process asks in it
// once one process has found it.
type Namings interface {
	// Naming returns the naming kept, "" when none is.
	Naming(ctx context.Context) (string, error)
	// SetNaming keeps name.
	SetNaming(ctx context.Context, name string) error
}
