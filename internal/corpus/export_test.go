package corpus

// FileBuffer is the capacity of w's file buffer and the bytes copied
// growing it.
func FileBuffer(w *Writer) (capacity, copied int) { return cap(w.buf.b), w.buf.copied }
