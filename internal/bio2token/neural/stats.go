package neural

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
)

// GraphCost describes the encoder program of one shape, counted from the
// graph itself (before any backend fusion).
type GraphCost struct {
	Nodes int
	// Bytes is the unfused memory traffic: every node's output written
	// once and every input read once per use.
	Bytes int64
}

// Cost builds (without compiling) the encoder graph of shape s and counts
// its nodes and unfused memory traffic: the basis of the accelerator
// projection in `foldcorpus bench tokenize`.
func (e *Encoder) Cost(s b2t.Shape) (c GraphCost, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bio2token: Cost(%+v): %v", s, r)
		}
	}()
	g := graph.NewGraph(e.backend, "cost")
	defer g.Finalize()
	inputs := []*graph.Node{
		graph.Parameter(g, "coords", shapes.Make(dtypes.Float32, s.Batch, s.Length, 3)),
		graph.Parameter(g, "lengths", shapes.Make(dtypes.Int32, s.Batch)),
	}
	for i, p := range e.params {
		inputs = append(inputs, graph.Parameter(g, fmt.Sprintf("p%d", i), p.Shape()))
	}
	encodeGraph(e.cfg, inputs)
	for _, n := range g.Nodes() {
		c.Nodes++
		c.Bytes += int64(n.Shape().Memory())
		for _, in := range n.Inputs() {
			c.Bytes += int64(in.Shape().Memory())
		}
	}
	return c, nil
}
