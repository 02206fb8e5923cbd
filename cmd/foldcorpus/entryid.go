package main

import (
	"errors"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// errEmptyFile is doc's and inspect's error for a file of 0 bytes.
var errEmptyFile = errors.New("empty file (0 bytes)")

// fileError is a read error of file as a person reads it: the file named
// once, no Go operation names or classification prefixes.
func fileError(file string, err error) string {
	msg := derrors.Describe(err)
	if strings.Contains(msg, file) {
		return msg
	}
	return file + ": " + msg
}

// entryIDRule is the default entry id rule of doc and inspect, for -h: the
// reference generator's (MarinFold's structure.name or path.stem, gemmi's
// structure name), which its documents are seeded with.
const entryIDRule = `as the reference generator names the structure (gemmi's
structure.name, MarinFold's entry id for one file): an mmCIF file's data_
block name, a PDB-format file's name without .gz and .pdb (gemmi reads no id
from a PDB HEADER), then less a .cif/.mmcif/.pdb/.ent ending
(AF-X-F1-model_v4.cif: AF-X-F1, its block; 1crn.pdb.gz: 1crn). A PDB copy of
an mmCIF entry can so get another id and document: give --entry-id, as a
manifest's entry_id column does for run (foldcorpus manifest names files by
their stem)`
