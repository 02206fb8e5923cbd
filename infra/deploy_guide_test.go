package infra

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/foldcorpus/foldcorpus/functions"
	"github.com/foldcorpus/foldcorpus/planner"
)

// fenced returns the fenced code blocks of doc with the given info string.
func fenced(doc, lang string) []string {
	var out []string
	for _, part := range strings.Split(doc, "```"+lang+"\n")[1:] {
		if i := strings.Index(part, "```"); i >= 0 {
			out = append(out, part[:i])
		}
	}
	return out
}

// TestDeployGuideVariablesFile walks docs/deploy.md's variables file as a
// user would: step 1's infra/terraform.tfvars sets only declared
// variables, allows AFDB's bucket, and is what every terraform command and
// the shell's PROJECT, REGION and PREFIX read; no command passes -var.
func TestDeployGuideVariablesFile(t *testing.T) {
	doc := readFile(t, "../docs/deploy.md")
	hclBlocks := fenced(doc, "hcl")
	if len(hclBlocks) != 1 {
		t.Fatalf("docs/deploy.md has %d hcl blocks, want one (the variables file)", len(hclBlocks))
	}
	tfvars := hclBlocks[0]
	f, diags := hclparse.NewParser().ParseHCL([]byte(tfvars), "terraform.tfvars")
	if diags.HasErrors() {
		t.Fatalf("the guide's terraform.tfvars: %s", diags.Error())
	}
	m := loadTF(t)
	declared := map[string]bool{}
	for _, b := range m.blocks {
		if b.Type == "variable" {
			declared[b.Labels[0]] = true
		}
	}
	vals := map[string]string{}
	for name, a := range f.Body.(*hclsyntax.Body).Attributes {
		if !declared[name] {
			t.Errorf("the guide's terraform.tfvars sets %s, which infra/variables.tf does not declare", name)
		}
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", name, diags.Error())
		}
		if v.Type().IsPrimitiveType() {
			vals[name] = v.AsString()
		} else {
			for _, e := range v.AsValueSlice() {
				vals[name] += e.AsString() + " "
			}
		}
	}
	for _, need := range []string{"project", "region", "name_prefix"} {
		if vals[need] == "" {
			t.Errorf("the guide's terraform.tfvars does not set %s", need)
		}
	}
	if !strings.Contains(vals["extra_input_buckets"], "public-datasets-deepmind-alphafold-v4") {
		t.Error("the guide's terraform.tfvars does not allow AFDB's bucket (extra_input_buckets): every AFDB row would be refused")
	}
	if env := m.locals["function_env"]; env == nil || !m.refs(env)["var.extra_input_buckets"] {
		t.Error("the functions' input buckets do not include var.extra_input_buckets")
	}
	// No terraform command of the guide or of Cloud Build passes project,
	// region or name_prefix: they come from the file.
	tfLine := regexp.MustCompile(`terraform[^\n]*(apply|destroy|plan)[^\n]*`)
	for _, src := range []string{doc, readFile(t, "../cloudbuild.yaml")} {
		for _, line := range tfLine.FindAllString(src, -1) {
			for _, v := range []string{"project", "region", "name_prefix", "extra_input_buckets"} {
				if strings.Contains(line, "-var="+v) || strings.Contains(line, `-var="`+v) {
					t.Errorf("%q sets %s on the command line: it belongs in infra/terraform.tfvars", line, v)
				}
			}
		}
	}
	// Step 1's shell lines read the same file.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "infra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "infra", "terraform.tfvars"), []byte(tfvars), 0o644); err != nil {
		t.Fatal(err)
	}
	var script []string
	for _, block := range fenced(doc, "sh") {
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "PROJECT=") || strings.HasPrefix(line, "REGION=") || strings.HasPrefix(line, "PREFIX=") {
				script = append(script, line)
			}
		}
	}
	if len(script) != 3 {
		t.Fatalf("docs/deploy.md sets PROJECT, REGION, PREFIX in %d lines, want 3: %v", len(script), script)
	}
	cmd := exec.Command("bash", "-c", strings.Join(script, "\n")+"\necho \"$PROJECT $REGION $PREFIX\"")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if want := vals["project"] + " " + vals["region"] + " " + vals["name_prefix"]; err != nil || strings.TrimSpace(string(out)) != want {
		t.Errorf("step 1's shell lines give %q (%v), want %q", out, err, want)
	}
	// Cloud Build compares `terraform console`'s reading of the file with
	// its substitutions: check that reading where terraform is installed.
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("SKIP: terraform not installed: Cloud Build's check of the variables file not replayed")
	}
	if err := os.WriteFile(filepath.Join(dir, "infra", "variables.tf"), []byte(readFile(t, "variables.tf")), 0o644); err != nil {
		t.Fatal(err)
	}
	console := exec.Command("terraform", "console")
	console.Dir = filepath.Join(dir, "infra")
	console.Stdin = strings.NewReader(`join(" ", [var.project, var.region, var.name_prefix])` + "\n")
	got, err := console.Output()
	want := fmt.Sprintf("%q", vals["project"]+" "+vals["region"]+" "+vals["name_prefix"])
	if err != nil || strings.TrimSpace(string(got)) != want {
		t.Errorf("terraform console on the guide's file: %q (%v), want %s", got, err, want)
	}
	if !strings.Contains(readFile(t, "../cloudbuild.yaml"), `'"${PROJECT_ID} ${_REGION} ${_NAME_PREFIX}"'`) {
		t.Error("cloudbuild.yaml's deploy step does not compare the file's project, region and name_prefix with its own, in terraform console's format")
	}
}

