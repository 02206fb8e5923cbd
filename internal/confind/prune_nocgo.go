//go:build !cgo

package confind

// prune is pruneGo in this build (no cgo).
func prune(pl *placement, t *template, n int, i int32, ala bool, pr *pruner) {
	pruneGo(pl, t, n, i, ala, pr)
}
