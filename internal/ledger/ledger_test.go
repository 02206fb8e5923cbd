package ledger

import (
	"strings"
	"testing"
)

func TestBoundBadRows(t *testing.T) {
	long := strings.Repeat("é", MaxBadRowError) // 2 bytes each: the cut falls inside one
	tests := []struct {
		name     string
		n        int
		more     int64
		wantN    int
		wantMore int64
	}{
		{"none", 0, 0, 0, 0},
		{"under the bound", 3, 0, 3, 0},
		{"at the bound", MaxBadRows, 0, MaxBadRows, 0},
		{"over the bound", MaxBadRows + 5, 2, MaxBadRows, 7},
	}
	for _, tt := range tests {
		s := Shard{BadRowsMore: tt.more}
		for range tt.n {
			s.BadRows = append(s.BadRows, BadRow{EntryID: "e", Error: long})
		}
		s.BoundBadRows()
		if len(s.BadRows) != tt.wantN || s.BadRowsMore != tt.wantMore {
			t.Errorf("%s: %d rows + %d more, want %d + %d", tt.name, len(s.BadRows), s.BadRowsMore, tt.wantN, tt.wantMore)
		}
		for _, b := range s.BadRows {
			if len(b.Error) > MaxBadRowError+3 || !strings.HasSuffix(b.Error, "...") || !strings.HasPrefix(b.Error, "éé") || strings.ContainsRune(b.Error, '\uFFFD') {
				t.Errorf("%s: error not cut to %d bytes as valid UTF-8: %d bytes", tt.name, MaxBadRowError, len(b.Error))
				break
			}
		}
	}
}
