package selection

import (
	"testing"
)

// With AllowDuplicateIDs, a manifest whose copies sit in two clusters is
// selected with both copies (the user's choice, made explicit).
func TestSelectAllowDuplicateIDs(t *testing.T) {
	rows := append(cluster("A", "train", 3), cluster("B", "val", 3)...)
	rows[3].entry = "A0" // B's best row has A's best row's id
	if _, _, err := run1(t, rows, nil); err == nil {
		t.Fatal("Select accepted a duplicate entry_id without AllowDuplicateIDs")
	}
	st, out, err := run1(t, rows, func(o *Options) { o.AllowDuplicateIDs = true })
	if err != nil {
		t.Fatalf("Select with AllowDuplicateIDs: %v", err)
	}
	n := 0
	for _, r := range out {
		if r.entry == "A0" {
			n++
		}
	}
	if n != 2 || st.RowsSelected != 6 {
		t.Errorf("selected %d rows, A0 %d times; want 6 rows, A0 twice", st.RowsSelected, n)
	}
}
