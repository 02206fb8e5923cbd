package confind

import (
	"io"
	"strconv"
)

// readBEBL parses BEBL.out (PHIBIN, PSIBIN, then per residue BIN /
// LEVNUM / CONFIDX blocks) into lib.bebl, checking every CONFIDX against
// the residue's EBL rows. Errors name the file and line.
func (lib *Library) readBEBL(r io.Reader, name string) error {
	var cur *binTable
	var curName string
	var bin []int32 // the current BIN's key, nil for none
	var wild bool
	levnum, levLine := -1, 0
	var haveBin bool
	var binLine int
	checkBin := func() error {
		if haveBin && levnum < 0 {
			return lineError(name, binLine, "BIN without LEVNUM/CONFIDX in RESI %s", curName)
		}
		return nil
	}
	err := lines(r, name, func(ln int, f [][]byte) error {
		kw := string(f[0])
		switch kw {
		case "PHIBIN", "PSIBIN":
			if len(f) != 2 {
				return lineError(name, ln, "%s wants one value", kw)
			}
			v, err := parseFloat(f[1])
			if err != nil || !(v > 0) {
				return lineError(name, ln, "%s %q is not a positive number", kw, f[1])
			}
			if kw == "PHIBIN" {
				lib.phiBin = v
			} else {
				lib.psiBin = v
			}
		case "RESI":
			if err := checkBin(); err != nil {
				return err
			}
			if len(f) != 2 {
				return lineError(name, ln, "RESI wants one residue name")
			}
			curName = string(f[1])
			if _, dup := lib.bebl[curName]; dup {
				return lineError(name, ln, "residue %s defined twice", curName)
			}
			cur = &binTable{bins: map[[2]int32][]int32{}}
			lib.bebl[curName] = cur
			haveBin = false
		case "BIN":
			if cur == nil {
				return lineError(name, ln, "BIN before RESI")
			}
			if err := checkBin(); err != nil {
				return err
			}
			if len(f) != 3 {
				return lineError(name, ln, "BIN wants phi and psi")
			}
			wild = string(f[1]) == "*" || string(f[2]) == "*"
			bin = nil
			if !wild {
				phi, e1 := strconv.Atoi(string(f[1]))
				psi, e2 := strconv.Atoi(string(f[2]))
				if e1 != nil || e2 != nil {
					return lineError(name, ln, "BIN %s %s: not integers or *", f[1], f[2])
				}
				bin = []int32{int32(phi), int32(psi)}
			}
			haveBin, binLine, levnum = true, ln, -1
		case "LEVNUM":
			if !haveBin || len(f) != 2 {
				return lineError(name, ln, "LEVNUM wants one count after a BIN")
			}
			n, err := strconv.Atoi(string(f[1]))
			if err != nil || n < 0 {
				return lineError(name, ln, "LEVNUM %q is not a count", f[1])
			}
			levnum, levLine = n, ln
		case "CONFIDX":
			if !haveBin || levnum < 0 {
				return lineError(name, ln, "CONFIDX without BIN and LEVNUM")
			}
			if len(f)-1 != levnum {
				return lineError(name, ln, "CONFIDX has %d indices, LEVNUM (line %d) says %d", len(f)-1, levLine, levnum)
			}
			t := lib.ebl[curName]
			idx := make([]int32, levnum)
			for k, tok := range f[1:] {
				v, err := strconv.Atoi(string(tok))
				if err != nil || v < 0 {
					return lineError(name, ln, "CONFIDX %q is not an index", tok)
				}
				if t != nil && v >= t.rows {
					return lineError(name, ln, "CONFIDX %d is out of range: RESI %s has %d CONF rows", v, curName, t.rows)
				}
				idx[k] = int32(v)
			}
			if t != nil && levnum > len(t.weights) {
				return lineError(name, ln, "bin of %d rotamers but RESI %s has %d weights", levnum, curName, len(t.weights))
			}
			if wild {
				cur.wildcard, cur.hasWild = idx, true
			} else {
				cur.bins[[2]int32{bin[0], bin[1]}] = idx
			}
			haveBin, levnum = false, 0
		default:
			return lineError(name, ln, "unknown keyword %q", kw)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := checkBin(); err != nil {
		return err
	}
	if lib.phiBin == 0 || lib.psiBin == 0 {
		return lineError(name, 0, "PHIBIN and PSIBIN are required")
	}
	return nil
}
