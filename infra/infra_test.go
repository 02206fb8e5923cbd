package infra

import (
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/foldcorpus/foldcorpus/internal/config"
)

// regional lists, per resource type, the attribute that places it; each
// must derive from var.region.
var regional = map[string][]string{
	"google_storage_bucket":                  {"location"},
	"google_cloudfunctions2_function":        {"location"},
	"google_firestore_database":              {"location_id"},
	"google_artifact_registry_repository":    {"location"},
	"google_compute_subnetwork":              {"region"},
	"google_tpu_v2_vm":                       {"zone"},
	"google_cloud_run_v2_service_iam_member": {"location"},
	"google_pubsub_topic":                    {"message_storage_policy", "allowed_persistence_regions"},
}

func TestRegionPinsEverything(t *testing.T) {
	m := loadTF(t)
	seen := map[string]int{}
	m.allResources(func(typ, name string, body *hclsyntax.Body) {
		path, ok := regional[typ]
		if !ok {
			// Any other resource that names a place must also use var.region.
			walkBody(body, func(n string, a *hclsyntax.Attribute) {
				if n == "location" || n == "region" || n == "zone" || n == "location_id" {
					if !m.refs(a.Expr)["var.region"] {
						t.Errorf("%s.%s: %s does not derive from var.region", typ, name, n)
					}
				}
			})
			return
		}
		seen[typ]++
		b := sub(body, path[:len(path)-1]...)
		if b == nil || b.Attributes[path[len(path)-1]] == nil {
			t.Errorf("%s.%s: no %s", typ, name, strings.Join(path, "."))
			return
		}
		if !m.refs(b.Attributes[path[len(path)-1]].Expr)["var.region"] {
			t.Errorf("%s.%s: %s does not derive from var.region", typ, name, strings.Join(path, "."))
		}
	})
	for typ := range regional {
		if seen[typ] == 0 {
			t.Errorf("no %s resource", typ)
		}
	}
	for _, b := range m.blocks {
		if b.Type == "provider" && !m.refs(b.Body.Attributes["region"].Expr)["var.region"] {
			t.Errorf("provider %s: region is not var.region", b.Labels[0])
		}
	}
	// No region or zone spelled out anywhere but the variable's default.
	lit := regexp.MustCompile(`"(us|europe|asia|northamerica|southamerica|australia|me|africa)-[a-z]+[0-9](-[a-z])?"`)
	for _, f := range []string{"functions.tf", "pubsub.tf", "storage.tf", "firestore.tf", "iam.tf", "tpujob.tf", "versions.tf", "outputs.tf"} {
		if s := lit.FindString(readFile(t, f)); s != "" {
			t.Errorf("%s spells out the location %s instead of using var.region", f, s)
		}
	}
}

