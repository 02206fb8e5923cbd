package contactsv1

import (
	"errors"
	"strconv"
)

// errSlowPath sends a record the fast decoder does not handle (escapes,
// unknown keys, malformed input) to encoding/json, which decodes it or says
// precisely what is wrong.
var errSlowPath = errors.New("use encoding/json")

// recordScanner decodes the JSON object of an analysis record without
// reflection: the known keys, each a scalar, a flat array or null.
type recordScanner struct {
	b []byte
	i int
}

func fastRecordFromJSON(data []byte) (map[string]any, error) {
	s := recordScanner{b: data}
	rec := map[string]any{
		"entry_id": nil, "seq_len": nil, "global_plddt": nil, "num_contacts": nil,
		"residue_resname": nil, "residue_resnum": nil, "residue_chain": nil,
		"contact_seq_i": nil, "contact_seq_j": nil, "contact_degree": nil,
	}
	if !s.consume('{') {
		return nil, errSlowPath
	}
	if s.consume('}') {
		return rec, s.end()
	}
	for {
		key, ok := s.str()
		if !ok || !s.consume(':') {
			return nil, errSlowPath
		}
		if s.null() {
			if _, known := rec[key]; !known {
				return nil, errSlowPath
			}
		} else {
			var v any
			switch key {
			case "entry_id":
				v, ok = s.str()
			case "seq_len", "num_contacts":
				v, ok = s.int()
			case "global_plddt":
				v, ok = s.float()
			case "residue_resname", "residue_chain":
				v, ok = s.strs()
			case "residue_resnum", "contact_seq_i", "contact_seq_j":
				v, ok = s.ints()
			case "contact_degree":
				v, ok = s.floats()
			default:
				ok = false
			}
			if !ok {
				return nil, errSlowPath
			}
			rec[key] = v
		}
		if s.consume('}') {
			return rec, s.end()
		}
		if !s.consume(',') {
			return nil, errSlowPath
		}
	}
}

func (s *recordScanner) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\t' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *recordScanner) consume(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *recordScanner) end() error {
	s.ws()
	if s.i != len(s.b) {
		return errSlowPath
	}
	return nil
}

func (s *recordScanner) null() bool {
	s.ws()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// rawStr returns the bytes of a string without escapes.
func (s *recordScanner) rawStr() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

func (s *recordScanner) str() (string, bool) {
	b, ok := s.rawStr()
	return string(b), ok
}

func (s *recordScanner) number() []byte {
	s.ws()
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			break
		}
		s.i++
	}
	return s.b[start:s.i]
}

func (s *recordScanner) int() (int64, bool) {
	b := s.number()
	if len(b) == 0 || b[0] == '+' {
		return 0, false
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	return v, err == nil
}

func (s *recordScanner) float() (float64, bool) {
	b := s.number()
	if len(b) == 0 || b[0] == '+' || b[len(b)-1] == '.' {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil
}

// list parses a JSON array, calling elem for each element.
func (s *recordScanner) list(elem func() bool) bool {
	if !s.consume('[') {
		return false
	}
	if s.consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.consume(']') {
			return true
		}
		if !s.consume(',') {
			return false
		}
	}
}

func (s *recordScanner) strs() ([]string, bool) {
	out := []string{}
	var prev string
	ok := s.list(func() bool {
		b, ok := s.rawStr()
		switch {
		case !ok:
			return false
		case string(b) == prev: // chain ids repeat: share the string
		default:
			if t, known := residueTokens[string(b)]; known && t[1:len(t)-1] == string(b) {
				prev = t[1 : len(t)-1] // canonical names: share the token's bytes
			} else {
				prev = string(b)
			}
		}
		out = append(out, prev)
		return true
	})
	return out, ok
}

func (s *recordScanner) ints() ([]int64, bool) {
	out := []int64{}
	ok := s.list(func() bool {
		v, ok := s.int()
		out = append(out, v)
		return ok
	})
	return out, ok
}

func (s *recordScanner) floats() ([]float64, bool) {
	out := []float64{}
	ok := s.list(func() bool {
		v, ok := s.float()
		out = append(out, v)
		return ok
	})
	return out, ok
}
