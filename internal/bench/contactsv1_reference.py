"""contacts-v1 in Python: the side-by-side baseline of
`foldcorpus bench docs --format contacts-v1` (a re-implementation of the
reference generator from its SPEC.md, run on the same analysis records).

usage: python3 contactsv1_reference.py THINK MIN_SEQ_SEP MIN_DEGREE CONTEXT REPS RECORDS.jsonl
Prints one JSON object: files, reps, read_s (json.loads of the records) and
generate_s (process CPU seconds over REPS passes), and the sha1 of each
record's document (or null when filtered) from the last pass.
"""
import hashlib
import json
import math
import random
import sys
import time

RING = 2000
CANON = {aa: aa for aa in "ALA ARG ASN ASP CYS GLN GLU GLY HIS ILE LEU LYS MET PHE PRO SER THR TRP TYR VAL UNK".split()}
CANON.update({"HSD": "HIS", "HSE": "HIS", "HSC": "HIS", "HSP": "HIS", "HIP": "HIS", "MSE": "MET",
              "CSO": "CYS", "SEC": "CYS", "SEP": "SER", "TPO": "THR", "PTR": "TYR"})


def geometric(rng, p):
    return int(math.ceil(math.log(1.0 - rng.random()) / math.log(1.0 - p)))


def build(rec, think, min_sep, min_deg, context):
    names, chains = rec["residue_resname"], rec["residue_chain"]
    n = len(names)
    segs = []  # [chain, start, stop]
    for k, c in enumerate(chains):
        if segs and segs[-1][0] == c:
            segs[-1][2] = k + 1
        else:
            segs.append([c, k, k + 1])
    nchains = len(segs)
    if n < 2 or n > RING or (nchains > 1 and n + nchains > RING):
        return None
    fixed = 4 + 2 * n + 4 * nchains
    if fixed > context:
        return None
    rng = random.Random(int(hashlib.sha1(rec["entry_id"].encode()).hexdigest()[:8], 16))
    initial, runs = 0, []
    if think:
        if rng.random() < 0.75:
            initial = geometric(rng, 0.13)
        runs = [geometric(rng, 0.25) for _ in range(max(int(rng.uniform(-4.0, 4.0)), 0))]
    gaps = [0]
    order = [0]
    if nchains > 1:
        order = list(range(nchains))
        rng.shuffle(order)
        free = RING - n
        cuts = sorted(rng.sample(range(1, free), nchains - 1))
        gaps = [b - a for a, b in zip([0] + cuts, cuts + [free])]
    start = rng.randrange(RING)
    nterm = [0] * nchains
    p = start
    for g, c in enumerate(order):
        nterm[c] = p % RING
        p += segs[c][2] - segs[c][1] + gaps[g]
    pos, chain_of = [0] * n, [0] * n
    for c, (_, a, b) in enumerate(segs):
        for k in range(a, b):
            pos[k], chain_of[k] = (nterm[c] + k - a) % RING, c
    stmts = [("<p%d>" % pos[k], "<%s>" % CANON.get(names[k].strip().upper(), "UNK")) for k in range(n)]
    for c, (_, a, b) in enumerate(segs):
        stmts.append(("<n-term>", "<p%d>" % pos[a]))
        stmts.append(("<c-term>", "<p%d>" % pos[b - 1]))
    rng.shuffle(stmts)
    contacts = [(i, j, d) for i, j, d in zip(rec["contact_seq_i"], rec["contact_seq_j"], rec["contact_degree"])
                if chain_of[i] != chain_of[j] or j - i >= min_sep]
    passing = sorted((c for c in contacts if c[2] >= min_deg), key=lambda c: -c[2])
    budget = max(0, (context - fixed - initial - sum(runs)) // 3)
    selected = passing[:budget]
    rng.shuffle(selected)
    flips = [rng.random() < 0.5 for _ in selected]
    slots = [0] * len(selected)
    if selected:
        for length in runs:
            slots[rng.randrange(len(selected))] += length
    tokens = ["<contacts-v1>", "<begin_sequence>"]
    for s in stmts:
        tokens.extend(s)
    tokens.append("<begin_statements>")
    tokens.extend(["<think>"] * initial)
    for (i, j, _), flip, think_run in zip(selected, flips, slots):
        tokens.extend(["<think>"] * think_run)
        a, b = (pos[j], pos[i]) if flip else (pos[i], pos[j])
        tokens += ["<contact>", "<p%d>" % a, "<p%d>" % b]
    tokens.append("<end>")
    return " ".join(tokens)


def main():
    think = sys.argv[1] == "true"
    min_sep, min_deg, context = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    reps = int(sys.argv[5])
    with open(sys.argv[6]) as f:
        lines = [line for line in f if line.strip()]
    read_s = gen_s = 0.0
    sums = []
    for _ in range(reps):
        t0 = time.process_time()
        recs = [json.loads(line) for line in lines]
        t1 = time.process_time()
        docs = [build(r, think, min_sep, min_deg, context) for r in recs]
        t2 = time.process_time()
        read_s += t1 - t0
        gen_s += t2 - t1
        sums = [hashlib.sha1(d.encode()).hexdigest() if d is not None else None for d in docs]
    print(json.dumps({"files": len(lines), "reps": reps, "read_s": read_s, "generate_s": gen_s, "sha1": sums}))


if __name__ == "__main__":
    main()
