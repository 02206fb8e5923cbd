package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/fromstructure"
)

// structureOption is the option that makes the named record format read
// structures instead (contacts-v1's rotlib), or "" when it has none.
func structureOption(name string) string {
	info, err := formatRegistry.Describe(name)
	if err != nil || info.Input == format.FromStructure {
		return ""
	}
	for _, o := range info.Options {
		if o.Key == fromstructure.OptRotlib {
			return o.Key
		}
	}
	return ""
}

// structureFormats lists the formats that read structure files, those that
// need an option for it with the option: "cad-v2, ..., contacts-v1 (with
// --opt rotlib=DIR)".
func structureFormats() string {
	names := formatRegistry.NamesReading(format.FromStructure)
	for _, n := range formatRegistry.Names() {
		if o := structureOption(n); o != "" {
			names = append(names, fmt.Sprintf("%s (with --opt %s=DIR)", n, o))
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// recordsHint says that the named format reads analysis records where
// structures were given, and how to compute it from structures instead.
func recordsHint(name string) string {
	o := structureOption(name)
	if o == "" {
		return fmt.Sprintf("%s reads records (a manifest's record columns), not structure files", name)
	}
	return fmt.Sprintf("%s without %s reads analysis records (a manifest's record columns), not structures; "+
		"to compute it from mmCIF or PDB files add --opt %s=DIR (the rotamer library folder holding EBL.out and BEBL.out, or gs://BUCKET/PREFIX)", name, o, o)
}