func TestWorkSubscriptionsHaveRetryAndDeadLetter(t *testing.T) {
	m := loadTF(t)
	subs := m.resources("google_pubsub_subscription")
	fns := m.resources("google_cloudfunctions2_function")
	topicsFed := map[string]bool{}
	var deadLetterKeeper bool
	for name, s := range subs {
		topic := ""
		for r := range m.refs(s.Attributes["topic"].Expr) {
			topic = r
		}
		topicsFed[topic] = true
		if ttl := sub(s, "expiration_policy"); ttl == nil || m.eval(t, ttl.Attributes["ttl"].Expr).AsString() != "" {
			t.Errorf("subscription %s may expire (want expiration_policy { ttl = \"\" })", name)
		}
		push := sub(s, "push_config")
		if push != nil {
			oidc := sub(push, "oidc_token")
			if oidc == nil || !m.refs(oidc.Attributes["service_account_email"].Expr)["google_service_account.pusher"] {
				t.Errorf("push subscription %s: no OIDC token from the pusher service account", name)
			}
			// The ack deadline must cover the function it pushes to.
			ack := intOf(t, m.eval(t, s.Attributes["ack_deadline_seconds"].Expr))
			for r := range m.refs(push.Attributes["push_endpoint"].Expr) {
				if fn, ok := strings.CutPrefix(r, "google_cloudfunctions2_function."); ok {
					timeout := intOf(t, m.eval(t, sub(fns[fn], "service_config").Attributes["timeout_seconds"].Expr))
					if ack < timeout {
						t.Errorf("subscription %s: ack deadline %ds < %s timeout %ds", name, ack, fn, timeout)
					}
				}
			}
			if !strings.Contains(string(push.Attributes["push_endpoint"].SrcRange.SliceBytes(src(t, push.Attributes["push_endpoint"].SrcRange.Filename))), "/projects/${var.project}/topics/") {
				t.Errorf("subscription %s: push endpoint lacks /projects/P/topics/T (the functions framework needs it to build the CloudEvent)", name)
			}
		}
		if topic == "google_pubsub_topic.dead_letter" && push == nil {
			// A keeper: nobody consumes it, it only retains.
			if m.eval(t, s.Attributes["message_retention_duration"].Expr).AsString() == "604800s" {
				deadLetterKeeper = true
			}
			continue
		}
		rp := sub(s, "retry_policy")
		if rp == nil {
			t.Errorf("subscription %s: no retry policy", name)
		} else if lo, hi := m.eval(t, rp.Attributes["minimum_backoff"].Expr).AsString(), m.eval(t, rp.Attributes["maximum_backoff"].Expr).AsString(); lo != "10s" || hi != "600s" {
			t.Errorf("subscription %s: retry backoff %s..%s, want 10s..600s", name, lo, hi)
		}
		if topic == "google_pubsub_topic.dead_letter" {
			continue // the end of the line: dead-lettering it again would loop
		}
		// Everything else feeds work: it needs a dead-letter policy.
		dl := sub(s, "dead_letter_policy")
		if dl == nil {
			t.Errorf("subscription %s feeds work but has no dead-letter policy", name)
			continue
		}
		if !m.refs(dl.Attributes["dead_letter_topic"].Expr)["google_pubsub_topic.dead_letter"] {
			t.Errorf("subscription %s: dead letters do not go to the dead-letter topic", name)
		}
		if n := intOf(t, m.eval(t, dl.Attributes["max_delivery_attempts"].Expr)); n < 5 || n > 100 {
			t.Errorf("subscription %s: max delivery attempts %d outside 5..100", name, n)
		}
	}
	if !deadLetterKeeper {
		t.Error("no pull subscription keeps the dead-letter topic's messages for 7 days")
	}
	for name := range m.resources("google_pubsub_topic") {
		if !topicsFed["google_pubsub_topic."+name] {
			t.Errorf("topic %s has no subscription: its messages would be lost", name)
		}
	}
}

