package mmcif

// tagSet is the set of a block's tags that the duplicate check needs: an
// open-addressing table of case-folded 64-bit hashes with the tag's span,
// so that a tag costs one hash over its bytes and (nearly always) one
// probe; equal hashes are confirmed by comparing the tags without case.
// It is reused between blocks and reads (no allocation once grown).
type tagSet struct {
	hash []uint64 // 0: empty slot
	tags []span
	n    int
}

// reset empties the set, keeping its table.
func (s *tagSet) reset() {
	if s.n > 0 {
		clear(s.hash)
		s.n = 0
	}
}

// foldHash is FNV-1a over the bytes with ASCII letters lower-cased, never 0.
func foldHash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h | 1
}

// add inserts the tag at sp of data and reports whether it was new
// (compared without case, as gemmi's check_for_duplicates does).
func (s *tagSet) add(data []byte, sp span) bool {
	if 2*(s.n+1) > len(s.hash) {
		s.grow(data)
	}
	tag := data[sp.s:sp.e]
	h := foldHash(tag)
	mask := uint64(len(s.hash) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch {
		case s.hash[i] == 0:
			s.hash[i], s.tags[i] = h, sp
			s.n++
			return true
		case s.hash[i] == h && equalFold(data[s.tags[i].s:s.tags[i].e], tag):
			return false
		}
	}
}

// grow doubles the table (at least 256 slots) and reinserts the tags.
func (s *tagSet) grow(data []byte) {
	oldHash, oldTags := s.hash, s.tags
	size := max(256, 2*len(s.hash))
	s.hash, s.tags, s.n = make([]uint64, size), make([]span, size), 0
	for i, h := range oldHash {
		if h != 0 {
			s.add(data, oldTags[i])
		}
	}
}

// equalFold compares two tags ignoring ASCII case.
func equalFold(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
