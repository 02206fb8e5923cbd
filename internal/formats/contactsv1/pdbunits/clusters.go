package pdbunits

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Clusters is an RCSB clusters-by-entity-40.txt table: "<PDBID>_<entity>"
// (upper case) to its cluster id, the 0-based line number (exp222's
// load_clusters). The zero value is an empty table: every look-up is -1.
type Clusters struct {
	ids map[string]int64
}

// ReadClusters reads a cluster file: one cluster per line, members
// separated by white space. As Python's text-mode iteration, a line ends
// at "\n", "\r\n" or "\r", and every line counts, empty ones included; a
// member listed twice takes its last line, as the dict exp222 fills. name
// is the file's name for errors (invalid UTF-8 names the line).
func ReadClusters(r io.Reader, name string) (*Clusters, error) {
	c := &Clusters{ids: make(map[string]int64)}
	br := bufio.NewReaderSize(r, 1<<16)
	var line []byte
	for n := int64(0); ; n++ {
		var err error
		line, err = readLine(br, line[:0])
		if len(line) == 0 && err == io.EOF {
			return c, nil
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("clusters %s line %d: %w", name, n+1, err)
		}
		if !utf8.Valid(line) {
			return nil, fmt.Errorf("clusters %s line %d: not UTF-8", name, n+1)
		}
		for _, m := range strings.Fields(string(line)) {
			c.ids[strings.ToUpper(m)] = n
		}
		if err == io.EOF {
			return c, nil
		}
	}
}

// readLine appends the next line (without its terminator) to buf; it
// returns io.EOF with the last line when the input ends without one.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return buf, err
		}
		switch b {
		case '\n':
			return buf, nil
		case '\r':
			if nx, err := br.Peek(1); err == nil && nx[0] == '\n' {
				_, _ = br.ReadByte()
			}
			return buf, nil
		}
		buf = append(buf, b)
	}
}

// ReadClustersFile reads a cluster file from disk.
func ReadClustersFile(path string) (*Clusters, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("clusters: %w", err)
	}
	return ReadClusters(bytes.NewReader(data), path)
}

// Len is the number of members.
func (c *Clusters) Len() int {
	if c == nil {
		return 0
	}
	return len(c.ids)
}

// ID is exp222's _cluster_id: the cluster of "<upper(pdbID)>_<entityID>"
// (the entity id as it is: exp222 upper-cases the file's members and the
// PDB id, not the entity id), -1 when the table does not list it.
func (c *Clusters) ID(pdbID, entityID string) int64 {
	if c == nil {
		return -1
	}
	if id, ok := c.ids[strings.ToUpper(pdbID)+"_"+entityID]; ok {
		return id
	}
	return -1
}

// sharedClusters holds the cluster files read by this process, by URI.
var sharedClusters struct {
	sync.Mutex
	tables map[string]*clusterLoad
}

type clusterLoad struct {
	sync.Mutex
	done bool
	c    *Clusters
	err  error
}

// SharedClusters is the cluster file a run option names (clusters=): a
// local path, or a URI (gs://, file://) read through store; read once per
// process, as the rotamer library is. A permanent failure (no such file,
// not UTF-8) is kept; a transient one is retried by the next call. Errors
// wrap derrors.ErrPermanent or ErrTransient as the store's do.
func SharedClusters(ctx context.Context, store blob.Store, uri string) (*Clusters, error) {
	sharedClusters.Lock()
	if sharedClusters.tables == nil {
		sharedClusters.tables = map[string]*clusterLoad{}
	}
	l := sharedClusters.tables[uri]
	if l == nil {
		l = &clusterLoad{}
		sharedClusters.tables[uri] = l
	}
	sharedClusters.Unlock()
	l.Lock()
	defer l.Unlock()
	if l.done {
		return l.c, l.err
	}
	var data []byte
	var err error
	if blob.Scheme(uri) == "" {
		data, err = os.ReadFile(uri)
		if err != nil {
			err = derrors.Permanent(err)
		}
	} else if store == nil {
		err = derrors.Permanent(fmt.Errorf("%s is a URI, and no store was given to read it", uri))
	} else {
		data, err = store.ReadAll(ctx, uri)
	}
	if err == nil {
		var c *Clusters
		if c, err = ReadClusters(bytes.NewReader(data), uri); err == nil {
			l.done, l.c = true, c
			return c, nil
		}
		err = derrors.Permanent(err)
	}
	if errors.Is(err, derrors.ErrPermanent) || errors.Is(err, derrors.ErrNotFound) {
		l.done, l.err = true, derrors.Permanent(fmt.Errorf("clusters %s: %w", uri, err))
		return nil, l.err
	}
	return nil, fmt.Errorf("clusters %s: %w", uri, err)
}
