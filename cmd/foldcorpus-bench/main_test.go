package main

import (
	"context"
	"testing"
)

// TestKindsTable: names are unique, and every kind answers -h (and
// `help KIND`) with exit 0; usage errors exit 2.
func TestKindsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range kinds {
		if seen[k.name] || k.name == "" || k.summary == "" || k.run == nil {
			t.Errorf("kind %q: duplicate or incomplete table entry", k.name)
		}
		seen[k.name] = true
	}
	ctx := context.Background()
	cases := [][]string{{"help"}, {"-h"}, {"--help"}}
	for _, k := range kinds {
		cases = append(cases, []string{k.name, "-h"}, []string{"help", k.name})
	}
	for _, args := range cases {
		if code := mainCode(ctx, args); code != 0 {
			t.Errorf("foldcorpus-bench %v: exit %d, want 0 (help)", args, code)
		}
	}
	for _, args := range [][]string{{}, {"no-such-kind"}, {"shard", "--no-such-flag"}} {
		if code := mainCode(ctx, args); code != 2 {
			t.Errorf("foldcorpus-bench %v: exit %d, want 2 (usage error)", args, code)
		}
	}
}
