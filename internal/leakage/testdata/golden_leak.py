# Independent computation of exp222 qc.py's leakage figures over the golden jsonl.
# usage: python3 golden_leak.py GOLDEN_DIR EVALID...
import json, sys, hashlib
d = sys.argv[1]; ev = set(sys.argv[2:])
docs = []
for line in open(d + "/pdb-curation.jsonl"):
    e = json.loads(line)
    docs += e["documents"] or []
lines = open(d + "/clusters-by-entity-40.txt").read().split("\n")
evcl = {}
for n, l in enumerate(lines):
    for m in l.split():
        if m.split("_")[0].lower() in ev:
            evcl.setdefault(n, set()).add(m.split("_")[0].lower())
seqs = {x["resolved_seq_sha1"] for x in docs if x["subset"] == "monomer" and x["pdb_id"] in ev}
for name, sub in [("all", None), ("monomers", "monomer"), ("multimers", "multimer")]:
    rows = [x for x in docs if sub is None or x["subset"] == sub]
    exact = sum(1 for x in rows if x["resolved_seq_sha1"] in seqs)
    hom = [x for x in rows if any(c in evcl for c in x["cluster_ids"])]
    cov = set().union(*[evcl[c] for x in hom for c in x["cluster_ids"] if c in evcl]) if hom else set()
    present = {x["pdb_id"] for x in rows} & ev
    print(name, "docs", len(rows), "present", len(present), "exact", exact, "homologous", len(hom),
          "clustered", len(set().union(*evcl.values())) if evcl else 0, "covered", len(cov))
