# Independent qc.py-style leakage figures over golden deduped.jsonl, per cut.
# usage: python3 golden_dedup_leak.py GOLDEN_DIR EVALID...
import json, sys
d = sys.argv[1]; ev = set(sys.argv[2:])
docs = [json.loads(l) for l in open(d + "/pdb-curation.jsonl")]
seqs = {x["resolved_seq_sha1"] for e in docs for x in (e["documents"] or []) if x["subset"] == "monomer" and x["pdb_id"] in ev}
evcl = {}
for n, l in enumerate(open(d + "/clusters-by-entity-40.txt").read().split("\n")):
    for m in l.split():
        if m.split("_")[0].lower() in ev:
            evcl.setdefault(n, set()).add(m.split("_")[0].lower())
rows = [json.loads(l) for l in open(d + "/deduped.jsonl")]
for cut in ["deduped", "deduped_monomers"]:
    r = [x for x in rows if x["cut"] == cut]
    hom = [x for x in r if any(c in evcl for c in x["cluster_ids"])]
    cov = {p for x in hom for c in x["cluster_ids"] if c in evcl for p in evcl[c]}
    print(cut, "docs", len(r), "present", len({x["pdb_id"] for x in r} & ev), "exact", sum(x["resolved_seq_sha1"] in seqs for x in r),
          "homologous", len(hom), "covered", len(cov))
