"""Write PDB-format copies of coordinate files with gemmi (python3-gemmi
0.5.7), as users make them: read_structure, optionally setup_entities, then
Structure.write_pdb with the given options.

usage: python3 gemmi_write_pdb.py < lines "IN<TAB>OUT<TAB>FLAGS"
FLAGS is a string of letters: s (setup_entities first), t (TER records),
i (TER ignores the entity type), n (numbered TER), q (SEQRES records).
Prints one line per input: "ok" or "error: <gemmi's message>" (nothing is
written then).
"""
import sys

import gemmi


def main():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        src, dst, flags = line.split("\t")
        try:
            st = gemmi.read_structure(src)
            if "s" in flags:
                st.setup_entities()
            st.write_pdb(dst, seqres_records="q" in flags, ter_records="t" in flags,
                         ter_ignores_type="i" in flags, numbered_ter="n" in flags)
            print("ok")
        except Exception as e:
            print("error: %s" % str(e).replace("\n", " "))
        sys.stdout.flush()


main()
