package manifest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// parquetMagic starts and ends every parquet file.
const parquetMagic = "PAR1"

// notParquet is the permanent error for a manifest that parquet cannot
// read: it names the file (Describe drops the operation names that carry
// the URI elsewhere) and says what the file looks like.
func notParquet(uri string, obj blob.Object, cause error) error {
	what, hint := sniff(obj)
	msg := fmt.Sprintf("manifest %s is not a readable parquet file", uri)
	if what != "" {
		msg += ": it " + what
	}
	if hint != "" {
		msg += "; " + hint
	}
	return derrors.Permanent(fmt.Errorf("%s (%w)", msg, cause))
}

// sniff says what the object looks like, from its first bytes and its last
// four, and how to get a manifest from it when it is a structure file.
func sniff(obj blob.Object) (what, hint string) {
	size := obj.Size()
	if size == 0 {
		return "is an empty file", ""
	}
	head := make([]byte, min(size, 1024))
	if n, err := obj.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return "", ""
	} else {
		head = head[:n]
	}
	if bytes.HasPrefix(head, []byte(parquetMagic)) {
		tail := make([]byte, 4)
		if size >= 8 {
			if _, err := obj.ReadAt(tail, size-4); err == nil && string(tail) == parquetMagic {
				return "starts and ends like parquet but its footer is unreadable", ""
			}
		}
		return fmt.Sprintf("starts like parquet but does not end with a parquet footer: cut short? (%d bytes)", size), ""
	}
	kind := textKind(head)
	if bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		inner := "data"
		if zr, err := gzip.NewReader(bytes.NewReader(head)); err == nil {
			buf := make([]byte, 1024)
			n, _ := io.ReadFull(zr, buf)
			if k := textKind(buf[:n]); k != "" {
				inner = k
			}
		}
		kind = "gzip-compressed " + inner
	}
	if kind == "" {
		return "", ""
	}
	what = "looks like " + kind + ", not parquet"
	if strings.Contains(kind, "mmCIF") || strings.Contains(kind, "PDB format") {
		hint = "--manifest takes parquet manifests; did you mean to list structure files as one first: foldcorpus manifest 'DIR/*.cif' --out m.parquet ?"
	}
	return what, hint
}

// textKind names the text format head starts with, or "" when it is not
// text the pipeline knows.
func textKind(head []byte) string {
	if len(head) == 0 || bytes.IndexByte(head, 0) >= 0 {
		return ""
	}
	lines := strings.Split(string(head), "\n")
	first := ""
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			first = l
			break
		}
	}
	for _, rec := range []string{"HEADER", "ATOM  ", "HETATM", "REMARK", "CRYST1", "TITLE ", "COMPND", "MODEL ", "EXPDTA", "SEQRES"} {
		if strings.HasPrefix(strings.TrimRight(lines[0], "\r")+"      ", rec) {
			return "PDB format"
		}
	}
	switch {
	case strings.HasPrefix(first, "data_"):
		return "mmCIF"
	case strings.HasPrefix(first, "{") || strings.HasPrefix(first, "["):
		return "JSON"
	case strings.Contains(first, ","):
		return "CSV"
	case strings.Contains(first, "\t"):
		return "TSV"
	case first != "":
		return "text"
	}
	return ""
}
