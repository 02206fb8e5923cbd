package corpus

// PoisonFreed makes w's allocator overwrite every buffer freed, so that a
// read after Free shows in the file.
func PoisonFreed(w *Writer) { w.mem.poison = true }

// Reused is how many buffers w's allocator handed out again.
func Reused(w *Writer) int { return w.mem.reused }

// FileBuffer is the capacity of w's file buffer and the bytes copied
// growing it.
func FileBuffer(w *Writer) (capacity, copied int) { return cap(w.buf.b), w.buf.copied }
