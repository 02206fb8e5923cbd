package neural

import "github.com/nlpodyssey/gopickle/pytorch"

func copyTensorForTest(dst, storage []float32, size, stride []int, offset int) error {
	return copyTensor(dst, &pytorch.Tensor{Source: &pytorch.FloatStorage{Data: storage}, Size: size, Stride: stride, StorageOffset: offset})
}
