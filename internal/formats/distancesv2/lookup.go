package distancesv2

// Atom and residue names are looked up in perfect hash tables built from
// atomVocab and aminoAcids: one multiply and one compare, no branch on the
// name (TestLookups checks them against the lists).

// nameTable maps names of 1 to 3 bytes to their index in a list.
type nameTable struct {
	mul   uint32
	keys  [128]uint32 // nameKey of the name in each slot, noKey when empty
	codes [128]uint8
}

const noKey = 1<<32 - 1

// nameKey packs a name of 1 to 3 bytes into a distinct uint32: its length
// and the bytes at 0, n-1-(n-1)/2 and n-1 (all of them, some repeated),
// without a branch on the length. Other names have key 0, which no table
// holds.
func nameKey(s string) uint32 {
	n := len(s)
	if uint(n-1) > 2 {
		return 0
	}
	m := n - 1
	return uint32(s[0]) | uint32(s[m-m>>1])<<8 | uint32(s[m])<<16 | uint32(n)<<24
}

// newNameTable returns the table of names (each of 1 to 3 bytes, at most
// 128), with the first multiplier that places them all in distinct slots.
func newNameTable(names []string) *nameTable {
	t := &nameTable{}
	for mul := uint32(0x9e3779b1); ; mul += 2 {
		t.mul = mul
		for i := range t.keys {
			t.keys[i] = noKey
		}
		ok := true
		for code, name := range names {
			k := nameKey(name)
			h := (k * mul) >> 25
			if t.keys[h] != noKey {
				ok = false
				break
			}
			t.keys[h], t.codes[h] = k, uint8(code)
		}
		if ok {
			return t
		}
	}
}

// lookup returns the index of name in the table's list.
func (t *nameTable) lookup(name string) (uint8, bool) {
	k := nameKey(name)
	h := (k * t.mul) >> 25
	return t.codes[h], t.keys[h] == k
}

var (
	atomTable    = newNameTable(atomVocab[:])
	residueTable = newNameTable(aminoAcids[:])
)

// atomCode returns the vocabulary index of an atom name.
func atomCode(name string) (uint8, bool) { return atomTable.lookup(name) }

// residueCode returns the amino-acid index of a residue name, or unk.
func residueCode(name string) uint8 {
	if c, ok := residueTable.lookup(name); ok {
		return c
	}
	return unk
}
