"""contacts-and-distances-v2 in Python + gemmi 0.5.7: the baseline of
`foldcorpus bench docs` (a re-implementation of the reference generator
from ../shared/formats/contacts-and-distances-v2.md, run side by side).

usage: python3 cadv2_reference.py RESIDUE_PLDDT_MIN REPS FILE...
Prints one JSON object: files, documents, read_s and generate_s (process
CPU seconds over REPS passes) and the sha1 of each file's document (or
null) from the last pass.
"""
import hashlib
import json
import math
import random
import sys
import time

import gemmi

AA = {"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU",
      "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL"}
VOCAB = set("C CA CB CD CD1 CD2 CE CE1 CE2 CE3 CG CG1 CG2 CH2 CZ CZ2 CZ3 N ND1 ND2 NE NE1 "
            "NE2 NH1 NH2 NZ O OD1 OD2 OE1 OE2 OG OG1 OH SD SG OXT".split())
EDGES = [(70, "<plddt_70_75>"), (75, "<plddt_75_80>"), (80, "<plddt_80_85>"),
         (85, "<plddt_85_90>"), (90, "<plddt_90_95>")]


def read(path):
    st = gemmi.read_structure(path)
    st.setup_entities()
    if len(st) == 0:
        raise ValueError("no models in structure")
    chains = [ch for ch in st[0] if len(ch.get_polymer()) > 0]
    if not chains:
        raise ValueError("no polymer chain")
    if len(chains) > 1:
        raise ValueError("expected single polymer chain, found %d" % len(chains))
    names, atoms, rep, plddt = [], [], [], []
    for res in chains[0].get_polymer():
        names.append(res.name if res.name in AA else "UNK")
        kept, bs, cb, ca = [], [], None, None
        for a in res:
            if a.is_hydrogen():
                continue
            bs.append(a.b_iso)
            if a.name in VOCAB:
                p = (a.pos.x, a.pos.y, a.pos.z)
                kept.append((a.name, p))
                if a.name == "CB" and cb is None:
                    cb = p
                elif a.name == "CA" and ca is None:
                    ca = p
        atoms.append(kept)
        rep.append(ca if res.name == "GLY" or cb is None else cb)
        plddt.append(sum(bs) / len(bs) if bs else -math.inf)
    name = st.name
    for ext in (".cif", ".mmcif", ".pdb", ".ent"):
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    return name, names, atoms, rep, plddt, sum(plddt) / len(plddt)


def geom(rng, p):
    if p >= 1:
        return 1
    u = 1 - rng.random()
    return math.ceil(math.log(u) / math.log(1 - p))


def contacts(rep, plddt, pmin):
    pool = [i for i, r in enumerate(rep) if r is not None and plddt[i] >= pmin]
    grid = {}
    for i in pool:
        x, y, z = rep[i]
        grid.setdefault((math.floor(x / 8), math.floor(y / 8), math.floor(z / 8)), []).append(i)
    out = {i: [] for i in pool}
    for i in pool:
        x, y, z = rep[i]
        cx, cy, cz = math.floor(x / 8), math.floor(y / 8), math.floor(z / 8)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    for j in grid.get((cx + dx, cy + dy, cz + dz), ()):
                        if j - i >= 6:
                            a, b = rep[i], rep[j]
                            ex, ey, ez = a[0] - b[0], a[1] - b[1], a[2] - b[2]
                            if math.sqrt(ex * ex + ey * ey + ez * ez) <= 8.0:
                                out[i].append(j)
    lists = ([], [], [])
    for i in pool:
        for j in sorted(out[i]):
            lists[0 if j - i >= 24 else 1 if j - i >= 12 else 2].append((i, j))
    return lists