// TestCloudBuildNamesFromThePrefix: every bucket cloudbuild.yaml touches is
// named as docs/deploy.md creates it (PROJECT-PREFIX-...), never with a
// fixed foldcorpus; the variables file comes from the state bucket.
func TestCloudBuildNamesFromThePrefix(t *testing.T) {
	cb := readFile(t, "../cloudbuild.yaml")
	doc := readFile(t, "../docs/deploy.md")
	var code []string
	for _, line := range strings.Split(cb, "\n") {
		if l := strings.TrimSpace(line); !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "_NAME_PREFIX:") {
			code = append(code, line)
		}
	}
	fixed := regexp.MustCompile(`(gs://|docker\.pkg\.dev/)[^\s'"]*foldcorpus|PROJECT_ID\}-foldcorpus`)
	if body := strings.Join(code, "\n"); fixed.MatchString(body) {
		t.Error("cloudbuild.yaml names a resource with a fixed foldcorpus: use ${_NAME_PREFIX}")
	}
	for _, b := range []string{"tfstate", "ci"} {
		if !strings.Contains(doc, "gs://$PROJECT-$PREFIX-"+b) {
			t.Errorf("docs/deploy.md does not create gs://$PROJECT-$PREFIX-%s", b)
		}
		if !strings.Contains(cb, "${PROJECT_ID}-${_NAME_PREFIX}-"+b) {
			t.Errorf("cloudbuild.yaml does not use ${PROJECT_ID}-${_NAME_PREFIX}-%s", b)
		}
	}
	if !strings.Contains(doc, `gcloud storage cp infra/terraform.tfvars "gs://$PROJECT-$PREFIX-tfstate/terraform.tfvars"`) ||
		!strings.Contains(cb, "gs://${PROJECT_ID}-${_NAME_PREFIX}-tfstate/terraform.tfvars' infra/terraform.tfvars") {
		t.Error("the variables file does not travel from docs/deploy.md step 4 to Cloud Build through the state bucket")
	}
}

// TestDeployGuideOutputPaths: step 9 names the folder and files the code
// writes for step 7's run spec.
func TestDeployGuideOutputPaths(t *testing.T) {
	doc := readFile(t, "../docs/deploy.md")
	cfg := functions.Config{OutputPrefix: "gs://$PROJECT-$PREFIX-output/" + m0(t, "output_prefix")}
	spec := strings.TrimSuffix(m0(t, "manifest_prefix"), "/") + "/exp1.run.json"
	if !strings.Contains(doc, `"gs://$PROJECT-$PREFIX-input/`+spec+`"`) {
		t.Fatalf("docs/deploy.md step 7 does not upload the run spec %s", spec)
	}
	folder := strings.Replace(functions.New(cfg, functions.Deps{}).OutputFolder(spec, 12345), "12345", "$GEN", 1)
	for _, want := range []string{`gcloud storage ls "` + folder + `/"`, `gcloud storage cp -r "` + folder + `" ./exp1`} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/deploy.md step 9 lacks %s (the folder the code writes)", want)
		}
	}
	name := regexp.MustCompile(`\d{5}-of-\d{5}`).ReplaceAllString(planner.OutputName("part", 0, 1), "SSSSS-of-TTTTT")
	if !strings.Contains(doc, "`"+name+"`") {
		t.Errorf("docs/deploy.md step 9 does not name the files %s", name)
	}
}

// m0 is a variable's default as a string.
func m0(t *testing.T, name string) string {
	t.Helper()
	m := loadTF(t)
	return m.eval(t, m.varDefault(t, name)).AsString()
}

