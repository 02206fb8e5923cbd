package report

import (
	"context"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// FullRead is the baseline the report's projection is measured against: it
// reads every column of every output file under dir, as a reader without
// column projection would, and returns the bytes read and rows seen.
// Read-only; an unreadable file fails it with an error naming the file.
func FullRead(ctx context.Context, store blob.Store, dir string) (bytesRead, rows int64, err error) {
	defer derrors.Wrap(&err, "report.FullRead(%s)", dir)
	uris, err := store.List(ctx, strings.TrimSuffix(dir, "/")+"/*.parquet")
	if err != nil {
		return 0, 0, err
	}
	for _, u := range uris {
		obj, err := store.Open(ctx, u)
		if err != nil {
			return bytesRead, rows, err
		}
		pf, err := file.NewParquetReader(io.NewSectionReader(obj, 0, obj.Size()))
		if err == nil {
			var fr *pqarrow.FileReader
			fr, err = pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
			if err == nil {
				tbl, terr := fr.ReadTable(ctx)
				if terr == nil {
					rows += tbl.NumRows()
					tbl.Release()
				}
				err = terr
			}
		}
		bytesRead += obj.BytesRead()
		obj.Close()
		if err != nil {
			return bytesRead, rows, derrors.Permanent(err)
		}
	}
	return bytesRead, rows, nil
}
