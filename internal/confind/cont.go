package confind

import (
	"math"
	"strconv"
	"strings"
)

// ContText is pyconfind's format_confind_text of r: contact, sumcond,
// percont, crwdnes and freedom lines (tab-separated, %.6f numbers, NaN as
// -nan), then the SEQUENCE line.
func (r *Result) ContText() string {
	var b strings.Builder
	ids := make([]string, len(r.Positions))
	for i := range r.Positions {
		ids[i] = r.Positions[i].ID()
	}
	num := func(v float64) {
		if math.IsNaN(v) {
			b.WriteString("-nan")
			return
		}
		b.WriteString(strconv.FormatFloat(v, 'f', 6, 64))
	}
	line := func(kind string, i int, v float64) {
		b.WriteString(kind)
		b.WriteByte('\t')
		b.WriteString(ids[i])
		b.WriteByte('\t')
		num(v)
		b.WriteByte('\t')
		b.WriteString(r.Positions[i].ResName)
		b.WriteByte('\n')
	}
	pair := func(kind string, i, j int, v float64) {
		b.WriteString(kind + "\t" + ids[i] + "\t" + ids[j] + "\t")
		num(v)
		b.WriteString("\t" + r.Positions[i].ResName + "\t" + r.Positions[j].ResName + "\n")
	}
	for _, c := range r.Contacts {
		pair("contact", c.I, c.J, c.Degree)
	}
	for i := range r.Positions {
		line("sumcond", i, r.SumCond[i])
	}
	for i, js := range r.PermContacts {
		for _, j := range js {
			pair("percont", i, int(j), -1)
		}
	}
	for i := range r.Positions {
		line("crwdnes", i, r.Crowdedness[i])
	}
	for i := range r.Positions {
		line("freedom", i, r.Freedom[i])
	}
	b.WriteString("SEQUENCE:")
	for i := range r.Positions {
		b.WriteByte(' ')
		b.WriteString(r.Positions[i].ResName)
	}
	b.WriteByte('\n')
	return b.String()
}
