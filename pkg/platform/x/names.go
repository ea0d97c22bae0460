package x

// The names the client asks X for, kept in this one table. X's
// documentation (2026) names them tweet.fields, referenced_tweets and
// referenced_tweets.id, and X answers them; its newest published OpenAPI
// (v2.167) names post.fields and referenced_posts instead and rejects
// referenced_tweets.id. Answers are read in both forms (see tweet.refs and
// timelineResponse.includedPosts); a request X rejects for a name is a
// platform.RefusalBadRequestConfig, which pauses the timeline read.
const (
	// paramPostFields asks for the post fields (postFields).
	paramPostFields = "tweet.fields"
	// paramUserFields asks for the user fields (userFields).
	paramUserFields = "user.fields"
	// paramMediaFields asks for the media fields (mediaFields).
	paramMediaFields = "media.fields"
	// paramExpansions asks for the objects of includes (expansions).
	paramExpansions = "expansions"
	// paramExclude leaves kinds of posts out of a user's timeline.
	paramExclude = "exclude"
	// fieldReferenced is the post field listing the posts it answers,
	// quotes or reposts.
	fieldReferenced = "referenced_tweets"
	// expansionReferenced puts the referenced posts in includes.
	expansionReferenced = "referenced_tweets.id"
	// excludeRetweets is paramExclude's value leaving reposts out.
	excludeRetweets = "retweets"
)

// Field lists requested for every post read, so that a Post can be filled.
const (
	// entities (mentions) and the quoted post's author (through the
	// referenced posts' expansion) tell whether the post summons the
	// persona, the only posts X lets a self-serve app answer.
	postFields  = "created_at,conversation_id,public_metrics," + fieldReferenced + ",attachments,author_id,entities"
	expansions  = "author_id,attachments.media_keys," + expansionReferenced
	userFields  = "username,name,profile_image_url"
	mediaFields = "url,preview_image_url"
)
