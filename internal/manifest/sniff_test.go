package manifest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// TestReadSchemaNamesUnreadableFile: what a person reads (derrors.Describe,
// which drops the Go operation names) names the file and says what it looks
// like when it is not a parquet manifest.
func TestReadSchemaNamesUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	good, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}}, [][]any{{"a"}, {"b"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("data_1ABC\n_entry.id 1ABC\n"))
	zw.Close()
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"cut.parquet", string(good[:len(good)/2]), []string{"cut short"}},
		{"csv.parquet", "entry_id,gcs_uri\nA,gs://b/a.cif\n", []string{"looks like CSV"}},
		{"AF-P1-F1-model_v4.cif", "# a comment\ndata_AF-P1-F1-model_v4\n_entry.id AF-P1-F1-model_v4\n", []string{"looks like mmCIF", "foldcorpus manifest"}},
		{"1abc.cif.gz", gz.String(), []string{"looks like gzip-compressed mmCIF", "foldcorpus manifest"}},
		{"1abc.pdb", "HEADER    HYDROLASE                               01-JAN-00   1ABC\nATOM      1  N   MET A   1      1.0   1.0   1.0  1.00  0.00           N\n", []string{"looks like PDB format", "foldcorpus manifest"}},
		{"empty.parquet", "", []string{"empty"}},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := manifest.ReadSchema(context.Background(), localblob.Store{}, p)
		if err == nil || !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("%s: ReadSchema = %v, want a permanent error", tc.name, err)
			continue
		}
		msg := derrors.Describe(err)
		for _, w := range append([]string{p}, tc.want...) {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q does not say %q", tc.name, msg, w)
			}
		}
	}
}
