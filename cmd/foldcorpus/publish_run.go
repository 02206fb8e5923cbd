package main

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/datacard"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// runShards is what publish takes from a run folder: the shard files to
// publish and the shards that are not done.
type runShards struct {
	files   []string          // URIs of the done shards' files, by shard index
	sha256  map[string]string // file URI -> sha256 (hex) the ledger recorded
	pending []string          // "shard 00003 (failed: entry X: error)", "shard 00007 (missing)"
	total   int
}

var shardName = regexp.MustCompile(`-(\d{5,})-of-(\d{5,})\.parquet$`)

// collectShards lists the run's shard files in out and checks them against
// the ledger (run and shards, when known): a shard is publishable when the
// ledger says done and its file is there. Without a ledger (a gs:// output
// without --firestore-project) the files' names say which shards exist:
// PREFIX-SSSSS-of-TTTTT.parquet, every index below TTTTT expected once.
func collectShards(ctx context.Context, store blob.Store, out string, run *ledger.Run, shards []ledger.Shard) (*runShards, error) {
	uris, err := store.List(ctx, strings.TrimRight(out, "/")+"/*.parquet")
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", out, err)
	}
	byBase := map[string]string{}
	for _, u := range uris {
		byBase[path.Base(u)] = u
	}
	rs := &runShards{sha256: map[string]string{}}
	if run != nil {
		rs.total = run.Shards
		recs := map[int]ledger.Shard{}
		for _, s := range shards {
			recs[s.Index] = s
		}
		for i := 0; i < run.Shards; i++ {
			s, ok := recs[i]
			switch {
			case !ok:
				rs.pending = append(rs.pending, fmt.Sprintf("shard %05d (missing: no ledger record)", i))
			case s.Status == ledger.Done:
				if u, ok := byBase[path.Base(s.Output)]; ok && s.Output != "" {
					rs.files = append(rs.files, u)
					rs.sha256[u] = s.SHA256
				} else {
					rs.pending = append(rs.pending, fmt.Sprintf("shard %05d (done in the ledger, but its file %s is not in %s)", i, path.Base(s.Output), out))
				}
			case s.Status == ledger.Failed || s.Status == ledger.DeadLettered:
				msg := s.Error
				if s.EntryID != "" {
					msg = "entry " + s.EntryID + ": " + msg
				}
				rs.pending = append(rs.pending, fmt.Sprintf("shard %05d (%s: %s)", i, s.Status, msg))
			default:
				rs.pending = append(rs.pending, fmt.Sprintf("shard %05d (missing: %s)", i, s.Status))
			}
		}
		return rs, nil
	}
	seen := map[int]string{}
	for _, u := range uris {
		m := shardName.FindStringSubmatch(u)
		if m == nil {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		t, _ := strconv.Atoi(m[2])
		if rs.total != 0 && t != rs.total {
			return nil, derrors.Permanent(fmt.Errorf("%s holds shard files of runs with %d and %d shards (%s): publish one run's folder", out, rs.total, t, path.Base(u)))
		}
		if prev, dup := seen[i]; dup {
			return nil, derrors.Permanent(fmt.Errorf("%s holds two files for shard %05d (%s, %s)", out, i, path.Base(prev), path.Base(u)))
		}
		rs.total, seen[i] = t, u
	}
	if rs.total == 0 {
		return nil, derrors.Permanent(fmt.Errorf("%s holds no shard files (PREFIX-SSSSS-of-TTTTT.parquet) and no ledger", out))
	}
	for i := 0; i < rs.total; i++ {
		if u, ok := seen[i]; ok {
			rs.files = append(rs.files, u)
		} else {
			rs.pending = append(rs.pending, fmt.Sprintf("shard %05d (missing: no file)", i))
		}
	}
	return rs, nil
}

// manifestLock finds the lock file fetch-manifest wrote beside the run's
// manifest (in the manifest's folder or up to two folders above it).
func manifestLock(ctx context.Context, store blob.Store, manifest string) *datacard.Manifest {
	if manifest == "" || blob.Scheme(manifest) == "hf" {
		return nil
	}
	dir := path.Dir(manifest)
	for i := 0; i < 3 && dir != "." && dir != "/" && dir != ""; i++ {
		name := strings.TrimRight(dir, "/") + "/" + hf.LockName
		if data, err := store.ReadAll(ctx, name); err == nil {
			if l, err := hf.DecodeLock(data, name); err == nil {
				return &datacard.Manifest{Repo: l.Repo, Requested: l.RequestedRevision, Commit: l.Revision, Path: l.Path, LockFile: hf.LockName}
			}
		}
		dir = path.Dir(dir)
	}
	return nil
}

// listPending returns up to n of the pending shards, and how many more.
func listPending(p []string, n int) string {
	s := strings.Join(p[:min(len(p), n)], "; ")
	if len(p) > n {
		s += fmt.Sprintf("; and %d more", len(p)-n)
	}
	return s
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
