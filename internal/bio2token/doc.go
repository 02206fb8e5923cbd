// Package bio2token is the bio2token encoder's domain core, apart from any
// accelerator: a structure adapted to the encoder's input (the atom
// conventions, Adapt), batch plans over a length ladder, the model's
// constants and weights with a plain float64 reference encoder, the
// checkpoint writer for test weights, and the document assembled from the
// tokens. The GoMLX encoder is package bio2token/neural; the bio2token-v2
// document format built on both is package formats/bio2tokenv2.
package bio2token
