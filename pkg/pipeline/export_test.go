package pipeline

// On is the stages of the platform named, nil when p does not run it
// (for the tests, which drive one platform's stages directly).
func (p *Pipeline) On(name string) *Stages { return p.byPlatform[name] }
