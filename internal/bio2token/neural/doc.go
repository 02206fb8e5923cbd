// Package neural runs the bio2token encoder: the GoMLX graph of the Mamba
// encoder and FSQ quantizer (Encoder, on a GoMLX backend), and the reader
// of the official PyTorch checkpoint (LoadCheckpoint, through gopickle).
//
// It is the heavy half of bio2token, split from package bio2token (adapt,
// batch plans, documents, weights) so that the Cloud Functions, which only
// adapt and stage inputs for the tokenize job, link neither GoMLX nor
// gopickle. The processes that tokenize import it: the tokenize job
// (tpujob), and the CLI and the local runner through package
// formats/inprocess.
package neural