// deployerNeeds is why the deployer holds each role of docs/deploy.md's
// DEPLOYER_ROLES: the resource types of infra/*.tf it creates (and the
// build's own needs).
var deployerNeeds = map[string][]string{
	"roles/artifactregistry.admin":         {"google_artifact_registry_repository", "google_artifact_registry_repository_iam_member"},
	"roles/browser":                        {"data.google_project", "data.google_storage_project_service_account"},
	"roles/cloudfunctions.admin":           {"google_cloudfunctions2_function"},
	"roles/compute.networkAdmin":           {"google_compute_network", "google_compute_subnetwork"},
	"roles/datastore.owner":                {"google_firestore_database", "google_firestore_field", "google_firestore_index"},
	"roles/iam.serviceAccountAdmin":        {"google_service_account", "google_service_account_iam_member"},
	"roles/iam.serviceAccountUser":         {"actAs"}, // deploy the functions and TPU VMs with their service accounts
	"roles/logging.logWriter":              {"cloudbuild.yaml"},
	"roles/pubsub.admin":                   {"google_pubsub_topic", "google_pubsub_subscription", "google_pubsub_topic_iam_member", "google_pubsub_subscription_iam_member"},
	"roles/run.admin":                      {"google_cloud_run_v2_service_iam_member"},
	"roles/serviceusage.serviceUsageAdmin": {"google_project_service"},
	"roles/storage.admin":                  {"google_storage_bucket", "google_storage_bucket_iam_member", "google_storage_notification", "google_storage_bucket_object"},
	"roles/tpu.admin":                      {"google_tpu_v2_vm"},
	// Conditioned in the guide to the roles google_project_iam_member grants.
	"roles/resourcemanager.projectIamAdmin": {"google_project_iam_member"},
}

// TestDeployerRoles checks docs/deploy.md's deployer roles: every resource
// type of infra/*.tf is covered by a role, every role covers something, no
// basic role, and projectIamAdmin comes only with a condition limiting it to
// exactly the roles google_project_iam_member grants.
func TestDeployerRoles(t *testing.T) {
	doc := readFile(t, "../docs/deploy.md")
	i := strings.Index(doc, "DEPLOYER_ROLES=(")
	j := strings.Index(doc[i:], "\n)")
	if i < 0 || j < 0 {
		t.Fatal("docs/deploy.md has no DEPLOYER_ROLES=( ... ) list")
	}
	roles := map[string]bool{}
	for _, line := range strings.Split(doc[i+len("DEPLOYER_ROLES=("):i+j], "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			if len(f) < 3 || f[1] != "#" {
				t.Errorf("deployer role %s has no reason", f[0])
			}
			roles[f[0]] = true
		}
	}
	cond := regexp.MustCompile(`--role=roles/resourcemanager.projectIamAdmin \\\n\s+--condition="[^"]*hasOnly\(\[([^\]]*)\]\)`).FindStringSubmatch(doc)
	if cond == nil {
		t.Error("docs/deploy.md does not grant projectIamAdmin with a hasOnly condition")
	} else {
		roles["roles/resourcemanager.projectIamAdmin"] = true
	}
	for r := range roles {
		if r == "roles/owner" || r == "roles/editor" || (r == "roles/resourcemanager.projectIamAdmin" && cond == nil) {
			t.Errorf("deployer role %s grants far more than the deployment needs", r)
		}
		if deployerNeeds[r] == nil {
			t.Errorf("deployer role %s is not needed by any resource (add its reason to deployerNeeds, or drop it)", r)
		}
	}
	m := loadTF(t)
	used := map[string]bool{"cloudbuild.yaml": true, "actAs": true}
	for _, b := range m.blocks {
		switch b.Type {
		case "resource":
			used[b.Labels[0]] = true
		case "data":
			used["data."+b.Labels[0]] = true
		}
	}
	covered := map[string]bool{}
	for r, types := range deployerNeeds {
		if roles[r] {
			for _, typ := range types {
				covered[typ] = true
			}
		}
	}
	for typ := range used {
		if !covered[typ] && typ != "data.archive_file" {
			t.Errorf("no deployer role creates %s", typ)
		}
	}
	// The condition lists exactly the project-level roles iam.tf grants.
	var granted []string
	for _, body := range m.resources("google_project_iam_member") {
		for _, ctx := range m.instances(t, body) {
			if v, diags := body.Attributes["role"].Expr.Value(ctx); !diags.HasErrors() && v.IsKnown() {
				granted = append(granted, "'"+v.AsString()+"'")
			}
		}
	}
	// Roles of instances that exist only under some variables (for_each
	// on a list that is empty by default).
	for _, body := range m.resources("google_project_iam_member") {
		if v, diags := body.Attributes["role"].Expr.Value(nil); !diags.HasErrors() && v.IsKnown() {
			granted = append(granted, "'"+v.AsString()+"'")
		}
	}
	slices.Sort(granted)
	granted = slices.Compact(granted)
	if cond != nil {
		var listed []string
		for _, r := range strings.Split(cond[1], ",") {
			listed = append(listed, strings.TrimSpace(r))
		}
		slices.Sort(listed)
		if !slices.Equal(listed, granted) {
			t.Errorf("projectIamAdmin's condition allows %v; infra/iam.tf grants %v", listed, granted)
		}
	}
}
