package planner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blobmux"
	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/fromstructure"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/harness/stores"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localqueue"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

// TestPlanRefusesBadRotlib: contacts-v1 with rotlib=URI of a malformed
// library (file:// and gs:// on fake-gcs-server) is refused by Plan,
// naming the object and the line, before any shard is published (and so
// are the two coordinate formats, which load it through coordfront). The
// planner resolves the format itself (no Deps.NewFormat): the library is
// read through the planner's own store (Deps.Store), which routes gs://
// to the fake GCS as the deployed planner's does; the good library there
// plans the run.
func TestPlanRefusesBadRotlib(t *testing.T) {
	lib := filepath.Join(testcorpus.Dir(t), "golden", "confind-mini-rotlib")
	ebl, err := os.ReadFile(filepath.Join(lib, "EBL.out"))
	if err != nil {
		t.Fatal(err)
	}
	bebl, err := os.ReadFile(filepath.Join(lib, "BEBL.out"))
	if err != nil {
		t.Fatal(err)
	}
	objects := map[string][]byte{"badlib/EBL.out": ebl, "badlib/BEBL.out": []byte("PHIBIN 10\nPSIBIN 10\nBIN 10 10\n"),
		"lib/EBL.out": ebl, "lib/BEBL.out": bebl}
	stores := map[string]func(t *testing.T) (blob.Store, string){
		"file": func(t *testing.T) (blob.Store, string) {
			h := stores.Local(t, objects, "file://")
			return nil, strings.TrimSuffix(h.URI("badlib/EBL.out"), "/EBL.out")
		},
		"gcs": func(t *testing.T) (blob.Store, string) {
			h, _ := stores.FakeGCS(t, objects, gcs.Options{})
			return h.Store, strings.TrimSuffix(h.URI("badlib/EBL.out"), "/EBL.out")
		},
	}
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) {
			gcsStore, uri := mk(t)
			// contacts-v1 and the two coordinate formats (coordfront) load
			// the library the same way.
			for _, f := range []string{"contacts-v1", "contacts-and-coordinates-v1", "contacts-and-crops-v1"} {
				t.Run(f, func(t *testing.T) {
					ctx := context.Background()
					led, spec := manifestAndLedger(t, 3)
					spec.Format = f
					spec.Options = map[string]string{fromstructure.OptRotlib: uri}
					q := localqueue.New()
					mux := blobmux.New()
					mux.Register("file", localblob.Store{})
					mux.Register("gs", gcsStore)
					deps := planner.Deps{Store: mux, Ledger: led, Publisher: q, NewFormat: registry.Builtin().Constructor(ctx, format.Env{Store: mux})}
					_, err := planner.Plan(ctx, deps, spec)
					if !errors.Is(err, confind.ErrLibrary) || !strings.Contains(err.Error(), uri+"/BEBL.out:3") || q.Len() != 0 {
						t.Fatalf("Plan with a bad library = %v, %d published; want an ErrLibrary naming %s/BEBL.out:3 and nothing published", err, q.Len(), uri)
					}
					spec.Options[fromstructure.OptRotlib] = strings.TrimSuffix(uri, "badlib") + "lib"
					if _, err := planner.Plan(ctx, deps, spec); err != nil || q.Len() != 3 {
						t.Fatalf("Plan with the good library %s = %v, %d published; want 3 shards", spec.Options[fromstructure.OptRotlib], err, q.Len())
					}
				})
			}
		})
	}
}
