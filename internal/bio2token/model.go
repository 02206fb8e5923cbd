package bio2token

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// NumCodes is the size of the FSQ codebook: levels [4,4,4,4,4,4].
const NumCodes = 4096

// The quantizer's and the blocks' constants, shared by the encoder graph
// (package neural) and ReferenceEncode.
const (
	FSQDims           = 6
	FSQLevels         = 4
	FSQHalfL          = float32(1.4985) // (levels-1)*(1-1e-3)/2 as the official model has it
	FSQOffset         = float32(0.5)    // levels are even
	NormEps           = 1e-5
	SoftplusThreshold = 20 // torch.nn.functional.softplus threshold
)

// FSQShift is the official FSQ shift, which uses tan (not atanh): the
// official model computes tan(offset / half_l) and so do we.
var FSQShift = float32(math.Tan(float64(FSQOffset / FSQHalfL)))

// Config is the encoder's shape. DefaultConfig is bio2token's; tests use
// smaller ones.
type Config struct {
	DModel, DInner, DState, DTRank, DConv, Layers int
}

// DefaultConfig is the official bio2token encoder (467,718 parameters).
func DefaultConfig() Config {
	return Config{DModel: 128, DInner: 256, DState: 16, DTRank: 8, DConv: 4, Layers: 4}
}

// Validate reports a config that cannot build an encoder.
func (c Config) Validate() error {
	if c.DModel <= 0 || c.DInner <= 0 || c.DState <= 0 || c.DTRank <= 0 || c.DConv <= 0 || c.Layers <= 0 {
		return fmt.Errorf("bio2token: invalid config %+v", c)
	}
	return nil
}

// Layer holds one Mamba-1 block's weights, row-major in PyTorch's layout.
type Layer struct {
	Norm    []float32 // [DModel]            norm.weight
	InProj  []float32 // [2*DInner, DModel]  mixer.in_proj.weight
	ConvW   []float32 // [DInner, 1, DConv]  mixer.conv1d.weight
	ConvB   []float32 // [DInner]            mixer.conv1d.bias
	XProj   []float32 // [DTRank+2*DState, DInner] mixer.x_proj.weight
	DtW     []float32 // [DInner, DTRank]    mixer.dt_proj.weight
	DtB     []float32 // [DInner]            mixer.dt_proj.bias
	ALog    []float32 // [DInner, DState]    mixer.A_log
	D       []float32 // [DInner]            mixer.D
	OutProj []float32 // [DModel, DInner]    mixer.out_proj.weight
}

// Weights are the encoder's parameters, and the quantizer's output
// projection, which the checkpoint holds beside them but tokenizing does
// not use (it maps codes back to the decoder's input).
type Weights struct {
	Config Config
	InProj []float32 // [DModel, 3]
	Layers []Layer
	NormF  []float32 // [DModel]
	FSQW   []float32 // [6, DModel]
	FSQB   []float32 // [6]

	FSQOutW []float32 // [DModel, 6] quantizer.project_out.weight, not used to tokenize
	FSQOutB []float32 // [DModel]    quantizer.project_out.bias, not used to tokenize
}

// Param is one named parameter with its PyTorch shape and its data.
type Param struct {
	Name  string
	Shape []int
	Data  *[]float32
}

// Params lists every parameter used to tokenize in a fixed order (the order
// the graph takes them in), named as in the official checkpoint's
// state_dict without CheckpointPrefix: the Mamba stack under "encoder.", the
// FSQ projection under "quantizer.".
func (w *Weights) Params() []Param {
	c := w.Config
	ps := []Param{{"encoder.input_projection.weight", []int{c.DModel, 3}, &w.InProj}}
	for i := range w.Layers {
		l := &w.Layers[i]
		p := fmt.Sprintf("encoder.layers.%d.", i)
		ps = append(ps,
			Param{p + "norm.weight", []int{c.DModel}, &l.Norm},
			Param{p + "mixer.in_proj.weight", []int{2 * c.DInner, c.DModel}, &l.InProj},
			Param{p + "mixer.conv1d.weight", []int{c.DInner, 1, c.DConv}, &l.ConvW},
			Param{p + "mixer.conv1d.bias", []int{c.DInner}, &l.ConvB},
			Param{p + "mixer.x_proj.weight", []int{c.DTRank + 2*c.DState, c.DInner}, &l.XProj},
			Param{p + "mixer.dt_proj.weight", []int{c.DInner, c.DTRank}, &l.DtW},
			Param{p + "mixer.dt_proj.bias", []int{c.DInner}, &l.DtB},
			Param{p + "mixer.A_log", []int{c.DInner, c.DState}, &l.ALog},
			Param{p + "mixer.D", []int{c.DInner}, &l.D},
			Param{p + "mixer.out_proj.weight", []int{c.DModel, c.DInner}, &l.OutProj},
		)
	}
	return append(ps,
		Param{"encoder.norm_f.weight", []int{c.DModel}, &w.NormF},
		Param{"quantizer.project_in.weight", []int{FSQDims, c.DModel}, &w.FSQW},
		Param{"quantizer.project_in.bias", []int{FSQDims}, &w.FSQB},
	)
}

