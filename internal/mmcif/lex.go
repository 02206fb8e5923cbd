package mmcif

import (
	"bytes"
	"fmt"
)

// tokKind is the kind of one CIF 1.1 token.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tValue          // unquoted value (may be '.' or '?')
	tQuoted         // single- or double-quoted value, quotes stripped
	tText           // ;-delimited text field, delimiters stripped
	tTag            // _category.item
	tLoop           // loop_
	tData           // data_NAME (the span is NAME)
	tSave           // save_ or save_NAME
	tGlobal         // global_
	tStop           // stop_
)

// span is a value's position in the input, [s, e).
type span struct{ s, e int32 }

// lexer tokenizes a CIF 1.1 byte slice without copying: every token is a
// span into data.
type lexer struct {
	data []byte
	pos  int
}

// syntaxError is a CIF syntax problem at a byte offset; Read turns it into
// an error naming the line.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

func lineOf(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// isWS reports CIF whitespace. Other control bytes are rejected where a
// token would start.
func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// next returns the next token. For tData the span is the block name.
func (l *lexer) next() (tokKind, span, error) {
	d := l.data
	p := l.pos
	n := len(d)
	// skip whitespace and comments
	for p < n {
		c := d[p]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			p++
			continue
		}
		if c == '#' {
			i := bytes.IndexByte(d[p:], '\n')
			if i < 0 {
				p = n
			} else {
				p += i + 1
			}
			continue
		}
		break
	}
	if p >= n {
		l.pos = n
		return tEOF, span{}, nil
	}
	start := p
	c := d[p]
	switch {
	case c == ';' && (p == 0 || d[p-1] == '\n' || d[p-1] == '\r'):
		// text field: runs to the next line that starts with ';'
		q := p + 1
		for {
			i := bytes.IndexByte(d[q:], '\n')
			if i < 0 {
				return 0, span{}, &syntaxError{start, "unterminated text field (';' block)"}
			}
			q += i + 1
			if q < n && d[q] == ';' {
				end := q - 1
				if end > p+1 && d[end-1] == '\r' {
					end--
				}
				l.pos = q + 1
				return tText, span{int32(p + 1), int32(end)}, nil
			}
		}
	case c == '\'' || c == '"':
		// quoted: closes at the same quote followed by whitespace, '#' or
		// the end (gemmi's endq); any byte but a newline may sit inside
		// (gemmi's quoted_tail, relaxed for PDB entries such as 5Q1H that
		// carry non-ASCII text)
		q := p + 1
		for {
			i := bytes.IndexByte(d[q:], c)
			if i < 0 {
				return 0, span{}, &syntaxError{start, "unterminated quoted string"}
			}
			j := q + i
			if nl := bytes.IndexByte(d[q:j], '\n'); nl >= 0 {
				return 0, span{}, &syntaxError{start, "unterminated quoted string"}
			}
			if j+1 >= n || isWS(d[j+1]) || d[j+1] == '#' {
				l.pos = j + 1
				return tQuoted, span{int32(p + 1), int32(j)}, nil
			}
			q = j + 1
		}
	}
	// unquoted token: up to whitespace
	q := p
	for q < n {
		b := d[q]
		if b > ' ' && b < 0x7f {
			q++
			continue
		}
		if isWS(b) {
			break
		}
		return 0, span{}, &syntaxError{q, fmt.Sprintf("byte 0x%02x not allowed outside a text field", b)}
	}
	l.pos = q
	sp := span{int32(p), int32(q)}
	if c == '_' {
		return tTag, sp, nil
	}
	if q-p >= 5 && d[p+4] == '_' {
		switch {
		case eqFold(d[p:p+5], "data_"):
			return tData, span{int32(p + 5), int32(q)}, nil
		case eqFold(d[p:p+5], "save_"):
			return tSave, sp, nil
		case q-p == 5 && eqFold(d[p:q], "loop_"):
			return tLoop, sp, nil
		case q-p == 5 && eqFold(d[p:q], "stop_"):
			return tStop, sp, nil
		}
	}
	if q-p == 7 && eqFold(d[p:q], "global_") {
		return tGlobal, sp, nil
	}
	return tValue, sp, nil
}

// eqFold compares b with the lower-case ASCII string s, ignoring case.
func eqFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
