package blob

import "testing"

func TestScheme(t *testing.T) {
	tests := []struct {
		uri, want string
		local     bool
	}{
		{"gs://b/o", "gs", false},
		{"GS://b/o", "gs", false},
		{"hf://datasets/o/n/f.parquet", "hf", false},
		{"file:///tmp/x", "file", true},
		{"s3+x.y-z://b", "s3+x.y-z", false},
		{"/tmp/x.parquet", "", true},
		{"data/x.parquet", "", true},
		{"data/gs://x", "", true},
		{"generated:7", "", true},
		{"://x", "", true},
		{"1a://x", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		if got := Scheme(tt.uri); got != tt.want {
			t.Errorf("Scheme(%q) = %q, want %q", tt.uri, got, tt.want)
		}
		if got := IsLocal(tt.uri); got != tt.local {
			t.Errorf("IsLocal(%q) = %v, want %v", tt.uri, got, tt.local)
		}
	}
}