// unusedParams lists the checkpoint's encoder-side tensors that tokenizing
// does not use; the loader checks their shapes and keeps them, so that a
// checkpoint written back holds the official layout.
func (w *Weights) unusedParams() []Param {
	c := w.Config
	return []Param{
		{"quantizer.project_out.weight", []int{c.DModel, FSQDims}, &w.FSQOutW},
		{"quantizer.project_out.bias", []int{c.DModel}, &w.FSQOutB},
	}
}

// AllParams is params then unusedParams: every tensor of the checkpoint
// under CheckpointPrefix.
func (w *Weights) AllParams() []Param { return append(w.Params(), w.unusedParams()...) }

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// NumParams counts the parameters used to tokenize (467,718 for
// DefaultConfig; the unused project_out is not counted).
func (w *Weights) NumParams() int {
	n := 0
	for _, p := range w.Params() {
		n += len(*p.Data)
	}
	return n
}

// Check verifies every parameter has its shape's size and is finite.
func (w *Weights) Check() error {
	if err := w.Config.Validate(); err != nil {
		return err
	}
	if len(w.Layers) != w.Config.Layers {
		return fmt.Errorf("bio2token: %d layers, config says %d", len(w.Layers), w.Config.Layers)
	}
	for _, p := range w.AllParams() {
		if len(*p.Data) != numel(p.Shape) {
			return fmt.Errorf("bio2token: parameter %s has %d values, want %v", p.Name, len(*p.Data), p.Shape)
		}
		for _, v := range *p.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("bio2token: parameter %s is not finite", p.Name)
			}
		}
	}
	return nil
}

// NewWeights allocates zero weights of config c.
func NewWeights(c Config) *Weights {
	w := &Weights{Config: c, Layers: make([]Layer, c.Layers)}
	for _, p := range w.AllParams() {
		*p.Data = make([]float32, numel(p.Shape))
	}
	return w
}

// RandomWeights generates weights of config c deterministically from seed,
// scaled like Mamba's initialisation (uniform ±1/sqrt(fan_in), A_log =
// log(1..DState), D = 1, dt bias = softplus⁻¹ of dt in [1e-3, 0.1], norm
// weights near 1), so that activations and codes are realistic. For tests
// and benchmarks: the official weights are not available here.
func RandomWeights(c Config, seed uint64) (*Weights, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	w := NewWeights(c)
	rng := rand.New(rand.NewPCG(seed, 0x6269_6f32_746f_6b6e))
	uni := func(dst []float32, fanIn int) {
		s := 1 / math.Sqrt(float64(fanIn))
		for i := range dst {
			dst[i] = float32((2*rng.Float64() - 1) * s)
		}
	}
	near1 := func(dst []float32) {
		for i := range dst {
			dst[i] = float32(1 + 0.1*(2*rng.Float64()-1))
		}
	}
	// Coordinates are tens of Å: scale the input projection down.
	uni(w.InProj, 3*100)
	for i := range w.Layers {
		l := &w.Layers[i]
		near1(l.Norm)
		uni(l.InProj, c.DModel)
		uni(l.ConvW, c.DConv)
		uni(l.ConvB, c.DConv)
		uni(l.XProj, c.DInner)
		uni(l.DtW, c.DTRank)
		for j := range l.DtB {
			dt := math.Exp(rng.Float64()*(math.Log(0.1)-math.Log(1e-3)) + math.Log(1e-3))
			l.DtB[j] = float32(dt + math.Log(-math.Expm1(-dt))) // softplus⁻¹(dt)
		}
		for d := 0; d < c.DInner; d++ {
			for n := 0; n < c.DState; n++ {
				l.ALog[d*c.DState+n] = float32(math.Log(float64(n + 1)))
			}
		}
		for j := range l.D {
			l.D[j] = 1
		}
		uni(l.OutProj, c.DInner)
	}
	near1(w.NormF)
	uni(w.FSQW, c.DModel/16) // wider than default so codes spread over the codebook
	uni(w.FSQB, c.DModel)
	uni(w.FSQOutW, FSQDims)
	uni(w.FSQOutB, FSQDims)
	return w, nil
}
