package selection

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// ErrDuplicateID is wrapped by Select when two input rows share an entry_id
// and Options.AllowDuplicateIDs is false: the same structure could be
// selected twice, into two splits (a train/validation leak).
var ErrDuplicateID = errors.New("duplicate entry_id")

// checkDuplicateIDs reads the entry_id column of every input (with the file
// and row of each value) and returns an error naming the first two places
// of up to 5 duplicate ids (in entry_id order) and how many ids repeat.
// srcRows is the FROM clause of Select's row-numbered read (s: the rows,
// f: the files table).
func checkDuplicateIDs(ctx context.Context, db *sql.DB, srcRows string) error {
	q := fmt.Sprintf(`SELECT s.entry_id,
  array_to_string((list(f.name || ' row ' || s.file_row_number ORDER BY f.idx, s.file_row_number))[1:2], ' and '),
  count(*), count(*) OVER ()
FROM %s
WHERE s.entry_id IS NOT NULL
GROUP BY s.entry_id HAVING count(*) > 1
ORDER BY s.entry_id LIMIT 5`, srcRows)
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("checking entry_id for duplicates: %w", err)
	}
	defer rows.Close()
	var msg string
	var total int64
	for rows.Next() {
		var id, places string
		var n int64
		if err := rows.Scan(&id, &places, &n, &total); err != nil {
			return fmt.Errorf("checking entry_id for duplicates: %w", err)
		}
		more := ""
		if n > 2 {
			more = fmt.Sprintf(" (%d copies)", n)
		}
		msg += fmt.Sprintf("\n  entry_id %q: %s%s", id, places, more)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("checking entry_id for duplicates: %w", err)
	}
	if total == 0 {
		return nil
	}
	if total > 5 {
		msg += fmt.Sprintf("\n  and %d more", total-5)
	}
	return derrors.Permanent(fmt.Errorf("%w: %d entry_id(s) appear in more than one manifest row; the same structure could be selected twice, into two splits:%s\nremove the duplicate rows, or pass --allow-duplicate-ids to keep every copy",
		ErrDuplicateID, total, msg))
}