func TestLeastPrivilegeNothingPublic(t *testing.T) {
	m := loadTF(t)
	// Project-wide roles that are allowed, and whether they need a condition.
	allowedProjectRoles := map[string]bool{
		"roles/datastore.user":                    true,  // Firestore has no finer IAM: the ledger database
		"roles/logging.logWriter":                 false, // logs have no finer resource
		"roles/serviceusage.serviceUsageConsumer": false, // requester-pays reads bill the project
		"roles/artifactregistry.writer":           true,  // function builds: the gcf-artifacts repository
		"roles/storage.objectAdmin":               true,  // function builds: the gcf-v2-sources buckets
	}
	m.allResources(func(typ, name string, body *hclsyntax.Body) {
		if strings.HasSuffix(typ, "_iam_policy") || strings.HasSuffix(typ, "_iam_binding") {
			t.Errorf("%s.%s: authoritative IAM resources replace other grants; use *_iam_member", typ, name)
		}
		walkBody(body, func(n string, a *hclsyntax.Attribute) {
			text := string(a.SrcRange.SliceBytes(src(t, a.SrcRange.Filename)))
			if strings.Contains(text, "allUsers") || strings.Contains(text, "allAuthenticatedUsers") {
				t.Errorf("%s.%s: %s grants to the public: %s", typ, name, n, text)
			}
		})
		role, ok := body.Attributes["role"]
		if !ok {
			return
		}
		for key, ctx := range m.instances(t, body) {
			v, diags := role.Expr.Value(ctx)
			if diags.HasErrors() || !v.IsKnown() || v.Type() != cty.String {
				t.Errorf("%s.%s[%s]: role is not a known string (%v)", typ, name, key, diags)
				continue
			}
			r, where := v.AsString(), fmt.Sprintf("%s.%s[%s]", typ, name, key)
			conditioned := m.hasCondition(t, body, ctx)
			needs, allowed := allowedProjectRoles[r]
			switch {
			case r == "roles/owner" || r == "roles/editor" || r == "roles/viewer":
				t.Errorf("%s: basic role %s", where, r)
			case typ == "google_project_iam_member" && !allowed:
				t.Errorf("%s: project-wide role %s (grant it on the resource instead)", where, r)
			case typ == "google_project_iam_member" && needs && !conditioned:
				t.Errorf("%s: project-wide role %s without a condition narrowing it", where, r)
			case strings.HasSuffix(strings.ToLower(r), "admin") && !conditioned:
				t.Errorf("%s: admin role %s without a condition", where, r)
			}
		}
	})
	for name, b := range m.resources("google_storage_bucket") {
		if v := m.eval(t, b.Attributes["uniform_bucket_level_access"].Expr); !v.True() {
			t.Errorf("bucket %s: uniform bucket-level access off", name)
		}
		if v := m.eval(t, b.Attributes["public_access_prevention"].Expr).AsString(); v != "enforced" {
			t.Errorf("bucket %s: public access prevention %q, want enforced", name, v)
		}
	}
	for name, f := range m.resources("google_cloudfunctions2_function") {
		if v := m.eval(t, sub(f, "service_config").Attributes["ingress_settings"].Expr).AsString(); v != "ALLOW_INTERNAL_ONLY" {
			t.Errorf("function %s: ingress %s, want ALLOW_INTERNAL_ONLY", name, v)
		}
	}
	for name, vm := range m.resources("google_tpu_v2_vm") {
		if nc := sub(vm, "network_config"); nc == nil || m.eval(t, nc.Attributes["enable_external_ips"].Expr).True() {
			t.Errorf("TPU VM %s: external IPs enabled", name)
		}
	}
	// One service account per component: no two workloads share one.
	owner := map[string]string{}
	use := func(who string, a *hclsyntax.Attribute) {
		for r := range m.refs(a.Expr) {
			if strings.HasPrefix(r, "google_service_account.") {
				if prev, ok := owner[r]; ok {
					t.Errorf("%s and %s share %s", prev, who, r)
				}
				owner[r] = who
			}
		}
	}
	for name, f := range m.resources("google_cloudfunctions2_function") {
		use("function "+name, sub(f, "service_config").Attributes["service_account_email"])
	}
	for name, vm := range m.resources("google_tpu_v2_vm") {
		use("TPU VM "+name, sub(vm, "service_account").Attributes["email"])
	}
	if len(owner) < 4 {
		t.Errorf("only %d workload service accounts (%v): want one per function and the TPU job", len(owner), owner)
	}
}

// rotlibPeakMiB bounds the peak resident memory of loading a
// production-size rotamer library (EBL.out + BEBL.out, 112 MB of text from
// ../shared/tools/synth_rotlib.py) through a store, as the functions do
// (confind.LoadLibraryFrom parses each object as it reads it). Measured
// (peak RSS of `foldcorpus doc --opt rotlib=file://DIR`, README):
// 212 MiB; 373 MiB when the objects were read whole before the parse.
// Issue 25's ceiling is 300 MiB.
const rotlibPeakMiB = 300

