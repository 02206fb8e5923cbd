package format

// Option is one knob of a format, as the format registry describes it
// (`foldcorpus formats`): its key in the run's options, and the value an
// absent key takes.
type Option struct {
	Key string
	// Default is the value an absent key takes, in the form the format
	// parses; empty when Required.
	Default string
	// Required options have no default: the run must set them.
	Required bool
	// Doc says what the knob does, in a few words.
	Doc string
}
