//go:build !cgo

package pyrandom

// generate computes the next MT19937 block and its tempered outputs.
func (r *Rand) generate() { r.generateGo() }
