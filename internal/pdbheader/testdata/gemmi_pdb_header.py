"""The oracle of the PDB-format header scan (pdbformat_test.go).

Reads file paths from stdin, one a line. A path given as "convert IN OUT"
is an mmCIF file that gemmi 0.5.7 writes as PDB format to OUT (a line
"converted OUT" or "error MSG" answers it). Any other path is a PDB-format
file that gemmi reads (read_structure, then setup_entities); the answer is
one JSON line with exp222's columns as gemmi's reading gives them:
deposition_date and method from st.info (HEADER, EXPDTA), resolution
(st.resolution, None for 0), the polypeptide(L) polymer entities (name,
len(full_sequence), the chains of their subchains), and assembly 1's
protein chains (each listed protein chain of a generator times its
operators).
"""
import json
import sys

import gemmi


def first(v):
    if v is None:
        return None
    s = v.strip()
    return None if s in ("", "?", ".") else s


def row(path):
    st = gemmi.read_structure(path)
    st.setup_entities()
    info = st.info
    dep = info["_pdbx_database_status.recvd_initial_deposition_date"] if "_pdbx_database_status.recvd_initial_deposition_date" in info else None
    text = info["_exptl.method"] if "_exptl.method" in info else ""
    methods = sorted({m.strip() for m in text.split(";") if m.strip()})
    chain_of = {}
    for model in st:
        for ch in model:
            for res in ch:
                chain_of[res.subchain] = ch.name
    ents = [e for e in st.entities
            if e.entity_type == gemmi.EntityType.Polymer and e.polymer_type == gemmi.PolymerType.PeptideL]
    strands = [[chain_of.get(s, s) for s in e.subchains] for e in ents]
    protein = {c for cs in strands for c in cs}
    seen, built = set(), 0
    for a in st.assemblies:
        if a.name != "1":
            continue
        for g in a.generators:
            chunk = 0
            for c in g.chains:
                if c in protein:
                    chunk += 1
                    seen.add(c)
            built += chunk * len(g.operators)
    return {
        "release_date": None,
        "deposition_date": first(dep),
        "method": ";".join(methods) or None,
        "resolution": st.resolution or None,
        "n_protein_entities": len(ents),
        "n_protein_asym_chains": len(protein),
        "protein_entity_ids": [e.name for e in ents],
        "protein_entity_lengths": [len(e.full_sequence) for e in ents],
        "protein_strand_ids": [",".join(cs) for cs in strands],
        "n_assembly1_protein_asyms": len(seen),
        "n_assembly1_protein_chains": built,
    }


for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    if line.startswith("convert "):
        _, src, dst = line.split(" ", 2)
        try:
            gemmi.read_structure(src).write_pdb(dst)
            print("converted " + dst, flush=True)
        except Exception as e:  # a structure PDB format cannot hold
            print("error " + str(e).replace("\n", " "), flush=True)
        continue
    try:
        print(json.dumps(row(line)), flush=True)
    except Exception as e:
        print(json.dumps({"gemmi_error": str(e)}), flush=True)
