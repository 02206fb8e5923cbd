package planner_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest/harness"
	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/fromstructure"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localqueue"
	"github.com/foldcorpus/foldcorpus/planner"
)

// TestPlanRefusesBadRotlib: contacts-v1 with rotlib=URI of a malformed
// library (file:// and gs:// on fake-gcs-server) is refused by Plan,
// naming the object and the line, before any shard is published.
func TestPlanRefusesBadRotlib(t *testing.T) {
	ebl, err := os.ReadFile("../../shared/corpus/golden/confind-mini-rotlib/EBL.out")
	if err != nil {
		t.Fatal(err)
	}
	objects := map[string][]byte{"badlib/EBL.out": ebl, "badlib/BEBL.out": []byte("PHIBIN 10\nPSIBIN 10\nBIN 10 10\n")}
	stores := map[string]func(t *testing.T) (blob.Store, string){
		"file": func(t *testing.T) (blob.Store, string) {
			h := harness.Local(t, objects, "file://")
			return h.Store, strings.TrimSuffix(h.URI("badlib/EBL.out"), "/EBL.out")
		},
		"gcs": func(t *testing.T) (blob.Store, string) {
			h, _ := harness.FakeGCS(t, objects, gcs.Options{})
			return h.Store, strings.TrimSuffix(h.URI("badlib/EBL.out"), "/EBL.out")
		},
	}
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			libStore, uri := mk(t)
			led, spec := manifestAndLedger(t, 3)
			spec.Format = "contacts-v1"
			spec.Options = map[string]string{fromstructure.OptRotlib: uri}
			q := localqueue.New()
			deps := planner.Deps{Store: localblob.Store{}, Ledger: led, Publisher: q,
				NewFormat: func(_ string, opts map[string]string) (format.Format, error) {
					return fromstructure.NewFrom(ctx, libStore, opts)
				}}
			_, err := planner.Plan(ctx, deps, spec)
			if !errors.Is(err, confind.ErrLibrary) || !strings.Contains(err.Error(), uri+"/BEBL.out:3") || q.Len() != 0 {
				t.Fatalf("Plan with a bad library = %v, %d published; want an ErrLibrary naming %s/BEBL.out:3 and nothing published", err, q.Len(), uri)
			}
		})
	}
}
