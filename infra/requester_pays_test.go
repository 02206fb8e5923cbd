package infra

import (
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// TestRequesterPaysRoleOnlyWhereUsed: with the default variables no
// bucket is requester-pays and nobody holds serviceUsageConsumer (a
// userProject on a request needs it); with one configured, exactly the
// functions that read input buckets (planner, shard function) hold it, and
// the functions get the bucket list.
func TestRequesterPaysRoleOnlyWhereUsed(t *testing.T) {
	m := loadTF(t)
	// holders lists the instances of serviceUsageConsumer grants under the
	// variables vars: for_each keys, "count=N", or the resource name.
	holders := func(vars map[string]cty.Value) []string {
		ctx := &hcl.EvalContext{Variables: map[string]cty.Value{}, Functions: m.ctx.Functions}
		for k, v := range m.ctx.Variables {
			ctx.Variables[k] = v
		}
		ctx.Variables["var"] = cty.ObjectVal(vars)
		var out []string
		for name, body := range m.resources("google_project_iam_member") {
			role, diags := body.Attributes["role"].Expr.Value(nil)
			if diags.HasErrors() || role.Type() != cty.String || role.AsString() != "roles/serviceusage.serviceUsageConsumer" {
				continue
			}
			switch fe, cnt := body.Attributes["for_each"], body.Attributes["count"]; {
			case fe != nil:
				v := m.evalIn(t, fe.Expr, ctx)
				for it := v.ElementIterator(); it.Next(); {
					k, _ := it.Element()
					out = append(out, k.AsString())
				}
			case cnt != nil:
				if n := intOf(t, m.evalIn(t, cnt.Expr, ctx)); n > 0 {
					out = append(out, name)
				}
			default:
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out
	}
	vars := m.ctx.Variables["var"].AsValueMap()
	if got := holders(vars); len(got) != 0 {
		t.Errorf("default variables: serviceUsageConsumer granted to %v, want nobody", got)
	}
	vars["extra_input_buckets"] = cty.ListVal([]cty.Value{cty.StringVal("rp-bucket")})
	vars["requester_pays_buckets"] = cty.ListVal([]cty.Value{cty.StringVal("rp-bucket")})
	if got := holders(vars); !slices.Equal(got, []string{"planner", "shardfn"}) {
		t.Errorf("requester_pays_buckets set: serviceUsageConsumer for %v, want planner and shardfn", got)
	}
	if env := m.locals["function_env"]; env == nil || !m.refs(env)["var.requester_pays_buckets"] {
		t.Error("local.function_env does not pass var.requester_pays_buckets to the functions")
	}
}