func TestFunctionsMatchConfig(t *testing.T) {
	m := loadTF(t)
	// The functions read their variables through internal/config, whose
	// list is what they read (config's TestReadReadsVars); one read by name
	// in functions/ itself would escape this check.
	if own, _ := goEnvNames(t, "../functions"); len(own) > 0 {
		t.Errorf("functions/ reads %v itself: read them through internal/config (config.Read)", slices.Sorted(maps.Keys(own)))
	}
	want := config.Vars(config.Functions)
	if len(want) < 10 || !slices.Contains(want, "FOLDCORPUS_SHARD_TOPIC") {
		t.Fatalf("config.Vars(config.Functions) = %v: not the functions' variables", want)
	}
	registered := registeredFunctions(t)
	lease := durationOf(t, m.eval(t, m.varDefault(t, "lease")))
	maxObj := int64(config.DefaultMaxObjectBytes)
	fns := m.resources("google_cloudfunctions2_function")
	if len(fns) < 2 {
		t.Fatalf("%d functions, want Planner and ShardFn at least", len(fns))
	}
	var entries []string
	for name, f := range fns {
		bc, sc := sub(f, "build_config"), sub(f, "service_config")
		entry := m.eval(t, bc.Attributes["entry_point"].Expr).AsString()
		entries = append(entries, entry)
		if !registered[entry] {
			t.Errorf("function %s: entry point %s is not registered in functions/ (have %v)", name, entry, slices.Sorted(maps.Keys(registered)))
		}
		if rt := m.eval(t, bc.Attributes["runtime"].Expr).AsString(); !regexp.MustCompile(`^go1[0-9]+$`).MatchString(rt) {
			t.Errorf("function %s: runtime %s, want goNNN", name, rt)
		}
		if benv, ok := bc.Attributes["environment_variables"]; !ok {
			t.Errorf("function %s: build_config sets no CGO_ENABLED=1 (pyrandom needs glibc's libm through cgo)", name)
		} else if v := m.eval(t, benv.Expr).AsValueMap()["CGO_ENABLED"]; v.IsNull() || v.AsString() != "1" {
			t.Errorf("function %s: build CGO_ENABLED = %s, want \"1\"", name, v.GoString())
		}
		if cpu := m.eval(t, sc.Attributes["available_cpu"].Expr).AsString(); cpu != "1" {
			t.Errorf("function %s: %s vCPU, want 1", name, cpu)
		}
		timeout := intOf(t, m.eval(t, sc.Attributes["timeout_seconds"].Expr))
		if timeout >= 540 || timeout < 30 {
			t.Errorf("function %s: timeout %ds, want under 540 s", name, timeout)
		}
		if time.Duration(timeout)*time.Second >= lease {
			t.Errorf("function %s: timeout %ds not under the shard lease %s: a live claim could be taken over", name, timeout, lease)
		}
		if refs := m.refs(sc.Attributes["max_instance_count"].Expr); len(refs) != 1 || !strings.HasPrefix(slices.Collect(maps.Keys(refs))[0], "var.") {
			t.Errorf("function %s: max_instance_count is not a variable", name)
		}
		memMiB := mib(t, m.eval(t, sc.Attributes["available_memory"].Expr).AsString())
		// ShardFn holds a largest object and its parse besides a loaded
		// rotamer library (contacts-v1 and the coordinate formats with
		// rotlib=, parsed once per instance); the Planner loads the library
		// too, to refuse a bad one before publishing.
		if entry == "ShardFn" && memMiB*(1<<20) < 2*maxObj+rotlibPeakMiB<<20 {
			t.Errorf("function %s: %d MiB cannot hold a largest object (%d bytes), its parse and a production-size rotamer library (%d MiB)", name, memMiB, maxObj, rotlibPeakMiB)
		}
		if entry == "Planner" && memMiB < 2*rotlibPeakMiB {
			t.Errorf("function %s: %d MiB, want at least twice a production-size rotamer library's peak (%d MiB) for loading it at planning", name, memMiB, rotlibPeakMiB)
		}
		env := m.eval(t, sc.Attributes["environment_variables"].Expr)
		if !env.CanIterateElements() {
			t.Fatalf("function %s: environment not a map", name)
		}
		envMap := env.AsValueMap()
		limit, ok := envMap["GOMEMLIMIT"]
		if !ok || !limit.IsKnown() {
			t.Errorf("function %s: no GOMEMLIMIT", name)
		} else if l := mib(t, strings.TrimSuffix(limit.AsString(), "B")); float64(l) < 0.85*float64(memMiB) || float64(l) > 0.95*float64(memMiB) {
			t.Errorf("function %s: GOMEMLIMIT %s is not ~90%% of %d MiB", name, limit.AsString(), memMiB)
		}
		var set []string
		for k := range envMap {
			if k != "GOMEMLIMIT" {
				set = append(set, k)
			}
		}
		slices.Sort(set)
		if !slices.Equal(set, want) {
			t.Errorf("function %s: environment\n  sets  %v\n  reads %v (config.Vars(config.Functions))", name, set, want)
		}
	}
	for _, want := range []string{"Planner", "ShardFn"} {
		if !slices.Contains(entries, want) {
			t.Errorf("no function with entry point %s", want)
		}
	}
}

// registeredFunctions returns the names functions/ registers with
// functions.CloudEvent or functions.HTTP.
func registeredFunctions(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	re := regexp.MustCompile(`functions\.(?:CloudEvent|HTTP)\("([A-Za-z0-9_]+)"`)
	for _, f := range goFiles(t, "../functions") {
		for _, m := range re.FindAllStringSubmatch(readFile(t, f), -1) {
			out[m[1]] = true
		}
	}
	if len(out) == 0 {
		t.Fatal("functions/ registers no functions")
	}
	return out
}

