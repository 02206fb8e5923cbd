package hf_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// TestFetchErrors: each failure is an error that names the file (or the
// repository) and says what to do.
func TestFetchErrors(t *testing.T) {
	good := afdbFiles(t, 1, 4, 4, false, 100)[0]
	notParquet := hubtest.File{Path: "data/broken.parquet", Data: []byte("this is not a parquet file, only text long enough")}
	tests := []struct {
		name      string
		files     []hubtest.File
		serverTok string
		clientTok string
		uri       string
		cols      hf.Columns
		want      []string
		is        error
	}{
		{"not parquet", []hubtest.File{good, notParquet}, "", "", "hf://datasets/" + repo, hf.DefaultColumns,
			[]string{"data/broken.parquet", "not a parquet file"}, hf.ErrNotParquet},
		{"missing column", []hubtest.File{good}, "", "", "hf://datasets/" + repo, hf.Columns{Keep: []string{"entry_id", "plddt_per_residue"}},
			[]string{good.Path, `"plddt_per_residue"`, "entry_id, gcs_uri, cif_content"}, hf.ErrMissingColumn},
		{"token needed", []hubtest.File{good}, "secret", "", "hf://datasets/" + repo, hf.DefaultColumns,
			[]string{"HTTP 401", repo, "a token is needed: set HF_TOKEN"}, derrors.ErrPermanent},
		{"token refused", []hubtest.File{good}, "secret", "wrong", "hf://datasets/" + repo, hf.DefaultColumns,
			[]string{"HTTP 403", repo, "the token in HF_TOKEN has no access"}, derrors.ErrPermanent},
		{"unknown revision", []hubtest.File{good}, "", "", "hf://datasets/" + repo + "@v9", hf.DefaultColumns,
			[]string{"HTTP 404", "RevisionNotFound", "v9"}, derrors.ErrNotFound},
		{"no parquet under path", []hubtest.File{good}, "", "", "hf://datasets/" + repo + "/data/nothing.parquet", hf.DefaultColumns,
			[]string{"no parquet files", "data/nothing.parquet"}, derrors.ErrPermanent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := hubtest.New(hubtest.Options{Repo: repo, Files: tt.files, Token: tt.serverTok})
			defer srv.Close()
			src, err := hf.ParseSource(tt.uri)
			if err != nil {
				t.Fatal(err)
			}
			_, err = hf.Fetch(context.Background(), testClient(srv, tt.clientTok), hf.FetchOptions{Source: src, Out: t.TempDir(), Store: localblob.Store{}, Columns: tt.cols})
			if err == nil {
				t.Fatalf("Fetch(%s) succeeded, want an error", tt.uri)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Fetch(%s) = %v\nwant it to contain %q", tt.uri, err, w)
				}
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("Fetch(%s) = %v, want errors.Is %v", tt.uri, err, tt.is)
			}
		})
	}
}

func TestParseSource(t *testing.T) {
	tests := []struct {
		uri  string
		want hf.Source
		bad  bool
	}{
		{uri: "hf://datasets/timodonnell/afdb-24M", want: hf.Source{Repo: "timodonnell/afdb-24M", Revision: "main"}},
		{uri: "hf://datasets/timodonnell/afdb-1.6M@v1.0/data/", want: hf.Source{Repo: "timodonnell/afdb-1.6M", Revision: "v1.0", Path: "data"}},
		{uri: "hf://datasets/o/n@refs%2Fpr%2F3/a/b.parquet", want: hf.Source{Repo: "o/n", Revision: "refs/pr/3", Path: "a/b.parquet"}},
		{uri: "hf://models/o/n", bad: true},
		{uri: "hf://datasets/o", bad: true},
		{uri: "gs://b/o", bad: true},
		{uri: "hf://datasets/o/n@", bad: true},
	}
	for _, tt := range tests {
		got, err := hf.ParseSource(tt.uri)
		if tt.bad != (err != nil) || got != tt.want {
			t.Errorf("ParseSource(%q) = %+v, %v; want %+v (error: %v)", tt.uri, got, err, tt.want, tt.bad)
		}
		if err == nil {
			if back, _ := hf.ParseSource(got.String()); back != got {
				t.Errorf("ParseSource(%q).String() = %q does not parse back", tt.uri, got.String())
			}
		}
	}
}
