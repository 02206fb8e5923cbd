package filelist

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

func TestEntryID(t *testing.T) {
	for _, tc := range []struct {
		rule      IDRule
		uri, want string
	}{
		{IDStem, "/m/AF-P69905-F1-model_v4.cif", "AF-P69905-F1-model_v4"},
		{IDStem, "gs://b/x/AF-P69905-F1-model_v4.cif.gz", "AF-P69905-F1-model_v4"},
		{IDStem, "file:///d/design.1.PDB.GZ", "design.1"},
		{IDStem, "ab/1ABC.cif", "1ABC"},
		{IDPDB, "ab/1ABC.cif.gz", "1abc"},
		{IDPDB, "gs://b/mmcif/ab/pdb1abc.ent.gz", "pdb1abc"},
	} {
		if got, err := EntryID(tc.rule, tc.uri); err != nil || got != tc.want {
			t.Errorf("EntryID(%s, %s) = %q, %v, want %q", tc.rule, tc.uri, got, err, tc.want)
		}
	}
	for _, bad := range []string{"d/.cif", "d/.hidden"} {
		if _, err := EntryID(IDStem, bad); !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("EntryID(stem, %s): %v, want an error", bad, err)
		}
	}
	if _, err := ParseIDRule("upper"); err == nil {
		t.Error("ParseIDRule(upper): no error")
	}
}

func TestMatchElems(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"**/*.cif", "a.cif", true}, {"**/*.cif", "x/y/a.cif", true}, {"*/*.cif", "a.cif", false},
		{"*/*.cif", "ab/a.cif", true}, {"**", "a/b", true}, {"a/**/b/*.gz", "a/b/x.gz", true},
		{"a/**/b/*.gz", "a/q/r/b/x.gz", true}, {"a/**/b/*.gz", "a/q/r/c/x.gz", false},
	} {
		if got := matchElems(strings.Split(tc.pat, "/"), strings.Split(tc.name, "/")); got != tc.want {
			t.Errorf("matchElems(%s, %s) = %v", tc.pat, tc.name, got)
		}
	}
}

func TestExpandLocal(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/1.cif", "a/b/2.cif", "3.cif", "a/x.txt", "a/" + localblob.TempPrefix + "4.cif"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), nil, 0o644)
	}
	ctx := context.Background()
	got, err := Expand(ctx, localblob.Store{}, dir+"/**/*.cif")
	want := []string{dir + "/3.cif", dir + "/a/1.cif", dir + "/a/b/2.cif"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Expand ** = %v, %v, want %v", got, err, want)
	}
	got, err = Expand(ctx, localblob.Store{}, "file://"+dir+"/*/*.cif")
	if err != nil || !reflect.DeepEqual(got, []string{"file://" + dir + "/a/1.cif"}) {
		t.Errorf("Expand file:// */ = %v, %v", got, err)
	}
	if _, err := Expand(ctx, localblob.Store{}, dir+"/**/*.none"); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("no match: %v, want ErrNotFound", err)
	}
	if _, err := Expand(ctx, localblob.Store{}, dir+"/a**/*.cif"); err == nil {
		t.Error("a** accepted")
	}
}
