package neural

import (
	"reflect"
	"testing"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
)

func TestEncodeAllEqualsSingles(t *testing.T) {
	e, err := NewEncoder(testBackend(t), testWeights(t, smallConfig, 2))
	if err != nil {
		t.Fatal(err)
	}
	var inputs []*b2t.Input
	for i, n := range []int{3, 200, 257, 31, 256} {
		inputs = append(inputs, &b2t.Input{Coords: randomCoords(uint64(i), n), AtomNames: make([]string, n)})
	}
	ladder := b2t.Ladder(b2t.DefaultRungs)[:3] // 256, 320, 384
	got, err := e.EncodeAll(ladder, inputs)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range inputs {
		want, err := e.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("input %d (%d atoms): batched codes differ from single", i, in.NumAtoms())
		}
	}
}

func TestCost(t *testing.T) {
	e, err := NewEncoder(testBackend(t), testWeights(t, smallConfig, 1))
	if err != nil {
		t.Fatal(err)
	}
	c1, err := e.Cost(b2t.Shape{Batch: 1, Length: 64})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := e.Cost(b2t.Shape{Batch: 2, Length: 64})
	if err != nil {
		t.Fatal(err)
	}
	c3, err := e.Cost(b2t.Shape{Batch: 1, Length: 128})
	if err != nil {
		t.Fatal(err)
	}
	// Twice the rows: same graph, about twice the traffic; twice the
	// length: one more scan step per block and direction.
	if c1.Nodes != c2.Nodes || c2.Bytes < 19*c1.Bytes/10 || c3.Nodes <= c1.Nodes || c3.Bytes <= 2*c1.Bytes {
		t.Errorf("costs %+v %+v %+v", c1, c2, c3)
	}
	if e.Compiles() != 0 {
		t.Errorf("Cost compiled %d programs", e.Compiles())
	}
}
