package infra

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// metaArguments are Terraform's own, valid in every resource block.
var metaArguments = map[string]bool{"count": true, "for_each": true, "depends_on": true, "provider": true, "lifecycle": true}

// TestResourcesMatchProviderSchema checks every resource and data block of
// infra/*.tf against the provider's own definitions (testdata/
// provider-schema.json, extracted from magic-modules; see
// schema_gen_test.go): the type exists, every argument and nested block is
// in its schema, none is read-only, and anything beta-only (a whole
// resource, or an argument) is given the google-beta provider, which
// versions.tf must require.
func TestResourcesMatchProviderSchema(t *testing.T) {
	data, err := os.ReadFile("testdata/provider-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var ps providerSchema
	if err := json.Unmarshal(data, &ps); err != nil {
		t.Fatal(err)
	}
	m := loadTF(t)
	betaRequired := strings.Contains(readFile(t, "versions.tf"), `source  = "hashicorp/google-beta"`)
	for _, b := range m.blocks {
		if b.Type != "resource" && b.Type != "data" {
			continue
		}
		typ := b.Labels[0]
		if b.Type == "data" {
			typ = "data." + typ
		}
		where := b.Type + "." + b.Labels[0] + "." + b.Labels[1]
		if !strings.HasPrefix(b.Labels[0], "google_") {
			continue // archive_file: hashicorp/archive, checked by TestFunctionSourceArchive through terraform console
		}
		rs, ok := ps.Resources[typ]
		if !ok {
			t.Errorf("%s: type %s not in the provider schema extract (add it to schemaSources and regenerate)", where, typ)
			continue
		}
		provider := ""
		if a, ok := b.Body.Attributes["provider"]; ok {
			provider = string(a.SrcRange.SliceBytes(src(t, a.SrcRange.Filename)))
			provider = strings.TrimSpace(strings.TrimPrefix(provider, "provider"))
			provider = strings.TrimSpace(strings.TrimPrefix(provider, "="))
		}
		beta := provider == "google-beta" || strings.HasPrefix(provider, "google-beta.")
		if rs.BetaOnly && !beta {
			t.Errorf("%s: %s exists only in the google-beta provider (%s: min_version beta); set provider = google-beta", where, typ, rs.From)
		}
		if beta && !betaRequired {
			t.Errorf("%s: uses google-beta, which versions.tf does not require", where)
		}
		checkBody(t, where, rs, "", b.Body, beta)
	}
}

func checkBody(t *testing.T, where string, rs resourceSchema, path string, body *hclsyntax.Body, beta bool) {
	t.Helper()
	args := rs.Blocks[path]
	if args == nil {
		// Doc-sourced schemas key nested blocks by their own name.
		args = rs.Blocks[path[strings.LastIndex(path, ".")+1:]]
	}
	if args == nil {
		t.Errorf("%s: block %s not in the schema of %s", where, path, rs.From)
		return
	}
	check := func(name string) {
		full := strings.TrimPrefix(path+"."+name, ".")
		switch v, ok := args[name]; {
		case path == "" && metaArguments[name]:
		case !ok:
			t.Errorf("%s: %s is not an argument of %s", where, full, rs.From)
		case v == "computed":
			t.Errorf("%s: %s is read-only in %s", where, full, rs.From)
		case v == "beta" && !beta:
			t.Errorf("%s: %s needs the google-beta provider (%s)", where, full, rs.From)
		}
	}
	for name := range body.Attributes {
		check(name)
	}
	for _, nb := range body.Blocks {
		name, inner := nb.Type, nb.Body
		if nb.Type == "dynamic" && len(nb.Labels) == 1 {
			name = nb.Labels[0]
			for _, c := range nb.Body.Blocks {
				if c.Type == "content" {
					inner = c.Body
				}
			}
		}
		if path == "" && metaArguments[name] {
			continue
		}
		check(name)
		if _, ok := args[name]; ok {
			checkBody(t, where, rs, strings.TrimPrefix(path+"."+name, "."), inner, beta)
		}
	}
}
