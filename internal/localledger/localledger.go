// Package localledger implements ledger.Ledger as an append-only JSON-lines
// log in one file (by default _ledger.jsonl in the output folder). Every
// change appends one complete record and fsyncs it, so kill -9 at any moment
// loses at most the change in flight: a torn last line is ignored (and cut
// off) when the file is opened again.
//
// One process at a time: Open takes an exclusive lock on the file (flock) for
// the life of the Ledger, so a second run on the same folder fails clearly
// instead of racing. Because of that lock, a shard found "running" at Open
// was left by a process that died; its lease counts as expired.
// Within the process, methods are safe for concurrent use.
package localledger

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// FileName is the ledger file's name inside an output folder.
const FileName = "_ledger.jsonl"

// ErrLocked is returned by Open when another process holds the ledger.
var ErrLocked = errors.New("ledger is in use by another process")

type entry struct {
	Run   *ledger.Run   `json:"run,omitempty"`
	Shard *ledger.Shard `json:"shard,omitempty"`
}

type key struct {
	run   string
	shard int
}

// Ledger is the file-backed ledger.
type Ledger struct {
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu     sync.Mutex
	f      *os.File
	runs   map[string]ledger.Run
	shards map[key]ledger.Shard
}

var _ ledger.Ledger = (*Ledger)(nil)