func TestTPUJob(t *testing.T) {
	m := loadTF(t)
	vms := m.resources("google_tpu_v2_vm")
	if len(vms) != 1 {
		t.Fatalf("%d TPU VM resources, want 1", len(vms))
	}
	for name, vm := range vms {
		if !m.refs(vm.Attributes["metadata"].Expr)["var.tpujob_image"] {
			t.Errorf("TPU VM %s does not run var.tpujob_image", name)
		}
		if sc := sub(vm, "scheduling_config"); sc == nil {
			t.Errorf("TPU VM %s: no scheduling config (spot)", name)
		}
	}
	// Its subscription is on the tokenize topic, and only its account pulls it.
	var pulls bool
	for _, b := range m.resources("google_pubsub_subscription_iam_member") {
		r := m.refs(b.Attributes["subscription"].Expr)
		if r["google_pubsub_subscription.tokenize"] && m.refs(b.Attributes["member"].Expr)["google_service_account.tpujob"] {
			pulls = true
		}
	}
	if !pulls {
		t.Error("the tpujob service account cannot pull the tokenize subscription")
	}
}

func TestFirestoreIndexesMatchLedger(t *testing.T) {
	m := loadTF(t)
	for name, db := range m.resources("google_firestore_database") {
		if v := m.eval(t, db.Attributes["type"].Expr).AsString(); v != "FIRESTORE_NATIVE" {
			t.Errorf("database %s: type %s, want FIRESTORE_NATIVE", name, v)
		}
	}
	// Field names the ledger stores (firestore:"..." struct tags).
	tags := map[string]bool{}
	re := regexp.MustCompile("firestore:\"([a-z_]+)")
	for _, f := range goFiles(t, "../internal/firestoreledger") {
		for _, mm := range re.FindAllStringSubmatch(readFile(t, f), -1) {
			tags[mm[1]] = true
		}
	}
	if len(tags) == 0 {
		t.Fatal("no firestore field tags in internal/firestoreledger")
	}
	idx := m.resources("google_firestore_index")
	if len(idx) == 0 {
		t.Error("no Firestore index")
	}
	for name, ix := range idx {
		for _, f := range ix.Blocks {
			if f.Type != "fields" {
				continue
			}
			if p := m.eval(t, f.Body.Attributes["field_path"].Expr).AsString(); !tags[p] {
				t.Errorf("index %s: field %s is not a ledger field", name, p)
			}
		}
	}
	for name, f := range m.resources("google_firestore_field") {
		if p := m.eval(t, f.Attributes["field"].Expr).AsString(); !tags[p] {
			t.Errorf("field override %s: %s is not a ledger field", name, p)
		}
	}
}

// --- helpers

func (m *tf) varDefault(t *testing.T, name string) hclsyntax.Expression {
	t.Helper()
	for _, b := range m.blocks {
		if b.Type == "variable" && b.Labels[0] == name {
			return b.Body.Attributes["default"].Expr
		}
	}
	t.Fatalf("no variable %s", name)
	return nil
}

func intOf(t *testing.T, v cty.Value) int {
	t.Helper()
	if !v.IsKnown() || v.Type() != cty.Number {
		t.Fatalf("%#v is not a known number", v)
	}
	i, _ := v.AsBigFloat().Int64()
	return int(i)
}

func durationOf(t *testing.T, v cty.Value) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(v.AsString())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// mib parses Cloud Run memory ("2048Mi", "2Gi", "512M") and GOMEMLIMIT
// ("1843Mi" after trimming B) sizes into MiB.
func mib(t *testing.T, s string) int64 {
	t.Helper()
	for suf, mult := range map[string]float64{"Gi": 1024, "Mi": 1, "G": 1e9 / (1 << 20), "M": 1e6 / (1 << 20)} {
		if n, ok := strings.CutSuffix(s, suf); ok {
			if f, err := strconv.ParseFloat(n, 64); err == nil {
				return int64(f * mult)
			}
		}
	}
	t.Fatalf("cannot parse memory size %q", s)
	return 0
}

var srcCache = map[string][]byte{}

func src(t *testing.T, file string) []byte {
	if b, ok := srcCache[file]; ok {
		return b
	}
	b := []byte(readFile(t, file))
	srcCache[file] = b
	return b
}

func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, f := range mustGlob(t, dir+"/*.go") {
		if !strings.HasSuffix(f, "_test.go") {
			out = append(out, f)
		}
	}
	return out
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("%s matches nothing (%v)", pattern, err)
	}
	return m
}

