package blob

import "strings"

// Scheme returns the scheme of uri, lower-cased: "gs" for gs://b/o,
// "file" for file:///x, "hf" for hf://datasets/o/n; "" for a path (a
// name with no "SCHEME://" before its first slash, such as data/x.parquet
// or generated:7). Stores are chosen by it (package internal/blobmux).
func Scheme(uri string) string {
	i := strings.Index(uri, "://")
	if i <= 0 {
		return ""
	}
	s := uri[:i]
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return "" // RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
		}
	}
	return strings.ToLower(s)
}

// IsLocal reports whether uri names a file of this machine: a path or a
// file:// URI. Everything else (gs://, hf://, any other scheme) is a remote
// location, reached only through a store registered for its scheme.
func IsLocal(uri string) bool {
	s := Scheme(uri)
	return s == "" || s == "file"
}
