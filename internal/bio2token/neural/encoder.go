package neural

import (
	"fmt"
	"sync"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // the "go" CPU backend
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
)

// NewBackend returns the GoMLX backend named by spec: "go" is the pure-Go
// CPU backend, forced onto one DotGeneral algorithm (so that results do
// not depend on the batch shape) and onto sequential op execution within a
// run (its parallel mode races on buffer ownership under the race
// detector; device workers still run batches in parallel); "xla:tpu",
// "xla:cuda" need a binary built with the xla backend registered and the
// PJRT plugin installed.
func NewBackend(spec string) (b backends.Backend, err error) {
	if spec == "" || spec == "go" {
		spec = "go:dotgeneral_small,ops_sequential"
	}
	defer func() {
		if r := recover(); r != nil { // NewWithConfig panics on an unknown backend
			err = fmt.Errorf("bio2token: backend %q: %v", spec, r)
		}
	}()
	return backends.NewWithConfig(spec)
}

// Encoder runs the bio2token encoder on a GoMLX backend. It compiles one
// program per Shape (Compile), and runs batches on any device of the
// backend. Safe for concurrent use: Run may be called from one goroutine
// per device, sharing the compiled programs.
type Encoder struct {
	backend backends.Backend
	cfg     b2t.Config
	params  []*tensors.Tensor

	mu       sync.Mutex
	programs map[b2t.Shape]*graph.Exec
	compiles int
}

// NewEncoder uploads w as the encoder's parameters on backend.
func NewEncoder(backend backends.Backend, w *b2t.Weights) (*Encoder, error) {
	if err := w.Check(); err != nil {
		return nil, err
	}
	e := &Encoder{backend: backend, cfg: w.Config, programs: make(map[b2t.Shape]*graph.Exec)}
	for _, p := range w.Params() {
		e.params = append(e.params, tensors.FromFlatDataAndDimensions(*p.Data, p.Shape...))
	}
	return e, nil
}

// Config is the encoder's shape configuration.
func (e *Encoder) Config() b2t.Config { return e.cfg }

// NumDevices is the number of devices of the backend.
func (e *Encoder) NumDevices() int { return e.backend.NumDevices() }

// Compiles reports how many programs were compiled so far.
func (e *Encoder) Compiles() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.compiles
}

// Compile builds and compiles the program for shape s, once: a second call
// for the same shape is a no-op. Errors are permanent (a graph that cannot
// be built or compiled).
func (e *Encoder) Compile(s b2t.Shape) error {
	_, err := e.program(s)
	return err
}

func (e *Encoder) program(s b2t.Shape) (*graph.Exec, error) {
	if s.Batch <= 0 || s.Length <= 0 {
		return nil, fmt.Errorf("bio2token: invalid shape %+v", s)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if ex, ok := e.programs[s]; ok {
		return ex, nil
	}
	cfg := e.cfg
	ex, err := graph.NewExec(e.backend, func(inputs []*graph.Node) *graph.Node { return encodeGraph(cfg, inputs) })
	if err != nil {
		return nil, fmt.Errorf("bio2token: building encoder %+v: %w", s, err)
	}
	ex.SetMaxCache(1)
	args := e.args(tensors.FromFlatDataAndDimensions(make([]float32, s.Batch*s.Length*3), s.Batch, s.Length, 3),
		tensors.FromFlatDataAndDimensions(make([]int32, s.Batch), s.Batch))
	if err := ex.PreCompile(args...); err != nil {
		return nil, fmt.Errorf("bio2token: compiling encoder %+v: %w", s, err)
	}
	e.programs[s] = ex
	e.compiles++
	return ex, nil
}

func (e *Encoder) args(coords, lengths *tensors.Tensor) []any {
	args := make([]any, 0, 2+len(e.params))
	args = append(args, coords, lengths)
	for _, p := range e.params {
		args = append(args, p)
	}
	return args
}

// Run encodes one batch of shape s on device: coords holds s.Batch rows of
// s.Length atoms (x, y, z each, zero beyond a row's length), lengths the real
// atom count of each row (0 for an empty row). It returns the codes, row
// major [s.Batch][s.Length]; entries beyond a row's length are meaningless.
// It compiles s first if needed (counted by Compiles).
func (e *Encoder) Run(device int, s b2t.Shape, coords []float32, lengths []int32) ([]int32, error) {
	if len(coords) != s.Batch*s.Length*3 || len(lengths) != s.Batch {
		return nil, fmt.Errorf("bio2token: batch data does not match shape %+v", s)
	}
	for _, n := range lengths {
		if n < 0 || int(n) > s.Length {
			return nil, fmt.Errorf("bio2token: row length %d outside [0, %d]", n, s.Length)
		}
	}
	ex, err := e.program(s)
	if err != nil {
		return nil, err
	}
	out, err := ex.ExecOnDevice(backends.DeviceNum(device%e.backend.NumDevices()),
		e.args(tensors.FromFlatDataAndDimensions(coords, s.Batch, s.Length, 3),
			tensors.FromFlatDataAndDimensions(lengths, s.Batch))...)
	if err != nil {
		return nil, fmt.Errorf("bio2token: running encoder %+v: %w", s, err)
	}
	defer out[0].FinalizeAll()
	return tensors.CopyFlatData[int32](out[0])
}

// Encode tokenizes one structure unpadded (its own shape, compiled on
// first use): one code per atom.
func (e *Encoder) Encode(in *b2t.Input) ([]int32, error) {
	n := in.NumAtoms()
	return e.Run(0, b2t.Shape{Batch: 1, Length: n}, in.Coords, []int32{int32(n)})
}