// TestBuildpackLayout checks what Google's Go buildpack needs of the source
// root (see /deploy.go; internal/buildpack replays the build):
// one root package, importing the framework's functions package (for the
// declarative main) and ./functions, which holds the registrations.
func TestBuildpackLayout(t *testing.T) {
	fset := token.NewFileSet()
	pkgs := map[string]bool{}
	var imports, registers bool
	for _, f := range goFiles(t, "..") {
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		pkgs[af.Name.Name] = true
		for _, im := range af.Imports {
			imports = imports || im.Path.Value == `"github.com/GoogleCloudPlatform/functions-framework-go/functions"`
			registers = registers || im.Path.Value == `"github.com/foldcorpus/foldcorpus/functions"`
		}
	}
	if !pkgs["functions"] || len(pkgs) != 1 {
		t.Fatalf("root packages %v, want exactly one named functions", slices.Collect(maps.Keys(pkgs)))
	}
	if !imports {
		t.Error("the root package does not import the framework's functions package: the buildpack would generate a main that calls a function symbol of the root package")
	}
	if !registers {
		t.Error("the root package does not import ./functions: the buildpack's main imports the root package (it has moved the source before it looks for a functions/ folder), so no function would register")
	}
	if len(registeredFunctions(t)) == 0 {
		t.Error("functions/ registers nothing")
	}
	if !strings.Contains(readFile(t, "../go.mod"), "github.com/GoogleCloudPlatform/functions-framework-go v") {
		t.Error("go.mod does not pin functions-framework-go: the buildpack would inject its own version")
	}
}

// TestTPUJobEnvironment checks the TPU job's environment (local.tpujob_env)
// against the names the job reads: config.Vars(config.TPUJob), through
// tpujob.SettingsFromEnv; tpujob/ and its CLI entry read none by name.
func TestTPUJobEnvironment(t *testing.T) {
	m := loadTF(t)
	own, _ := goEnvNames(t, "../tpujob")
	for _, f := range goFiles(t, "../cmd/foldcorpus") {
		if strings.Contains(f, "tpujob") {
			n, _ := goEnvNamesIn(t, []string{f})
			maps.Copy(own, n)
		}
	}
	if len(own) > 0 {
		t.Errorf("tpujob/ or cmd/foldcorpus/tpujob*.go reads %v itself: read them through internal/config (config.Read)", slices.Sorted(maps.Keys(own)))
	}
	reads := config.Vars(config.TPUJob)
	if len(reads) < 5 || !slices.Contains(reads, "FOLDCORPUS_TOKENIZE_SUBSCRIPTION") {
		t.Fatalf("config.Vars(config.TPUJob) = %v: not the job's variables", reads)
	}
	env := m.eval(t, m.locals["tpujob_env"])
	var set []string
	for k := range env.AsValueMap() {
		set = append(set, k)
	}
	slices.Sort(set)
	if want := reads; !slices.Equal(set, want) {
		t.Errorf("tpujob environment\n  sets  %v\n  reads %v", set, want)
	}
}

// instances returns one evaluation context per instance of a resource: with
// each.key/each.value bound for for_each, the plain context otherwise.
func (m *tf) instances(t *testing.T, body *hclsyntax.Body) map[string]*hcl.EvalContext {
	t.Helper()
	fe, ok := body.Attributes["for_each"]
	if !ok {
		return map[string]*hcl.EvalContext{"": m.ctx}
	}
	v := m.eval(t, fe.Expr)
	if !v.IsKnown() || !v.CanIterateElements() {
		t.Fatalf("%s: for_each is not a known collection", fe.SrcRange)
	}
	out := map[string]*hcl.EvalContext{}
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		if v.Type().IsSetType() {
			k = val
		}
		ctx := m.ctx.NewChild()
		ctx.Variables = map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": k, "value": val})}
		out[k.AsString()] = ctx
	}
	return out
}

// hasCondition reports whether a resource instance has an IAM condition:
// a condition block, or a dynamic "condition" block with elements.
func (m *tf) hasCondition(t *testing.T, body *hclsyntax.Body, ctx *hcl.EvalContext) bool {
	t.Helper()
	if sub(body, "condition") != nil {
		return true
	}
	for _, b := range body.Blocks {
		if b.Type == "dynamic" && len(b.Labels) == 1 && b.Labels[0] == "condition" {
			v, diags := b.Body.Attributes["for_each"].Expr.Value(ctx)
			if diags.HasErrors() {
				t.Fatalf("%s: %s", b.DefRange(), diags.Error())
			}
			return v.IsKnown() && v.LengthInt() > 0
		}
	}
	return false
}
