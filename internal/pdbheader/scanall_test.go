package pdbheader

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// readAllOnly hides localblob's in-place reader, so that ScanAll takes its
// ReadAll path; failing URIs answer with the given error.
type readAllOnly struct {
	blob.Store
	fail map[string]error
}

func (s readAllOnly) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	if err := s.fail[uri]; err != nil {
		return nil, err
	}
	return s.Store.ReadAll(ctx, uri)
}

// TestScanAll: 4 workers over the golden files (mapped reads and ReadAll
// reads alike) give Scan's entries in input order; a missing file is a row
// with its error; a transient error stops the scan and is returned.
func TestScanAll(t *testing.T) {
	dir, lines := goldenLines(t)
	var uris []string
	for _, g := range lines {
		uris = append(uris, filepath.Join(dir, g.File))
	}
	missing := filepath.Join(dir, "pdb", "0nul.cif")
	uris = append(uris[:10:10], append([]string{missing}, uris[10:]...)...)
	ctx := context.Background()
	for _, store := range []blob.Store{localblob.Store{}, readAllOnly{Store: localblob.Store{}}} {
		got, err := ScanAll(ctx, store, uris, Options{Workers: 4})
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range uris {
			if u == missing {
				if got[i].Error == nil || !strings.Contains(*got[i].Error, "0nul.cif") || got[i].PDBID != "0nul" {
					t.Errorf("missing file: %+v", got[i])
				}
				continue
			}
			if want := Scan(mustRead(t, u), u); !reflect.DeepEqual(got[i], want) {
				t.Errorf("%T: ScanAll row %d (%s) differs from Scan", store, i, u)
			}
		}
	}
	flaky := readAllOnly{Store: localblob.Store{}, fail: map[string]error{uris[20]: derrors.Transient(errors.New("503"))}}
	if _, err := ScanAll(ctx, flaky, uris, Options{Workers: 3}); !errors.Is(err, derrors.ErrTransient) {
		t.Errorf("transient read error: %v, want it returned", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := localblob.Store{}.ReadAll(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
