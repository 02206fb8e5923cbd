package mmcif

import (
	"errors"
	"reflect"
	"testing"
)

// TestReadCategoriesAsGemmi checks ReadCategories against what gemmi
// 0.5.7's Block.get_mmcif_category (raw=False) returned for the same text
// (run with python3-gemmi when this test was written): '?' is None, '.' is
// False, a quoted '.' is the string, a text field loses its delimiters and
// its last newline; a loop replaces the pairs before it and nothing after
// the first loop is taken; prefixes match without case; other blocks and
// save_ frames are not searched; _atom_site is counted, not collected.
// Column compares names as written (a dict key), Col without case.
func TestReadCategoriesAsGemmi(t *testing.T) {
	doc := "data_x\n_a.b .\n_a.c ?\n_a.d '.'\n_a.e\n;\n hello\n world\n;\n" +
		"_Q.P 1\nloop_\n_q.x _q.y\n1 .\n2 ?\n_q.z 7\nloop_\n_q.w\n9\n" +
		"save_f\n_r.x 1\nsave_\nloop_\n_atom_site.id _atom_site.x\n1 2.0\n2 3.0\n" +
		"data_y\n_r.x 2\n"
	h, err := ReadCategories([]byte(doc), []string{"_a.", "_q.", "_r."})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*Category{
		"_a.": {Tags: []string{"b", "c", "d", "e"}, Values: []Value{{Text: "."}, {Text: "?"}, {Text: ".", Quoted: true}, {Text: "\n hello\n world", Quoted: true}}},
		"_q.": {Tags: []string{"x", "y"}, Values: []Value{{Text: "1"}, {Text: "."}, {Text: "2"}, {Text: "?"}}, isLoop: true},
	}
	if h.Blocks != 2 || !reflect.DeepEqual(h.Categories, want) {
		t.Errorf("ReadCategories: %d blocks, %+v", h.Blocks, h.Categories)
		for k, v := range h.Categories {
			t.Logf("%s: %+v", k, *v)
		}
	}
	if a := h.Categories["_a."]; a.Column("b")[0].Null() != '.' || a.Column("c")[0].Null() != '?' || a.Column("d")[0].Null() != 0 ||
		a.Column("B") != nil || a.Col("B") != 0 || h.Categories["_q."].Column("y")[1].Null() != '?' {
		t.Errorf("Column/Col/Null: %+v", *a)
	}
	for _, bad := range []string{"data_x\nloop_\n_a.b _a.c\n1\n", "data_x\n_a.b 1\n_A.B 2\n", "", "ATOM      1  N   THR A   1      17.047  14.099   3.625  1.00 13.79           N\n"} {
		if _, err := ReadCategories([]byte(bad), []string{"_a."}); err == nil {
			t.Errorf("ReadCategories(%q): no error", bad)
		} else if bad == "" && !errors.Is(err, ErrNoBlock) {
			t.Errorf("empty input: %v, want ErrNoBlock", err)
		}
	}
}
