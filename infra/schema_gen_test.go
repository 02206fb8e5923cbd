package infra

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"gopkg.in/yaml.v3"
)

// The provider schema extract (testdata/provider-schema.json) is generated
// from GoogleCloudPlatform/magic-modules, the source of both Google
// providers: mmv1/products/*/*.yaml for generated resources (min_version:
// beta marks beta-only resources and fields; output: true marks read-only
// ones) and the provider docs under mmv1/third_party/terraform/website/docs
// for hand-written ones. Regenerate with a clone (a bare one will do):
//
//	FOLDCORPUS_MAGIC_MODULES=/path/to/magic-modules go test ./infra -run TestGenerateProviderSchema
//
// then review the diff of testdata/provider-schema.json.

// schemaSources maps each resource type the Terraform here uses to its
// definition in magic-modules: "yaml:PATH" (a product resource),
// "iam:PATH" (the *_iam_member generated from PATH's iam_policy), or
// "doc:PATH" (a hand-written resource's documentation).
var schemaSources = map[string]string{
	"google_tpu_v2_vm":                               "yaml:mmv1/products/tpuv2/Vm.yaml",
	"google_cloudfunctions2_function":                "yaml:mmv1/products/cloudfunctions2/Function.yaml",
	"google_pubsub_topic":                            "yaml:mmv1/products/pubsub/Topic.yaml",
	"google_pubsub_subscription":                     "yaml:mmv1/products/pubsub/Subscription.yaml",
	"google_firestore_database":                      "yaml:mmv1/products/firestore/Database.yaml",
	"google_firestore_field":                         "yaml:mmv1/products/firestore/Field.yaml",
	"google_firestore_index":                         "yaml:mmv1/products/firestore/Index.yaml",
	"google_artifact_registry_repository":            "yaml:mmv1/products/artifactregistry/Repository.yaml",
	"google_compute_network":                         "yaml:mmv1/products/compute/Network.yaml",
	"google_compute_subnetwork":                      "yaml:mmv1/products/compute/Subnetwork.yaml",
	"google_pubsub_topic_iam_member":                 "iam:mmv1/products/pubsub/Topic.yaml",
	"google_pubsub_subscription_iam_member":          "doc:mmv1/third_party/terraform/website/docs/r/pubsub_subscription_iam.html.markdown",
	"google_artifact_registry_repository_iam_member": "iam:mmv1/products/artifactregistry/Repository.yaml",
	"google_cloud_run_v2_service_iam_member":         "iam:mmv1/products/cloudrunv2/Service.yaml",
	"google_storage_bucket":                          "doc:mmv1/third_party/terraform/website/docs/r/storage_bucket.html.markdown",
	"google_storage_bucket_object":                   "doc:mmv1/third_party/terraform/website/docs/r/storage_bucket_object.html.markdown",
	"google_storage_notification":                    "doc:mmv1/third_party/terraform/website/docs/r/storage_notification.html.markdown",
	"google_storage_bucket_iam_member":               "doc:mmv1/third_party/terraform/website/docs/r/storage_bucket_iam.html.markdown",
	"google_service_account":                         "doc:mmv1/third_party/terraform/website/docs/r/google_service_account.html.markdown",
	"google_service_account_iam_member":              "doc:mmv1/third_party/terraform/website/docs/r/google_service_account_iam.html.markdown",
	"google_project_service":                         "doc:mmv1/third_party/terraform/website/docs/r/google_project_service.html.markdown",
	"google_project_iam_member":                      "doc:mmv1/third_party/terraform/website/docs/r/google_project_iam.html.markdown",
	"data.google_project":                            "doc:mmv1/third_party/terraform/website/docs/d/project.html.markdown",
	"data.google_storage_project_service_account":    "doc:mmv1/third_party/terraform/website/docs/d/storage_project_service_account.html.markdown",
}

// providerSchema is the committed extract.
type providerSchema struct {
	Source    string                    `json:"source"`
	Resources map[string]resourceSchema `json:"resources"`
}

// resourceSchema: Blocks maps a block path ("" for the resource body,
// "a.b" for nested blocks; for doc sources the block's own name) to its
// arguments, each "ga", "beta" (beta provider only) or "computed" (read
// only: setting it is an error).
type resourceSchema struct {
	From     string                       `json:"from"`
	BetaOnly bool                         `json:"beta_only,omitempty"`
	Blocks   map[string]map[string]string `json:"blocks"`
}

