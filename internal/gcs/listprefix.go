package gcs

import (
	"context"
	"sort"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// ListPrefix returns the gs:// URIs of every object whose name starts with
// the object part of prefix (gs://BUCKET/PREFIX, at any depth below it:
// the recursive listing that List's one-element globs cannot express),
// sorted. Read-only and safe to retry; errors are translated as List's.
func (s *Store) ListPrefix(ctx context.Context, prefix string) (_ []string, err error) {
	defer derrors.Wrap(&err, "gcs.ListPrefix(%s)", prefix)
	b, o, err := ParseURI(prefix+"x", s.opts.AllowedBuckets) // the object part may be empty
	if err != nil {
		return nil, err
	}
	o = o[:len(o)-1]
	q := &storage.Query{Prefix: o, Projection: storage.ProjectionNoACL}
	if err := q.SetAttrSelection([]string{"Name"}); err != nil {
		return nil, err
	}
	it := s.bucket(b).Objects(ctx, q)
	var out []string
	for {
		attrs, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, translate(err)
		}
		out = append(out, URI(b, attrs.Name))
	}
	sort.Strings(out)
	return out, nil
}
