package planner

// RunSpec is the JSON body of a run spec object (NAME.run.json): a manifest
// glob, a format and its options, as the planner function reads it and
// `foldcorpus fetch-manifest` writes it. A bare manifest (NAME.parquet) is
// a run with the default format and no options.
type RunSpec struct {
	Manifest          string            `json:"manifest"` // gs:// glob in an input bucket
	Format            string            `json:"format,omitempty"`
	Options           map[string]string `json:"options,omitempty"`
	URIColumn         string            `json:"uri_column,omitempty"`
	TextColumn        string            `json:"text_column,omitempty"`
	LenientMissing    bool              `json:"lenient_missing,omitempty"`
	LenientParse      bool              `json:"lenient_parse,omitempty"`
	RowGroupsPerShard int               `json:"row_groups_per_shard,omitempty"`
	Prefix            string            `json:"prefix,omitempty"`
	// Passthrough names the manifest columns copied to the output (absent:
	// the default set; []: none).
	Passthrough []string `json:"passthrough,omitempty"`
	// AllowDuplicateIDs accepts manifest rows that share an entry_id;
	// absent, the planner refuses such a run (ErrDuplicateID).
	AllowDuplicateIDs bool `json:"allow_duplicate_ids,omitempty"`
}

// RunSpecSuffix ends the name of a run spec object.
const RunSpecSuffix = ".run.json"
