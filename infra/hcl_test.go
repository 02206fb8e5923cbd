package infra

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// tf is the Terraform of this folder, parsed.
type tf struct {
	blocks []*hclsyntax.Block // top-level blocks of every file
	locals map[string]hcl.Expression
	ctx    *hcl.EvalContext // var.* = defaults (project "test-project"), local.*, resources unknown
}

func loadTF(t *testing.T) *tf {
	t.Helper()
	files, err := filepath.Glob("*.tf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Terraform files: %v", err)
	}
	p := hclparse.NewParser()
	m := &tf{locals: map[string]hcl.Expression{}}
	for _, f := range files {
		file, diags := p.ParseHCLFile(f)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", f, diags.Error())
		}
		body := file.Body.(*hclsyntax.Body)
		if len(body.Attributes) > 0 {
			t.Errorf("%s: top-level attributes %v", f, body.Attributes)
		}
		m.blocks = append(m.blocks, body.Blocks...)
	}
	vars := map[string]cty.Value{}
	for _, b := range m.blocks {
		switch b.Type {
		case "variable":
			v := cty.DynamicVal
			if d, ok := b.Body.Attributes["default"]; ok {
				v = m.evalIn(t, d.Expr, nil)
			}
			vars[b.Labels[0]] = v
		case "locals":
			for n, a := range b.Body.Attributes {
				m.locals[n] = a.Expr
			}
		}
	}
	vars["project"] = cty.StringVal("test-project")
	root := map[string]cty.Value{
		"var":  cty.ObjectVal(vars),
		"path": cty.ObjectVal(map[string]cty.Value{"module": cty.StringVal(".")}),
		"data": cty.DynamicVal,
		"each": cty.DynamicVal,
	}
	for _, b := range m.blocks {
		if b.Type == "resource" {
			root[b.Labels[0]] = cty.DynamicVal
		}
	}
	m.ctx = &hcl.EvalContext{Variables: root, Functions: funcs}
	// Locals may refer to each other: evaluate until nothing changes.
	locals := map[string]cty.Value{}
	for range len(m.locals) + 1 {
		root["local"] = cty.ObjectVal(locals)
		for n, e := range m.locals {
			if v, diags := e.Value(m.ctx); !diags.HasErrors() {
				locals[n] = v
			}
		}
	}
	root["local"] = cty.ObjectVal(locals)
	return m
}

var funcs = map[string]function.Function{
	"floor": stdlib.FloorFunc, "join": stdlib.JoinFunc, "length": stdlib.LengthFunc, "concat": stdlib.ConcatFunc,
	"merge": stdlib.MergeFunc, "upper": stdlib.UpperFunc, "format": stdlib.FormatFunc,
	"tostring": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "v", Type: cty.DynamicPseudoType, AllowUnknown: true}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return convert.Convert(args[0], cty.String)
		},
	}),
}

func (m *tf) evalIn(t *testing.T, e hcl.Expression, ctx *hcl.EvalContext) cty.Value {
	t.Helper()
	v, diags := e.Value(ctx)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", e.Range(), diags.Error())
	}
	return v
}

// eval evaluates e with variable defaults; resource attributes are unknown.
func (m *tf) eval(t *testing.T, e hcl.Expression) cty.Value { return m.evalIn(t, e, m.ctx) }

// resources returns the resource blocks of one type, by name.
func (m *tf) resources(typ string) map[string]*hclsyntax.Body {
	out := map[string]*hclsyntax.Body{}
	for _, b := range m.blocks {
		if b.Type == "resource" && b.Labels[0] == typ {
			out[b.Labels[1]] = b.Body
		}
	}
	return out
}

// allResources calls fn for every resource block.
func (m *tf) allResources(fn func(typ, name string, body *hclsyntax.Body)) {
	for _, b := range m.blocks {
		if b.Type == "resource" {
			fn(b.Labels[0], b.Labels[1], b.Body)
		}
	}
}

// sub returns the first nested block of that type along the path, or nil.
func sub(b *hclsyntax.Body, path ...string) *hclsyntax.Body {
	for _, p := range path {
		var next *hclsyntax.Body
		for _, blk := range b.Blocks {
			if blk.Type == p {
				next = blk.Body
				break
			}
		}
		if next == nil {
			return nil
		}
		b = next
	}
	return b
}

// refs returns what an expression refers to, two steps deep
// ("var.region", "local.tpu_zone", "google_pubsub_topic.shards"), with the
// references of the locals it uses, transitively.
func (m *tf) refs(e hcl.Expression) map[string]bool {
	out := map[string]bool{}
	var walk func(hcl.Expression)
	walk = func(e hcl.Expression) {
		for _, tr := range e.Variables() {
			s := tr.RootName()
			if len(tr) > 1 {
				if a, ok := tr[1].(hcl.TraverseAttr); ok {
					s += "." + a.Name
				}
			}
			if out[s] {
				continue
			}
			out[s] = true
			if strings.HasPrefix(s, "local.") {
				if le, ok := m.locals[strings.TrimPrefix(s, "local.")]; ok {
					walk(le)
				}
			}
		}
	}
	walk(e)
	return out
}

// walkBody calls fn for every attribute in a body and its nested blocks.
func walkBody(b *hclsyntax.Body, fn func(name string, a *hclsyntax.Attribute)) {
	for n, a := range b.Attributes {
		fn(n, a)
	}
	for _, blk := range b.Blocks {
		walkBody(blk.Body, fn)
	}
}

var envName = regexp.MustCompile(`^FOLDCORPUS_[A-Z0-9_]+$`)

// goEnvNames returns the FOLDCORPUS_* names passed as string-literal
// arguments to calls in the non-test Go files of dir (getenv("X"),
// str("X", ...)), and the package's constant declarations.
func goEnvNames(t *testing.T, dir string) (names map[string]bool, consts map[string]constant.Value) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	return goEnvNamesIn(t, files)
}

// goEnvNamesIn is goEnvNames over a list of files.
func goEnvNamesIn(t *testing.T, files []string) (names map[string]bool, consts map[string]constant.Value) {
	t.Helper()
	names, consts = map[string]bool{}, map[string]constant.Value{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", f, err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				for _, a := range n.Args {
					if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil && envName.MatchString(s) {
							names[s] = true
						}
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if i < len(n.Values) {
						if v := constExpr(n.Values[i]); v != nil {
							consts[id.Name] = v
						}
					}
				}
			}
			return true
		})
	}
	return names, consts
}

// constExpr evaluates the constant expressions config.go uses: literals,
// + - * <<, parentheses and time.{Second,Minute,Hour}.
func constExpr(e ast.Expr) constant.Value {
	switch e := e.(type) {
	case *ast.BasicLit:
		return constant.MakeFromLiteral(e.Value, e.Kind, 0)
	case *ast.ParenExpr:
		return constExpr(e.X)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && x.Name == "time" {
			if d, ok := map[string]int64{"Second": 1e9, "Minute": 60e9, "Hour": 3600e9}[e.Sel.Name]; ok {
				return constant.MakeInt64(d)
			}
		}
	case *ast.BinaryExpr:
		x, y := constExpr(e.X), constExpr(e.Y)
		if x == nil || y == nil {
			return nil
		}
		if e.Op == token.SHL {
			s, _ := constant.Uint64Val(y)
			return constant.Shift(x, token.SHL, uint(s))
		}
		if slices.Contains([]token.Token{token.ADD, token.SUB, token.MUL}, e.Op) {
			return constant.BinaryOp(x, e.Op, y)
		}
	}
	return nil
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
