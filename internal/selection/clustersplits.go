package selection

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// maxClusterExamples bounds the clusters across splits that Stats names.
const maxClusterExamples = 5

// ClusterSplits is a struct_cluster_id whose selected rows are in more
// than one split, with the rows per split.
type ClusterSplits struct {
	Cluster string           `json:"struct_cluster_id"`
	Splits  map[string]int64 `json:"splits"`
}

// checkClusterSplits counts the structural clusters whose selected rows
// fall in more than one split (similar structures in training and
// evaluation: the leak duplicate entry ids across splits are), names up to
// maxClusterExamples of them in st, and adds a warning to st.Warnings.
func checkClusterSplits(ctx context.Context, db *sql.DB, st *Stats) error {
	q := fmt.Sprintf(`WITH c AS (
  SELECT CAST(struct_cluster_id AS VARCHAR) AS cl, split, count(*) AS n FROM selected GROUP BY ALL),
leaks AS (SELECT cl FROM c GROUP BY cl HAVING count(*) > 1),
ex AS (SELECT cl FROM leaks ORDER BY cl LIMIT %d)
SELECT (SELECT count(*) FROM leaks), c.cl, c.split, c.n FROM c JOIN ex ON ex.cl = c.cl ORDER BY c.cl, c.split`, maxClusterExamples)
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("checking struct_cluster_id across splits: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var cl, split string
		var n int64
		if err := rows.Scan(&st.ClustersAcrossSplits, &cl, &split, &n); err != nil {
			return fmt.Errorf("checking struct_cluster_id across splits: %w", err)
		}
		if k := len(st.ClusterSplitExamples); k == 0 || st.ClusterSplitExamples[k-1].Cluster != cl {
			st.ClusterSplitExamples = append(st.ClusterSplitExamples, ClusterSplits{Cluster: cl, Splits: map[string]int64{}})
		}
		st.ClusterSplitExamples[len(st.ClusterSplitExamples)-1].Splits[split] = n
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("checking struct_cluster_id across splits: %w", err)
	}
	if st.ClustersAcrossSplits == 0 {
		return nil
	}
	var ex []string
	for _, e := range st.ClusterSplitExamples {
		var parts []string
		for _, s := range slices.Sorted(maps.Keys(e.Splits)) {
			parts = append(parts, fmt.Sprintf("%s %d", s, e.Splits[s]))
		}
		ex = append(ex, fmt.Sprintf("%q (%s)", e.Cluster, strings.Join(parts, ", ")))
	}
	more := ""
	if n := st.ClustersAcrossSplits - int64(len(ex)); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	st.Warnings = append(st.Warnings, fmt.Sprintf("%d struct_cluster_id(s) have selected rows in more than one split: "+
		"similar structures in training and evaluation, the leak a duplicate entry_id across splits is; e.g. %s%s. "+
		"Assign splits by cluster in the manifest to avoid it", st.ClustersAcrossSplits, strings.Join(ex, "; "), more))
	return nil
}