// Open opens (creating if needed) the ledger file at path, locks it and
// replays it. It fails with ErrLocked if another process has it open.
func Open(path string) (_ *Ledger, err error) {
	defer derrors.Wrap(&err, "localledger.Open(%s)", path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %w", ErrLocked, err)
	}
	l := &Ledger{f: f, runs: map[string]ledger.Run{}, shards: map[key]ledger.Shard{}}
	if err := l.replay(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

func (l *Ledger) replay() error {
	data, err := os.ReadFile(l.f.Name())
	if err != nil {
		return err
	}
	good := 0 // bytes of complete, valid lines
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		if good+len(line) >= len(data) { // no newline after it: torn write
			break
		}
		var e entry
		if err := json.Unmarshal(line, &e); err != nil {
			if good+len(line)+1 == len(data) {
				break // torn last line
			}
			return derrors.Permanent(fmt.Errorf("corrupt ledger line at byte %d: %w", good, err))
		}
		l.apply(e)
		good += len(line) + 1
	}
	if good < len(data) {
		if err := l.f.Truncate(int64(good)); err != nil {
			return err
		}
	}
	if _, err := l.f.Seek(int64(good), 0); err != nil {
		return err
	}
	// Running claims were made by a process that no longer holds the lock.
	for k, s := range l.shards {
		if s.Status == ledger.Running {
			s.Lease = time.Time{}
			l.shards[k] = s
		}
	}
	return nil
}

func (l *Ledger) apply(e entry) {
	if e.Run != nil {
		l.runs[e.Run.ID] = *e.Run
	}
	if e.Shard != nil {
		l.shards[key{e.Shard.RunID, e.Shard.Index}] = *e.Shard
	}
}

// append writes e durably, then applies it. Caller holds mu.
func (l *Ledger) append(e entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if _, err := l.f.Write(line); err != nil {
		return derrors.Transient(err)
	}
	if err := l.f.Sync(); err != nil {
		return derrors.Transient(err)
	}
	l.apply(e)
	return nil
}

func (l *Ledger) now() time.Time {
	if l.Now != nil {
		return l.Now().UTC()
	}
	return time.Now().UTC()
}

// Close releases the lock and closes the file.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// CreateRun records the run and a pending record for each shard that has
// none. Idempotent. A different run already recorded under the same id is
// left as it is.
func (l *Ledger) CreateRun(ctx context.Context, run ledger.Run) (err error) {
	defer derrors.Wrap(&err, "localledger.CreateRun(%s)", run.ID)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.runs[run.ID]; !ok {
		if run.Created.IsZero() {
			run.Created = l.now()
		}
		if err := l.append(entry{Run: &run}); err != nil {
			return err
		}
	}
	for i := 0; i < run.Shards; i++ {
		if _, ok := l.shards[key{run.ID, i}]; ok {
			continue
		}
		s := ledger.Shard{RunID: run.ID, Index: i, Status: ledger.Pending}
		if err := l.append(entry{Shard: &s}); err != nil {
			return err
		}
	}
	return nil
}

// GetRun returns the run or an error wrapping derrors.ErrNotFound.
func (l *Ledger) GetRun(ctx context.Context, runID string) (ledger.Run, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.runs[runID]
	if !ok {
		return r, fmt.Errorf("localledger.GetRun(%s): %w", runID, derrors.ErrNotFound)
	}
	return r, nil
}

// Runs returns every recorded run, oldest first.
func (l *Ledger) Runs() []ledger.Run {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]ledger.Run, 0, len(l.runs))
	for _, r := range l.runs {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// Claim marks the shard running (see ledger.Ledger). Done shards give
// derrors.ErrAlreadyDone; a live lease gives derrors.ErrTransient.
func (l *Ledger) Claim(ctx context.Context, runID string, shard int, lease time.Duration) (_ ledger.Shard, err error) {
	defer derrors.Wrap(&err, "localledger.Claim(%s, %d)", runID, shard)
	l.mu.Lock()
	defer l.mu.Unlock()
	s, err := l.shard(runID, shard)
	if err != nil {
		return s, err
	}
	if s, err = ledger.ClaimShard(s, l.now(), lease); err != nil {
		return s, err
	}
	if err := l.append(entry{Shard: &s}); err != nil {
		return s, err
	}
	return s, nil
}

// Complete marks the shard done. Idempotent: a shard already done keeps its
// first completion.
func (l *Ledger) Complete(ctx context.Context, s ledger.Shard) (err error) {
	defer derrors.Wrap(&err, "localledger.Complete(%s, %d)", s.RunID, s.Index)
	l.mu.Lock()
	defer l.mu.Unlock()
	old, err := l.shard(s.RunID, s.Index)
	if err != nil {
		return err
	}
	s, write := ledger.CompleteShard(s, old, l.now())
	if !write {
		return nil
	}
	return l.append(entry{Shard: &s})
}

// Fail records the shard as failed (or dead-lettered when s.Status says so)
// with s.EntryID, s.Error and s.BadRows (bounded). A done shard stays done.
func (l *Ledger) Fail(ctx context.Context, s ledger.Shard) (err error) {
	defer derrors.Wrap(&err, "localledger.Fail(%s, %d)", s.RunID, s.Index)
	l.mu.Lock()
	defer l.mu.Unlock()
	old, err := l.shard(s.RunID, s.Index)
	if err != nil {
		return err
	}
	if s, err = ledger.FailShard(s, old, l.now()); err != nil {
		return err
	}
	return l.append(entry{Shard: &s})
}

// shard returns the recorded shard, or derrors.ErrNotFound. l.mu is held.
func (l *Ledger) shard(runID string, index int) (ledger.Shard, error) {
	s, ok := l.shards[key{runID, index}]
	if !ok {
		return s, derrors.ErrNotFound
	}
	return s, nil
}

// Release puts a running shard back to pending after a transient failure
// (see ledger.Ledger): lease cleared, attempts kept, s.Error recorded as
// LastError. A shard not running under the caller's claim (s.Attempts) is
// left as it is.
func (l *Ledger) Release(ctx context.Context, s ledger.Shard) (err error) {
	defer derrors.Wrap(&err, "localledger.Release(%s, %d)", s.RunID, s.Index)
	l.mu.Lock()
	defer l.mu.Unlock()
	old, err := l.shard(s.RunID, s.Index)
	if err != nil {
		return err
	}
	next, write := ledger.ReleaseShard(s, old)
	if !write {
		return nil
	}
	return l.append(entry{Shard: &next})
}

// Shards returns the run's shard records ordered by index.
func (l *Ledger) Shards(ctx context.Context, runID string) ([]ledger.Shard, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []ledger.Shard
	for k, s := range l.shards {
		if k.run == runID {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// Snapshot reads the ledger at path without locking or changing it (for
// status while a run may be writing): every run, and every run's shards by
// index. A torn last line is ignored.
func Snapshot(path string) (runs []ledger.Run, shards map[string][]ledger.Shard, err error) {
	defer derrors.Wrap(&err, "localledger.Snapshot(%s)", path)
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%w: no ledger (is this a run's output folder?)", derrors.ErrNotFound)
		}
		return nil, nil, err
	}
	l := &Ledger{runs: map[string]ledger.Run{}, shards: map[key]ledger.Shard{}}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn last line
		}
		var e entry
		if err := json.Unmarshal(data[:i], &e); err != nil {
			return nil, nil, derrors.Permanent(fmt.Errorf("corrupt ledger line: %w", err))
		}
		l.apply(e)
		data = data[i+1:]
	}
	runs = l.Runs()
	shards = map[string][]ledger.Shard{}
	for _, r := range runs {
		shards[r.ID], _ = l.Shards(context.Background(), r.ID)
	}
	return runs, shards, nil
}
