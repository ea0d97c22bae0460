package settings

// Account is an entry of target_usernames or blocked_authors as GET
// /api/settings shows it: the entry as stored, and the handle and the id
// it stands for, each nil while unknown (an id is known once the worker
// has looked the handle up or met the author; a handle, once a post of the
// account was found). post.ParseAccount reads an entry.
type Account struct {
	// Entry is the entry as stored.
	Entry string `json:"entry"`
	// Handle is the account's handle: the entry itself when it is one.
	Handle *string `json:"handle"`
	// ID is the account's stable id: the entry itself when it is one.
	ID *string `json:"id"`
}
