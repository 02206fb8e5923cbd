package infra

import (
	"strings"
	"testing"
)

// TestDeployGuide checks that docs/deploy.md walks through the deployment
// in order and documents every Terraform variable.
func TestDeployGuide(t *testing.T) {
	doc := readFile(t, "../docs/deploy.md")
	steps := []string{
		"gcloud storage buckets create",                       // state bucket
		"terraform init -backend-config",                      // apply
		"terraform apply",                                     //
		"foldcorpus select",                                   // Stage A
		"manifests/smoke.run.json",                            // smoke first
		"foldcorpus status --run",                             // watch
		"N * T / W",                                           // projection
		"manifests/exp1.run.json",                             // then the full run
		"foldcorpus rerun --run",                              // rerun missing shards
		"gcloud storage cp -r \"gs://$PROJECT-$PREFIX-output", // read the output
	}
	at := 0
	for _, s := range steps {
		i := strings.Index(doc[at:], s)
		if i < 0 {
			t.Errorf("docs/deploy.md: %q missing or out of order (after byte %d)", s, at)
			continue
		}
		at += i + len(s)
	}
	m := loadTF(t)
	for _, b := range m.blocks {
		if b.Type != "variable" {
			continue
		}
		name := b.Labels[0]
		documented := strings.Contains(doc, "`"+name+"`")
		if i := strings.Index(name, "_"); !documented && i > 0 {
			documented = strings.Contains(doc, "`"+name[:i]+"_*`")
		}
		if !documented {
			t.Errorf("docs/deploy.md does not document variable %s", name)
		}
	}
}
