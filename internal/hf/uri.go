// Package hf reads dataset files from the Hugging Face Hub over its HTTP API:
// the revision pinned to a commit, one paginated tree listing, and per file
// one resolve (a redirect to a signed CDN URL) followed by HTTP range reads.
// Fetch projects parquet files to a subset of their columns while reading
// only the footer and the projected column chunks, paced by the Hub's
// RateLimit headers, resumable, with a lock file of what was fetched.
//
// The endpoint and token come from Options (OptionsFromEnv reads HF_ENDPOINT
// and HF_TOKEN, as the Hub's own client does).
package hf

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Source is a parsed hf://datasets/OWNER/NAME[@REV][/PATH] URI.
type Source struct {
	Repo     string // OWNER/NAME
	Revision string // branch, tag or commit ("main" when absent)
	Path     string // folder or file inside the repository ("" for all)
}

// DefaultRevision is the revision of a URI without @REV.
const DefaultRevision = "main"

// ParseSource parses hf://datasets/OWNER/NAME[@REV][/PATH]. A revision with
// a slash (refs/pr/1) must be written URL-encoded (refs%2Fpr%2F1), as the
// Hub's own URIs do. Errors wrap derrors.ErrPermanent.
func ParseSource(uri string) (Source, error) {
	rest, ok := strings.CutPrefix(uri, "hf://")
	if !ok {
		return Source{}, derrors.Permanent(fmt.Errorf("not an hf:// URI: %q", uri))
	}
	rest, ok = strings.CutPrefix(rest, "datasets/")
	if !ok {
		return Source{}, derrors.Permanent(fmt.Errorf("%q: only dataset repositories are supported (want hf://datasets/OWNER/NAME[@REV][/PATH])", uri))
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return Source{}, derrors.Permanent(fmt.Errorf("%q: want hf://datasets/OWNER/NAME[@REV][/PATH]", uri))
	}
	name, rev, hasRev := strings.Cut(parts[1], "@")
	s := Source{Repo: parts[0] + "/" + name, Revision: DefaultRevision}
	if hasRev {
		r, err := url.PathUnescape(rev)
		if err != nil || r == "" {
			return Source{}, derrors.Permanent(fmt.Errorf("%q: bad revision %q", uri, rev))
		}
		s.Revision = r
	}
	if name == "" || strings.ContainsAny(s.Repo, "?#\\ ") {
		return Source{}, derrors.Permanent(fmt.Errorf("%q: bad repository name", uri))
	}
	if len(parts) == 3 {
		s.Path = strings.Trim(parts[2], "/")
	}
	return s, nil
}

// String returns the URI form.
func (s Source) String() string {
	u := "hf://datasets/" + s.Repo
	if s.Revision != DefaultRevision {
		u += "@" + url.PathEscape(s.Revision)
	}
	if s.Path != "" {
		u += "/" + s.Path
	}
	return u
}

// escapePath escapes each segment of a repository path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
