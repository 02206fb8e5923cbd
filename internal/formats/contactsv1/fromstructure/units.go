package fromstructure

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/pdbunits"
)

// The units and curation option values.
const (
	unitStructure = "structure"
	unitChains    = "chains"
	unitAssembly  = "assembly1"
	curationNone  = "none"
	curationAF3   = "af3"
)

// units are the complexes' options of a run (exp222's): what one row's
// documents are and how they are curated.
type units struct {
	units, curation   string
	chains, assembly  bool // units names chains, assembly1
	maxChains         int
	clusters          string
	fixChainIDs       bool
	set               string // the first of these options given, for errors
	maxChainsExplicit bool
}

// unitOptions reads the complexes' options; a bad value or combination is
// a permanent error naming it.
func unitOptions(opts map[string]string) (units, error) {
	u := units{units: unitStructure, curation: curationNone, maxChains: 1}
	bad := func(key, why string) (units, error) {
		return u, derrors.Permanent(fmt.Errorf("%s option %s=%q: %s", contactsv1.Name, key, opts[key], why))
	}
	defaults := map[string]string{OptUnits: unitStructure, OptCuration: curationNone, OptMaxChains: "1", OptClusters: "", OptFixChainIDs: "false"}
	for _, k := range []string{OptUnits, OptCuration, OptMaxChains, OptClusters, OptFixChainIDs} {
		if v, ok := opts[k]; ok && v != defaults[k] && u.set == "" {
			u.set = k + "=" + v
		}
	}
	if v, ok := opts[OptUnits]; ok {
		u.units = v
		for _, part := range strings.Split(v, ",") {
			switch part {
			case unitChains:
				u.chains = true
			case unitAssembly:
				u.assembly = true
			case unitStructure:
			default:
				return bad(OptUnits, "want structure, chains, assembly1 or chains,assembly1")
			}
		}
		if (u.chains || u.assembly) && strings.Contains(v, unitStructure) {
			return bad(OptUnits, "structure is a unit of its own: want structure, chains, assembly1 or chains,assembly1")
		}
	}
	if v, ok := opts[OptCuration]; ok {
		if v != curationNone && v != curationAF3 {
			return bad(OptCuration, "want none or af3")
		}
		u.curation = v
	}
	if v, ok := opts[OptMaxChains]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return bad(OptMaxChains, "want an integer >= 1")
		}
		u.maxChains, u.maxChainsExplicit = n, true
	}
	u.clusters = opts[OptClusters]
	if v, ok := opts[OptFixChainIDs]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return bad(OptFixChainIDs, "want true or false")
		}
		u.fixChainIDs = b
	}
	switch {
	case u.perEntry() && u.curation != curationAF3:
		return bad(OptUnits, "a PDB entry's chains and assembly are curated units: give curation=af3 too (uncurated units are not built)")
	case !u.perEntry() && u.curation != curationNone:
		return bad(OptCuration, "curation applies to the units of a PDB entry: give units=chains, assembly1 or chains,assembly1")
	case !u.perEntry() && u.clusters != "":
		return bad(OptClusters, "cluster ids are a PDB entry's units' column: give units=chains, assembly1 or chains,assembly1")
	case !u.perEntry() && u.fixChainIDs:
		return bad(OptFixChainIDs, "the chain-name quirk is an assembly's: give units=assembly1 or chains,assembly1")
	}
	return u, nil
}

// perEntry reports whether a row is a PDB entry whose units are documents.
func (u units) perEntry() bool { return u.chains || u.assembly }

// format is the per-entry format (pdbunits.Format) of these options, the
// generation config and the library; the cluster file is read once per
// process through store.
func (u units) format(ctx context.Context, store blob.Store, cfg contactsv1.Config, lib *confind.Library) (format.Format, error) {
	opt := pdbunits.Options{Library: lib, Config: cfg, MaxChains: u.maxChains,
		FixChainIDs: u.fixChainIDs, NoMonomers: !u.chains, NoMultimer: !u.assembly}
	if !u.maxChainsExplicit && u.assembly {
		return nil, derrors.Permanent(fmt.Errorf("%s option %s=%s: give %s too (exp222's multimers: 60); with 1 no assembly is a document", contactsv1.Name, OptUnits, u.units, OptMaxChains))
	}
	if u.clusters != "" {
		c, err := pdbunits.SharedClusters(ctx, store, u.clusters)
		if err != nil {
			if errors.Is(err, derrors.ErrPermanent) {
				return nil, derrors.Permanent(fmt.Errorf("%s option %s=%s: %w", contactsv1.Name, OptClusters, u.clusters, err))
			}
			return nil, fmt.Errorf("%s option %s=%s: %w", contactsv1.Name, OptClusters, u.clusters, err)
		}
		opt.Clusters = c
	}
	return pdbunits.NewFormat(opt)
}