def generate(entry_id, names, atoms, rep, plddt, gplddt, pmin):
    n = len(names)
    if n < 2:
        return None
    rng = random.Random(int(hashlib.sha1(entry_id.encode()).hexdigest()[:8], 16))
    k1 = geom(rng, 0.13) if rng.random() < 0.75 else 0
    n_add = max(int(rng.uniform(-4, 4)), 0)
    runs = [geom(rng, 0.25) for _ in range(n_add)]
    lists = contacts(rep, plddt, pmin)
    available = 8192 - (5 + n + k1 + sum(runs))
    if available <= 0:
        return None
    counts = []
    for lst in lists:
        f = max(0, rng.uniform(-0.1, 0.2))
        counts.append(min(int(available * f) // 3, len(lst)))
    n_distance = (available - 3 * sum(counts)) // 6
    kinds = ("<long-range-contact>", "<medium-range-contact>", "<short-range-contact>")
    stmts = []
    for kind, lst, c in zip(kinds, lists, counts):
        if c > 0:
            stmts += [[kind, "<p%d>" % (i + 1), "<p%d>" % (j + 1)] for i, j in rng.sample(lst, c)]
    n_contacts = len(stmts)
    indices = [i for i in range(n) if atoms[i]]
    if len(indices) >= 2:
        for _ in range(n_distance):
            a, b = rng.sample(indices, 2)
            i, j = min(a, b), max(a, b)
            tries = 0
            while j - i <= 1 and tries < 10:
                a, b = rng.sample(indices, 2)
                i, j = min(a, b), max(a, b)
                tries += 1
            if j - i <= 1:
                continue
            an, ap = rng.choice(atoms[i])
            bn, bp = rng.choice(atoms[j])
            d = math.sqrt((ap[0] - bp[0]) ** 2 + (ap[1] - bp[1]) ** 2 + (ap[2] - bp[2]) ** 2)
            k = min(max(math.ceil(d / 0.5), 1), 64)
            stmts.append(["<distance>", "<p%d>" % (i + 1), "<p%d>" % (j + 1), "<%s>" % an, "<%s>" % bn,
                          "<d%.1f>" % (k * 0.5)])
    ranks = [rng.gauss(2.0, 1.0) for _ in range(n_contacts)]
    ranks += [rng.gauss(0.0, 1.0) for _ in range(len(stmts) - n_contacts)]
    order = sorted(range(len(stmts)), key=lambda s: -ranks[s])
    tok = "<plddt_lt70>" if gplddt < 70 else "<plddt_95_100>"
    for lo, t in EDGES:
        if lo <= gplddt < lo + 5:
            tok = t
    at_end = rng.random() < 0.5
    insert = -1 if at_end else rng.randint(0, len(stmts))
    slots = [0] * len(stmts)
    if stmts:
        if k1 > 0:
            slots[0] += k1
        for run in runs:
            slots[rng.randint(0, len(stmts) - 1)] += run
    out = ["<contacts-and-distances-v2>", "<begin_sequence>"] + ["<%s>" % r for r in names]
    out.append("<begin_statements>")
    for k, s in enumerate(order):
        out += ["<think>"] * slots[k]
        if insert == k:
            out.append(tok)
        out += stmts[s]
    if not stmts and k1 > 0:
        out += ["<think>"] * k1
    if insert >= len(stmts):
        out.append(tok)
    if at_end:
        out.append(tok)
    out.append("<end>")
    return " ".join(out)


def main():
    pmin, reps, files = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    read_s = gen_s = 0.0
    sums = []
    for _ in range(reps):
        sums = []
        for path in files:
            t0 = time.process_time()
            try:
                parsed = read(path)
            except Exception:
                read_s += time.process_time() - t0
                sums.append(None)
                continue
            t1 = time.process_time()
            doc = generate(parsed[0], *parsed[1:], pmin)
            t2 = time.process_time()
            read_s, gen_s = read_s + t1 - t0, gen_s + t2 - t1
            sums.append(hashlib.sha1(doc.encode()).hexdigest() if doc is not None else None)
    json.dump({"files": len(files), "documents": sum(s is not None for s in sums), "reps": reps,
               "read_s": read_s, "generate_s": gen_s, "sha1": sums}, sys.stdout)


main()
