package manifest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

func TestResolvePassthrough(t *testing.T) {
	s := Schema{URI: "m.parquet", Columns: []format.Column{
		{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String},
		{Name: "note", Type: format.String}, {Name: "split", Type: format.String},
		{Name: "global_plddt", Type: format.Float64}, {Name: "tax_id", Type: format.Int64},
	}, Unsupported: []string{"nested"}}
	exclude := []string{"global_plddt"} // the format writes its own
	tests := []struct {
		name        string
		passthrough []string
		want        string // passthrough columns, or the error's text
		wantDropped string
	}{
		{name: "default set", want: "[split tax_id]", wantDropped: "[note global_plddt nested]"},
		{name: "named, in that order", passthrough: []string{"note", "split"}, want: "[note split]", wantDropped: "[global_plddt tax_id nested]"},
		{name: "none", passthrough: []string{}, want: "[]", wantDropped: "[note split global_plddt tax_id nested]"},
		{name: "absent column", passthrough: []string{"split", "cluster"}, want: `missing required column "cluster"`},
		{name: "unsupported column", passthrough: []string{"nested"}, want: `column "nested" has an unsupported type`},
		{name: "the format's own column", passthrough: []string{"global_plddt"}, want: `passthrough column "global_plddt": the format writes its own`},
		{name: "an input column", passthrough: []string{"gcs_uri"}, want: `passthrough column "gcs_uri" is an input column`},
		{name: "named twice", passthrough: []string{"note", "note"}, want: `passthrough column "note" is an input column, or named twice`},
	}
	for _, tt := range tests {
		p, err := Resolve(s, "", "", nil, exclude, tt.passthrough)
		if tt.wantDropped == "" {
			if err == nil || !errors.Is(err, derrors.ErrPermanent) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: Resolve = %v, want a permanent error saying %q", tt.name, err, tt.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := names(p.Passthrough)
		if got == nil {
			got = []string{}
		}
		if fmt.Sprint(got) != tt.want {
			t.Errorf("%s: passthrough %v, want %s", tt.name, got, tt.want)
		}
		if d := fmt.Sprint(Dropped(s, p.Columns())); d != tt.wantDropped {
			t.Errorf("%s: dropped %s, want %s", tt.name, d, tt.wantDropped)
		}
	}
}
