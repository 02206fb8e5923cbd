package hubtest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// commitAPI applies one NDJSON commit to the branch, all or nothing.
func (s *Server) commitAPI(w http.ResponseWriter, r *http.Request, escRev string) {
	rev, err := url.PathUnescape(escRev)
	if err != nil || rev != s.opts.Branch {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+escRev)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		hubError(w, http.StatusBadRequest, "", "want Content-Type application/x-ndjson, got "+ct)
		return
	}
	type value struct {
		Summary      string `json:"summary"`
		ParentCommit string `json:"parentCommit"`
		Path         string `json:"path"`
		Content      string `json:"content"`
		Encoding     string `json:"encoding"`
		Algo         string `json:"algo"`
		OID          string `json:"oid"`
		Size         *int64 `json:"size"`
	}
	type line struct {
		Key   string `json:"key"`
		Value value  `json:"value"`
	}
	var lines []line
	err = readNDJSON(r.Body, func(b []byte) error {
		var l line
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		lines = append(lines, l)
		return nil
	})
	if err != nil || len(lines) == 0 || lines[0].Key != "header" || lines[0].Value.Summary == "" {
		hubError(w, http.StatusBadRequest, "", fmt.Sprintf("bad commit payload (a header line with a summary first): %v", err))
		return
	}
	wo := s.opts.Write
	s.mu.Lock()
	s.wr.commitN++
	if s.wr.commitN <= wo.FailCommits {
		s.wr.counts.FailedCommits++
		s.mu.Unlock()
		hubError(w, http.StatusInternalServerError, "", "Internal Error - We're working hard to fix this as soon as possible!")
		return
	}
	head := s.branch
	if pc := lines[0].Value.ParentCommit; pc != "" && (len(pc) < 7 || !strings.HasPrefix(head, pc)) {
		s.wr.counts.FailedCommits++
		s.mu.Unlock()
		hubError(w, http.StatusPreconditionFailed, "", "A commit has happened since. Please refresh and try again.")
		return
	}
	files := map[string]File{}
	for _, f := range s.commits[head] {
		files[f.Path] = f
	}
	var added []string
	for _, l := range lines[1:] {
		v := l.Value
		switch {
		case v.Path == "" || strings.HasPrefix(v.Path, "/") || strings.Contains(v.Path, ".."):
			err = fmt.Errorf("invalid path %q", v.Path)
		case l.Key == "file":
			var data []byte
			if data, err = base64.StdEncoding.DecodeString(v.Content); err == nil && v.Encoding != "base64" {
				err = errors.New("encoding must be base64")
			}
			files[v.Path] = File{Path: v.Path, Data: data, Regular: true}
			added = append(added, v.Path)
		case l.Key == "lfsFile":
			data, ok := s.wr.objects[v.OID]
			switch {
			case v.Algo != "sha256":
				err = fmt.Errorf("%s: algo must be sha256", v.Path)
			case !ok:
				err = fmt.Errorf("%s: Your push was rejected because an LFS pointer pointed to a file that does not exist (%s)", v.Path, v.OID)
			case v.Size != nil && *v.Size != int64(len(data)):
				err = fmt.Errorf("%s: size %d, the object has %d bytes", v.Path, *v.Size, len(data))
			}
			files[v.Path] = File{Path: v.Path, Data: data}
			added = append(added, v.Path)
		case l.Key == "deletedFile":
			delete(files, v.Path)
		default:
			err = fmt.Errorf("unknown key %q", l.Key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		s.mu.Unlock()
		hubError(w, http.StatusUnprocessableEntity, "", err.Error())
		return
	}
	s.branch = s.commitLocked(sortedPaths(files))
	commit := s.branch
	s.wr.counts.Commits++
	s.wr.counts.CommitSizes = append(s.wr.counts.CommitSizes, len(lines)-1)
	for _, p := range added {
		s.wr.counts.PathCommits[p]++
	}
	lose := s.wr.counts.Commits <= wo.LoseCommitAnswers
	if lose {
		s.wr.counts.LostAnswers++
	}
	s.mu.Unlock()
	if wo.OnCommit != nil {
		wo.OnCommit(commit, len(lines)-1)
	}
	if lose {
		panic(http.ErrAbortHandler) // applied, but the answer never arrives
	}
	writeJSON(w, map[string]any{"commitUrl": s.Hub.URL + "/datasets/" + s.opts.Repo + "/commit/" + commit, "commitOid": commit, "pullRequestUrl": nil})
}

// Tamper replaces the content of file p in commit (a stand-in for storage
// that corrupts data), for tests of the client's verification.
func (s *Server) Tamper(commit, p string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.commits[commit] {
		if f.Path == p {
			s.commits[commit][i].Data = data
		}
	}
}