func TestGenerateProviderSchema(t *testing.T) {
	mm := os.Getenv("FOLDCORPUS_MAGIC_MODULES")
	if mm == "" {
		t.Skip("set FOLDCORPUS_MAGIC_MODULES to a magic-modules clone to regenerate testdata/provider-schema.json")
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", mm}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	rev := strings.Fields(git("log", "-1", "--format=%H %cs"))
	out := providerSchema{
		Source:    "github.com/GoogleCloudPlatform/magic-modules at " + rev[0] + " (" + rev[1] + "): mmv1/products/*/*.yaml and mmv1/third_party/terraform/website/docs; generated by infra/schema_gen_test.go",
		Resources: map[string]resourceSchema{},
	}
	for typ, src := range schemaSources {
		kind, path, _ := strings.Cut(src, ":")
		text := git("show", "HEAD:"+path)
		rs := resourceSchema{From: path, Blocks: map[string]map[string]string{}}
		switch kind {
		case "yaml", "iam":
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			rs.BetaOnly = doc["min_version"] == "beta"
			if kind == "iam" {
				iamSchema(t, doc, rs.Blocks)
			} else {
				yamlSchema(doc, rs.Blocks)
			}
		case "doc":
			docSchema(text, rs.Blocks)
		}
		out.Resources[typ] = rs
	}
	data, _ := json.MarshalIndent(out, "", " ")
	if err := os.WriteFile("testdata/provider-schema.json", append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// underscore is magic-modules' google.Underscore for the names here.
func underscore(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 && !unicode.IsUpper(rune(s[i-1])) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func yamlSchema(doc map[string]any, blocks map[string]map[string]string) {
	top := map[string]string{"project": "ga"}
	blocks[""] = top
	blocks["timeouts"] = map[string]string{"create": "ga", "update": "ga", "delete": "ga"}
	top["timeouts"] = "ga"
	for _, key := range []string{"parameters", "properties"} {
		fields, _ := doc[key].([]any)
		addFields(fields, "", "ga", blocks)
	}
	if _, ok := doc["deletion_policy_default"]; ok {
		top["deletion_policy"] = "ga"
	}
	vf, _ := doc["virtual_fields"].([]any)
	for _, f := range vf {
		m := f.(map[string]any)
		v := "ga"
		if m["min_version"] == "beta" {
			v = "beta"
		}
		top[m["name"].(string)] = v
	}
}

func addFields(fields []any, path, inherited string, blocks map[string]map[string]string) {
	if blocks[path] == nil {
		blocks[path] = map[string]string{}
	}
	for _, f := range fields {
		m, ok := f.(map[string]any)
		if !ok || m["exclude"] == true {
			continue
		}
		name := underscore(m["name"].(string))
		v := inherited
		if m["min_version"] == "beta" {
			v = "beta"
		}
		if m["output"] == true {
			v = "computed"
		}
		blocks[path][name] = v
		if m["type"] == "KeyValueLabels" {
			blocks[path]["effective_labels"], blocks[path]["terraform_labels"] = "computed", "computed"
		}
		sub := name
		if path != "" {
			sub = path + "." + name
		}
		if props, ok := m["properties"].([]any); ok {
			addFields(props, sub, v, blocks)
		}
		if it, ok := m["item_type"].(map[string]any); ok {
			if props, ok := it["properties"].([]any); ok {
				addFields(props, sub, v, blocks)
			}
		}
		if vt, ok := m["value_type"].(map[string]any); ok {
			if props, ok := vt["properties"].([]any); ok {
				addFields(props, sub, v, blocks)
				if k, ok := m["key_name"].(string); ok {
					blocks[sub][k] = v
				}
			}
		}
	}
}

// iamSchema: the *_iam_member resource generated from iam_policy: the
// parent attribute, project (and location when the URL has one), role,
// member and an optional condition.
func iamSchema(t *testing.T, doc map[string]any, blocks map[string]map[string]string) {
	ip, ok := doc["iam_policy"].(map[string]any)
	if !ok {
		t.Fatalf("%v has no iam_policy", doc["name"])
	}
	parent, _ := ip["parent_resource_attribute"].(string)
	if parent == "" {
		parent = underscore(doc["name"].(string))
	}
	top := map[string]string{parent: "ga", "project": "ga", "role": "ga", "member": "ga", "condition": "ga", "etag": "computed"}
	if u, _ := doc["base_url"].(string); strings.Contains(u, "{{location}}") {
		top["location"] = "ga"
	}
	if u, _ := doc["base_url"].(string); strings.Contains(u, "{{region}}") {
		top["region"] = "ga"
	}
	blocks[""] = top
	blocks["condition"] = map[string]string{"title": "ga", "description": "ga", "expression": "ga"}
}

var (
	docBlock = regexp.MustCompile("^(?:<a name=\"[^\"]*\"></a>)?The `([a-z0-9_]+)` block supports")
	docArg   = regexp.MustCompile("^\\* `([a-z0-9_/]+)` -+ *(\\(([^)]*)\\))?")
)

// docSchema reads "## Argument Reference" of a provider doc: bullets are
// arguments of the resource, or of the block named by the last "The `x`
// block supports" line. "(Optional, [Beta]...)" marks beta-only ones.
func docSchema(text string, blocks map[string]map[string]string) {
	cur := ""
	in := false
	blocks[""] = map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "## Argument"):
			in = true
			continue
		case strings.HasPrefix(line, "## ") && !strings.HasPrefix(line, "## Argument"):
			if strings.HasPrefix(line, "## Attributes") || strings.HasPrefix(line, "## Import") || strings.HasPrefix(line, "## Timeouts") {
				in = false
			}
			continue
		}
		if !in {
			continue
		}
		if m := docBlock.FindStringSubmatch(line); m != nil {
			cur = m[1]
			if blocks[cur] == nil {
				blocks[cur] = map[string]string{}
			}
			continue
		}
		if m := docArg.FindStringSubmatch(line); m != nil {
			v := "ga"
			if strings.Contains(line, "[Beta]") || strings.Contains(strings.ToLower(m[3]), "beta") {
				v = "beta"
			}
			for _, name := range strings.Split(m[1], "/") { // `member/members`
				blocks[cur][name] = v
			}
		}
	}
}
