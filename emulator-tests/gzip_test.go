package emulatortests

import (
	"bytes"
	"compress/gzip"
	"testing"
)

func gzipBytes(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
