package cropsv1

// cellIndex lists the atoms of each true cell (the box of an atom's placed
// coordinates) in increasing atom order, over the dense block of boxes
// between the smallest and the largest true cell on each axis: a counting
// sort of the atoms by box, stable, so that each box's atoms keep their
// order. A box outside the block holds no atom.
type cellIndex struct {
	lo, n [3]int  // the block's first box and its size on each axis
	start []int32 // box (block index) -> its first position in order; one more entry at the end
	order []int32 // the atoms, by box
	idx   []int32 // atom -> its box's block index
}

// build indexes the atoms placed at coords, setting trueCell[i] to atom
// i's box key (boxKey).
func (c *cellIndex) build(coords [][3]float64, trueCell []int32) {
	m := len(coords)
	c.order, c.idx = grow(c.order, m), grow(c.idx, m)
	// each atom's box, packed in idx as x<<16 | y<<8 | z (each < 100)
	var lo, hi [3]int
	if kernelOK && useKernel {
		lo, hi = cellsC(coords, trueCell, c.idx)
	} else {
		lo, hi = cells(coords, trueCell, c.idx)
	}
	for j := range 3 {
		c.lo[j], c.n[j] = lo[j], hi[j]-lo[j]+1
	}
	if m == 0 {
		c.lo, c.n = [3]int{}, [3]int{}
	}
	size := c.n[0] * c.n[1] * c.n[2] // at most grid^3
	c.start = grow(c.start, size+1)
	clear(c.start)
	// index(b) = b0*n1*n2 + b1*n2 + b2 - base
	n12, n2 := c.n[1]*c.n[2], c.n[2]
	base := c.lo[0]*n12 + c.lo[1]*n2 + c.lo[2]
	if kernelOK && useKernel {
		sortC(c.idx, n12, n2, base, c.start, c.order)
		return
	}
	for i, v := range c.idx {
		b := int32(int(v>>16)*n12 + int(v>>8&0xff)*n2 + int(v&0xff) - base)
		c.idx[i] = b
		c.start[b+1]++
	}
	for i := range size {
		c.start[i+1] += c.start[i]
	}
	// place each atom at its box's next free slot (start[b] counts up,
	// then is restored from its neighbour's end)
	for i, b := range c.idx {
		c.order[c.start[b]] = int32(i)
		c.start[b]++
	}
	for b := size; b > 0; b-- {
		c.start[b] = c.start[b-1]
	}
	c.start[0] = 0
}

// cells sets trueCell[i] to atom i's box key and idx[i] to its box packed
// as x<<16 | y<<8 | z, and returns the smallest and largest box on each
// axis (grid and 0 when there are no atoms).
func cells(coords [][3]float64, trueCell, idx []int32) (lo, hi [3]int) {
	lo = [3]int{grid, grid, grid}
	for i, p := range coords {
		b := [3]int{cell(p[0]), cell(p[1]), cell(p[2])}
		trueCell[i] = boxKey(b)
		idx[i] = int32(b[0]<<16 | b[1]<<8 | b[2])
		for j := range 3 {
			lo[j], hi[j] = min(lo[j], b[j]), max(hi[j], b[j])
		}
	}
	return lo, hi
}

// atoms are the atoms whose true cell is box b, in increasing order.
func (c *cellIndex) atoms(b [3]int) []int32 {
	x, y, z := b[0]-c.lo[0], b[1]-c.lo[1], b[2]-c.lo[2]
	if uint(x) >= uint(c.n[0]) || uint(y) >= uint(c.n[1]) || uint(z) >= uint(c.n[2]) {
		return nil
	}
	i := (x*c.n[1]+y)*c.n[2] + z
	return c.order[c.start[i]:c.start[i+1]]
}

// nearSize is the number of boxes in the block widened by one box on
// every side: the true cells and all their neighbours.
func (c *cellIndex) nearSize() int { return (c.n[0] + 2) * (c.n[1] + 2) * (c.n[2] + 2) }

// near is box b's index in the widened block; b must lie in it (a true
// cell or a neighbour of one).
func (c *cellIndex) near(b [3]int) int {
	x, y, z := b[0]-c.lo[0]+1, b[1]-c.lo[1]+1, b[2]-c.lo[2]+1
	return (x*(c.n[1]+2)+y)*(c.n[2]+2) + z
}
