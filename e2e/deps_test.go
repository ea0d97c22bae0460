package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// The tree's arrows run one way: web → store / queue, scheduler → queue,
// worker → pipeline → platform / writer / store. Neither the scheduler nor
// the web tier links the worker's logic or its clients.
func TestCommandsLinkOnlyTheirLayers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		pkg       string
		forbidden []string
	}{
		{name: "scheduler", pkg: "infernal/cmd/scheduler", forbidden: []string{"infernal/pkg/pipeline", "infernal/pkg/platform", "infernal/pkg/writer", "infernal/pkg/store"}},
		{name: "web", pkg: "infernal/cmd/web", forbidden: []string{"infernal/pkg/pipeline", "infernal/pkg/platform", "infernal/pkg/writer"}},
		{name: "tasks", pkg: "infernal/pkg/tasks", forbidden: []string{"infernal/pkg/pipeline", "infernal/pkg/platform", "infernal/pkg/writer", "infernal/pkg/store"}},
		{name: "openai writer", pkg: "infernal/pkg/writer/openai", forbidden: []string{"infernal/pkg/writer/offline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command("go", "list", "-deps", tt.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tt.pkg, err)
			}
			deps := strings.Fields(string(out))
			if len(deps) == 0 || deps[len(deps)-1] != tt.pkg {
				t.Fatalf("go list -deps %s listed %d packages, not ending with it", tt.pkg, len(deps))
			}
			for _, dep := range deps {
				for _, f := range tt.forbidden {
					if dep == f || strings.HasPrefix(dep, f+"/") {
						t.Errorf("%s depends on %s", tt.pkg, dep)
					}
				}
			}
		})
	}
}
