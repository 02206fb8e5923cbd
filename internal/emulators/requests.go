package emulators

import (
	"net/http"
	"net/url"
	"strings"
)

// GCSRequest describes one request a storage client sent to fake-gcs-server
// (or GCS): the bucket it touches and the project it bills, if any.
type GCSRequest struct {
	Method, Path string
	Bucket       string
	// UserProject is the userProject query parameter of the JSON API, or
	// the X-Goog-User-Project header of XML API reads.
	UserProject string
}

// ParseGCSRequest reads the bucket and userProject of r: JSON API paths
// /storage/v1/b/BUCKET/..., /upload/storage/v1/b/BUCKET/...,
// /download/storage/v1/b/BUCKET/...; XML API reads /BUCKET/OBJECT.
func ParseGCSRequest(r *http.Request) GCSRequest {
	p, err := url.PathUnescape(r.URL.EscapedPath())
	if err != nil {
		p = r.URL.Path
	}
	g := GCSRequest{Method: r.Method, Path: p, UserProject: r.URL.Query().Get("userProject")}
	if g.UserProject == "" {
		g.UserProject = r.Header.Get("X-Goog-User-Project")
	}
	rest := strings.TrimPrefix(p, "/")
	for _, api := range []string{"storage/v1/b/", "upload/storage/v1/b/", "download/storage/v1/b/"} {
		if after, ok := strings.CutPrefix(rest, api); ok {
			g.Bucket, _, _ = strings.Cut(after, "/")
			return g
		}
	}
	g.Bucket, _, _ = strings.Cut(rest, "/")
	return g
}
