"""Read mmCIF files with gemmi (python3-gemmi 0.5.7) the way the project's
references do, and print what foldcorpus must reproduce: one JSON line per
file, in input order.

usage: python3 gemmi_read.py CADV2_REFERENCE.py < paths (one per line)

Per file: the structure as read_structure + setup_entities leave it (every
model: chains with their residues' name, seq id, insertion code, entity
type and atom count; per chain the residue, polymer residue and atom counts,
the polymer's one-letter sequence and every atom in order: name, altloc,
element (upper case), x, y, z, occupancy, B), the inspect summary of the first
model's principal chain (pLDDT mean over first CA atoms, contacts: first CB,
CA for GLY, < 8 A, |i - j| >= 6 in seq_numbers' numbering, the one
foldcorpus uses), every residue's label_seq (null when gemmi has none), and the contacts-and-distances-v2
outcome of the reference generator (internal/bench/cadv2_reference.py, residue_plddt_min
70): "error" with its message, "filtered", or "document" with its sha1;
and the same with require_single_chain off (the first polymer chain).
"""
import ast
import hashlib
import json
import math
import sys

import gemmi


def load_reference(path):
    """cadv2_reference.py's functions, without running its main()."""
    tree = ast.parse(open(path).read(), path)
    tree.body = [n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call))]
    ns = {"__name__": "cadv2_reference"}
    exec(compile(tree, path, "exec"), ns)
    return ns


class FirstChainGemmi:
    """gemmi, except that read_structure leaves only the first polymer chain
    of model 1 (after setup_entities): the reference's read() then reads
    what require_single_chain=False takes."""

    def __getattr__(self, name):
        return getattr(gemmi, name)

    @staticmethod
    def read_structure(path):
        st = gemmi.read_structure(path)
        st.setup_entities()
        if len(st) > 0:
            poly = [i for i, ch in enumerate(st[0]) if len(ch.get_polymer()) > 0]
            for i in reversed(poly[1:]):
                del st[0][i]
        return st


def one_letter(name):
    info = gemmi.find_tabulated_residue(name)
    c = info.one_letter_code if info is not None else " "
    return "X" if c == " " else c.upper()


def first_atom(res, name):
    for a in res:
        if a.name == name:
            return a
    return None


# gemmi's EntityType (metadata.hpp); python3-gemmi 0.5.7 names no Branched.
ENTITY_TYPES = ["Unknown", "Polymer", "NonPolymer", "Branched", "Water"]


def etype(r):
    return ENTITY_TYPES[int(r.entity_type)]


def atom_sums(ch):
    """Sums over the chain's atoms in order, in float64: B (float32 values),
    occupancy (float32) and x + y + z."""
    b = occ = xyz = 0.0
    for r in ch:
        for a in r:
            b += a.b_iso
            occ += a.occ
            xyz += a.pos.x + a.pos.y + a.pos.z
    return [b, occ, xyz]


def seq_numbers(poly):
    """The numbers foldcorpus gives contacts (structure.SeqNumbers): the
    label_seq_ids (None as 0); or, when no residue has one, positions from
    1, consecutive residues with the same seq id (number, insertion code
    without case) sharing one."""
    if any(r.label_seq is not None for r in poly):
        return [r.label_seq if r.label_seq is not None else 0 for r in poly]
    out, n, prev = [], 0, None
    for r in poly:
        key = (r.seqid.num, ord(r.seqid.icode) | 0x20)
        if key != prev:
            n += 1
        prev = key
        out.append(n)
    return out


def summarize(path):
    out = {"file": path}
    try:
        st = gemmi.read_structure(path)
        st.setup_entities()
    except Exception as e:  # the reader's own failure
        out["error"] = str(e)
        return out
    out["name"] = st.name
    out["models"] = []
    for model in st:
        chains = []
        for ch in model:
            poly = ch.get_polymer()
            chains.append({
                "name": ch.name,
                "n_residues": len(ch),
                "n_polymer_residues": len(poly),
                "n_atoms": sum(len(r) for r in ch),
                "sums": atom_sums(ch),
                "sequence": "".join(one_letter(r.name) for r in poly),
                "label_seqs": [r.label_seq for r in ch],
                "atoms": [[a.name, a.altloc.strip("\x00"), a.element.name.upper(),
                           a.pos.x, a.pos.y, a.pos.z, a.occ, a.b_iso] for r in ch for a in r],
                "residues": ["%s %s%s %s %s %d" % (r.name, r.seqid.num if r.seqid.num is not None else "?",
                                                  r.seqid.icode.strip(), r.subchain, etype(r), len(r))
                             for r in ch],
            })
        out["models"].append({"name": model.name, "chains": chains})
    if len(st) == 0 or len(st[0]) == 0:
        return out
    m = st[0]
    pc = next((c for c in m if c.name == "A"), m[0])
    poly = pc.get_polymer()
    bs = [a.b_iso for a in (first_atom(r, "CA") for r in poly) if a is not None]
    out["plddt_mean"] = sum(bs) / len(bs) if bs else None
    reps = []
    for r, num in zip(poly, seq_numbers(poly)):
        a = first_atom(r, "CA" if r.name == "GLY" else "CB")
        if a is not None:
            reps.append((num, a.pos))
    contacts = []
    for i in range(len(reps)):
        for j in range(i + 1, len(reps)):
            (si, p), (sj, q) = reps[i], reps[j]
            if abs(si - sj) < 6:
                continue
            d = math.sqrt((p.x - q.x) ** 2 + (p.y - q.y) ** 2 + (p.z - q.z) ** 2)
            if d < 8.0:
                contacts.append([min(si, sj), max(si, sj), d])
    contacts.sort(key=lambda c: (c[0], c[1], c[2]))
    out["contacts"] = contacts
    return out


def cadv2(ref, path):
    try:
        parsed = ref["read"](path)
    except Exception as e:
        return {"outcome": "error", "error": str(e)}
    doc = ref["generate"](parsed[0], *parsed[1:], 70.0)
    if doc is None:
        return {"outcome": "filtered", "n_residues": len(parsed[1])}
    return {"outcome": "document", "n_residues": len(parsed[1]),
            "sha1": hashlib.sha1(doc.encode()).hexdigest()}


def main():
    ref = load_reference(sys.argv[1])
    first = load_reference(sys.argv[1])
    first["gemmi"] = FirstChainGemmi()
    for line in sys.stdin:
        path = line.rstrip("\n")
        if not path:
            continue
        out = summarize(path)
        out["cadv2"] = cadv2(ref, path)
        out["cadv2_first_chain"] = cadv2(first, path)
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


main()
