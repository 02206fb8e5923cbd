package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

// readManifest reads a manifest's entry_id and gcs_uri columns, in order,
// and checks that run's planner can resolve it (entry_id and a URI column).
func readManifest(t *testing.T, uri string) (ids, uris []string) {
	t.Helper()
	ctx := context.Background()
	store := cliStores()
	defer store.Close()
	s, err := manifest.ReadSchema(ctx, store, uri)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Resolve(s, manifest.DefaultURIColumn, "", nil, nil, nil); err != nil {
		t.Fatalf("run cannot resolve the manifest: %v", err)
	}
	err = manifest.ReadFile(ctx, store, uri, nil, []string{"entry_id", "gcs_uri"}, func(r *manifest.Rows) error {
		for _, v := range r.Values {
			ids = append(ids, v[0].(string))
			uris = append(uris, v[1].(string))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, uris
}

// TestManifestTenThousandFiles lists a generated mirror of 10,000 files in
// the RCSB's divided layout (xy/NXYZ.cif[.gz]): 100 copies and 9,900
// symlinks of the corpus's PDB entries under generated names, some
// upper-case, some gzip-named, with stray files that the pattern must
// leave out. Every file is listed once, in path order, with its id by each
// rule; the planner resolves the manifest.
func TestManifestTenThousandFiles(t *testing.T) {
	srcs := testcorpus.Files(t, "pdb")
	dir := t.TempDir()
	want := map[string][2]string{} // path -> stem id, pdb id
	const n = 10000
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%d%03x", 1+i%9, i)
		if i%7 == 3 {
			id = strings.ToUpper(id)
		}
		name := id + ".cif"
		if i%5 == 0 {
			name += ".gz"
		}
		sub := filepath.Join(dir, strings.ToLower(id[1:3]))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(sub, name)
		src := srcs[i%len(srcs)]
		if i%100 == 0 {
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Symlink(src, p); err != nil {
			t.Fatal(err)
		}
		want[p] = [2]string{id, strings.ToLower(id)}
	}
	// Not matched by the pattern: other names, a dangling link, a folder
	// named like a structure file, a file at the top level.
	if err := os.MkdirAll(filepath.Join(dir, "ab"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"ab/notes.txt", "ab/1abc.pdb", "1top.cif.gz"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "missing.cif"), filepath.Join(dir, "ab", "9zzz.cif")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "ab", "dir.cif"), 0o755); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		pattern string
		rule    string
		col     int
		n       int
	}{
		{filepath.Join(dir, "*", "*.cif*"), "stem", 0, n},
		{"file://" + filepath.Join(dir, "**", "*.cif*"), "pdb", 1, n + 1}, // ** takes the top level too
	} {
		out := filepath.Join(t.TempDir(), "m.parquet")
		if err := runManifest(context.Background(), []string{tc.pattern, "--out", out, "--id", tc.rule}); err != nil {
			t.Fatalf("manifest %s: %v", tc.pattern, err)
		}
		ids, uris := readManifest(t, out)
		if len(ids) != tc.n {
			t.Fatalf("manifest %s: %d rows, want %d", tc.pattern, len(ids), tc.n)
		}
		if !sort.StringsAreSorted(uris) {
			t.Errorf("manifest %s: rows not in URI order", tc.pattern)
		}
		for i, u := range uris {
			p := strings.TrimPrefix(u, "file://")
			if p == filepath.Join(dir, "1top.cif.gz") {
				continue
			}
			w, ok := want[p]
			if !ok {
				t.Fatalf("manifest %s: row %d lists %s, not a generated file", tc.pattern, i, u)
			}
			if ids[i] != w[tc.col] {
				t.Errorf("manifest %s (--id %s): %s has id %q, want %q", tc.pattern, tc.rule, u, ids[i], w[tc.col])
			}
		}
	}
}

// TestManifestRefusesDuplicateIDs: two files whose names give one id, and
// one file named by two patterns, are refused with planner.ErrDuplicateID
// naming both places; --allow-duplicate-ids writes every row.
func TestManifestRefusesDuplicateIDs(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"ab/1abc.cif", "cd/1abc.cif.gz", "cd/2xyz.cif"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("data_x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "m.parquet")
	for _, args := range [][]string{
		{filepath.Join(dir, "*", "*.cif*")},
		{filepath.Join(dir, "cd", "2xyz.cif"), filepath.Join(dir, "cd", "*.cif")},
	} {
		err := runManifest(context.Background(), append(args, "--out", out))
		var de *planner.DuplicateError
		if !errors.Is(err, planner.ErrDuplicateID) || !errors.As(err, &de) || de.Count != 1 {
			t.Fatalf("manifest %v: err %v, want one duplicate id", args, err)
		}
		d := de.Dups[0]
		if d.First.File == d.Again.File && args[0] != filepath.Join(dir, "cd", "2xyz.cif") {
			t.Errorf("manifest %v: duplicate names one file twice: %v", args, err)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Fatalf("manifest %v: refused but wrote %s", args, out)
		}
		t.Logf("%v", err)
	}
	if err := runManifest(context.Background(), []string{filepath.Join(dir, "*", "*.cif*"), "--out", out, "--allow-duplicate-ids"}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := readManifest(t, out); len(ids) != 3 {
		t.Errorf("--allow-duplicate-ids: %d rows, want 3", len(ids))
	}
}

// TestManifestGCS lists a bucket in the divided layout through
// fake-gcs-server (TCP, STORAGE_EMULATOR_HOST, the CLI's own GCS store):
// recursive and one-folder patterns, the manifest written to gs://, ids by
// both rules, and a duplicate id refused.
func TestManifestGCS(t *testing.T) {
	ctx := context.Background()
	fake, client := emulators.RequireFakeGCS(t, "pdb-mirror", "manifests")
	t.Setenv("STORAGE_EMULATOR_HOST", fake.URL)
	var want []string
	for i := 0; i < 30; i++ {
		id := fmt.Sprintf("%d%c%c%d", 1+i%9, 'a'+i%3, 'b'+i%4, i%10)
		name := fmt.Sprintf("mmcif/%s/%s.cif.gz", id[1:3], id)
		upload(t, client, "pdb-mirror", name, []byte("data_"+id+"\n"), i%2 == 0)
		want = append(want, "gs://pdb-mirror/"+name)
	}
	upload(t, client, "pdb-mirror", "mmcif/README.txt", []byte("x"), false)
	upload(t, client, "pdb-mirror", "other/ab/1abc.cif.gz", []byte("x"), false)
	sort.Strings(want)

	out := "gs://manifests/pdb/m.parquet"
	if err := runManifest(ctx, []string{"gs://pdb-mirror/mmcif/**/*.cif.gz", "--out", out, "--id", "pdb"}); err != nil {
		t.Fatal(err)
	}
	ids, uris := readManifest(t, out)
	if strings.Join(uris, "\n") != strings.Join(want, "\n") {
		t.Fatalf("gs:// manifest lists\n%s\nwant\n%s", strings.Join(uris, "\n"), strings.Join(want, "\n"))
	}
	for i, u := range uris {
		if base := u[strings.LastIndex(u, "/")+1:]; ids[i] != strings.TrimSuffix(base, ".cif.gz") {
			t.Errorf("%s: id %q", u, ids[i])
		}
	}
	// one folder, the store's own List
	local := filepath.Join(t.TempDir(), "m.parquet")
	if err := runManifest(ctx, []string{"gs://pdb-mirror/mmcif/ab/*.cif.gz", "--out", local}); err != nil {
		t.Fatal(err)
	}
	_, uris = readManifest(t, local)
	for _, u := range uris {
		if !strings.HasPrefix(u, "gs://pdb-mirror/mmcif/ab/") {
			t.Errorf("one-folder pattern listed %s", u)
		}
	}
	if len(uris) == 0 {
		t.Error("one-folder pattern listed nothing")
	}
	// 1ABC and 1abc in two folders: one id by the pdb rule
	upload(t, client, "pdb-mirror", "mmcif/zz/1ABC.cif.gz", []byte("x"), false)
	upload(t, client, "pdb-mirror", "mmcif/yy/1abc.cif.gz", []byte("x"), false)
	err := runManifest(ctx, []string{"gs://pdb-mirror/mmcif/**/*.cif.gz", "--out", "gs://manifests/pdb/m2.parquet", "--id", "pdb"})
	if !errors.Is(err, planner.ErrDuplicateID) || !strings.Contains(err.Error(), "gs://pdb-mirror/mmcif/zz/1ABC.cif.gz") || !strings.Contains(err.Error(), "gs://pdb-mirror/mmcif/yy/1abc.cif.gz") {
		t.Fatalf("duplicate on gs://: %v", err)
	}
	if err := runManifest(ctx, []string{"gs://pdb-mirror/mmcif/**/*.cif.gz", "--out", "gs://manifests/pdb/m3.parquet", "--id", "stem"}); err != nil {
		t.Errorf("stem rule keeps 1ABC and 1abc apart: %v", err)
	}
}
