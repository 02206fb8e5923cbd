package report

import (
	"encoding/json"
	"fmt"
	"slices"

	"gonum.org/v1/plot"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// coordClasses are the token mix classes of the coordinate formats
// (contacts-and-coordinates-v1, contacts-and-crops-v1) the report reads
// from a file's footer; crops and crop atoms only crops has.
var coordClasses = []string{format.MixSequence, format.MixContact, format.MixCoordinate,
	format.MixCoordinateTokens, format.MixCrop, format.MixCropAtom}

// CoordinateMix is the statement mix of the coordinate formats' documents,
// from the counts their generator wrote into each file's footer: per
// class, the distribution over documents and the total.
type CoordinateMix struct {
	PerDocument map[string]Dist  `json:"per_document"`
	Totals      map[string]int64 `json:"totals"`
	// TokenComposition is every token of the documents by kind: sequence
	// (the sequence section, termini included), contact_statements (3
	// tokens each), coordinates (the coordinate section: mention events,
	// or Pass-1 mentions and crops), other (the 4 frame tokens of each
	// document); they add up to all tokens (the num_tokens column).
	TokenComposition map[string]int64 `json:"token_composition"`
}

// readCoordMix takes the coordinate formats' counts from the footer's
// token mix, when it has their classes (coordinate_statements). A mix
// that does not parse or lacks a count per row is an error.
func (sf *shardFile) readCoordMix() error {
	js, ok := sf.Meta[corpus.MixKey]
	if !ok {
		return nil
	}
	var m corpus.Mix
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		return derrors.Permanent(fmt.Errorf("bad %s metadata: %w", corpus.MixKey, err))
	}
	if !slices.Contains(m.Classes, format.MixCoordinate) {
		return nil
	}
	if len(m.Counts) != len(m.Classes) {
		return derrors.Permanent(fmt.Errorf("bad %s metadata: %d count lists for %d classes", corpus.MixKey, len(m.Counts), len(m.Classes)))
	}
	sf.Coord = map[string][]float64{}
	for c, name := range m.Classes {
		if int64(len(m.Counts[c])) != sf.Rows {
			return derrors.Permanent(fmt.Errorf("bad %s metadata: %d %s counts for %d rows", corpus.MixKey, len(m.Counts[c]), name, sf.Rows))
		}
		if slices.Contains(coordClasses, name) {
			for _, n := range m.Counts[c] {
				sf.Coord[name] = append(sf.Coord[name], float64(n))
			}
		}
	}
	return nil
}

// coordinateMix sums the files' coordinate mixes; nil when none has one.
func coordinateMix(files []*shardFile) *CoordinateMix {
	per := map[string][]float64{}
	var tokens int64
	for _, f := range files {
		if f.Coord == nil {
			continue
		}
		for k, v := range f.Coord {
			per[k] = append(per[k], v...)
		}
		for _, t := range f.Tokens {
			tokens += int64(t)
		}
	}
	if len(per) == 0 {
		return nil
	}
	c := &CoordinateMix{PerDocument: map[string]Dist{}, Totals: map[string]int64{}}
	for k, v := range per {
		c.PerDocument[k] = newDist(v)
		var s int64
		for _, x := range v {
			s += int64(x)
		}
		c.Totals[k] = s
	}
	seq, contacts, coords := c.Totals[format.MixSequence], 3*c.Totals[format.MixContact], c.Totals[format.MixCoordinateTokens]
	c.TokenComposition = map[string]int64{"sequence": seq, "contact_statements": contacts, "coordinates": coords,
		"other": tokens - seq - contacts - coords}
	return c
}

// coordPlots are the coordinate mix's plots: statements per document and
// the token composition.
func coordPlots(s *Summary) []plotSpec {
	c := s.Coordinates
	if c == nil {
		return nil
	}
	return []plotSpec{{"coordinate_composition.png", "Token composition", func() ([]*plot.Plot, error) {
		tc := c.TokenComposition
		var all int64
		for _, n := range tc {
			all += n
		}
		keys := []string{"other", "coordinates", "contact_statements", "sequence"}
		var pct []float64
		for _, k := range keys {
			pct = append(pct, 100*float64(tc[k])/float64(max(all, 1)))
		}
		return oneOrErr(hbarPlot("Token composition (% of all tokens)", "% of tokens", []string{"other", "coordinates", "contact statements", "sequence"}, pct, false))
	}}}
}
