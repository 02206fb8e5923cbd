"""MarinFold's own contacts-and-coordinates-v1 / contacts-and-crops-v1
generator, run side by side with `foldcorpus bench docs` (the figures of
../shared/formats/contacts-and-coordinates-crops-notes.md section 10, taken
now on this machine).

usage: marinfold_coord_reference.py MARINFOLD_CHECKOUT crops|coords RECORDS REPS FILE...

The checkout is Open-Athena/MarinFold (its Apache-2.0 source, not copied
here). pyconfind is replaced by the ConFind records of RECORDS (the
confind-mini.jsonl of the corpus, keyed by file name): what `analyze`
returns is built before the clock starts, so the timed part is everything
of `generate_document(path)` but pyconfind itself: gemmi's read, the CA
mean, the reference's residue and contact lists, the heavy-atom walk and
`build_document`. Each file is timed REPS times in a row (process CPU) and
its least kept. Prints one JSON object: files and reps, the CPU seconds of
the read (`analyze_coordinates`) and generate (`_result_from_analyzed`)
stages summed over every timing, per_doc_s (the median over documents of
each one's least full time) and one sha1 (null: no document) per FILE.
"""

import hashlib
import importlib
import json
import os
import platform
import statistics
import sys
import time
import types
import warnings

src, fmt, records, reps, files = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]

# The packages' __init__ files import MarinFold's inference stack (torch and
# friends); the document-structure modules need none of it, so the
# packages are registered bare and only the submodules run.
pkgroot = os.path.join(src, "marinfold", "marinfold")
dsroot = os.path.join(pkgroot, "document_structures")
if not os.path.isdir(dsroot):
    sys.exit(f"{src}: not a MarinFold checkout (no marinfold/marinfold/document_structures)")
bare = [("marinfold", pkgroot), ("marinfold.document_structures", dsroot)]
bare += [
    ("marinfold.document_structures." + d, os.path.join(dsroot, d))
    for d in sorted(os.listdir(dsroot))
    if os.path.isfile(os.path.join(dsroot, d, "__init__.py"))
]
for name, path in bare:
    m = types.ModuleType(name)
    m.__path__ = [path]
    sys.modules[name] = m

replayed = {}


def analyze(structure, **_knobs):
    return replayed["analysis"]


sys.modules["pyconfind"] = types.SimpleNamespace(analyze=analyze)
pkg = {"crops": "contacts_and_crops_v1", "coords": "contacts_and_coordinates_v1"}[fmt]
gen = importlib.import_module(f"marinfold.document_structures.{pkg}.generate")
warnings.simplefilter("ignore")  # the reference warns for every filtered file


def analysis_of(rec):
    """pyconfind's answer as the reference reads it: positions, contacts."""
    pos = [
        types.SimpleNamespace(position=types.SimpleNamespace(chain=c, resnum=n, resname=rn))
        for rn, n, c in zip(rec["residue_resname"], rec["residue_resnum"], rec["residue_chain"])
    ]
    cs = [
        types.SimpleNamespace(pos_i=i, pos_j=j, degree=d)
        for i, j, d in zip(rec["contact_seq_i"], rec["contact_seq_j"], rec["contact_degree"])
    ]
    return types.SimpleNamespace(positions=pos, report=types.SimpleNamespace(contacts=cs))


recs = {}
with open(records) as fh:
    for line in fh:
        o = json.loads(line)
        if o.get("record"):
            recs[os.path.basename(o["file"])] = o["record"]

cfg = gen.GenerationConfig()
read_s = gen_s = 0.0
per_doc, sha1s = [], []
for path in files:
    rec = recs.get(os.path.basename(path))
    if rec is None:
        sha1s.append(None)
        continue
    best, res = None, None
    for _ in range(reps):
        replayed["analysis"] = analysis_of(rec)
        t0 = time.process_time()
        try:
            analyzed = gen.analyze_coordinates(path)
        except ValueError:
            analyzed = None
        t1 = time.process_time()
        res = None
        if analyzed is not None:
            res = gen._result_from_analyzed(analyzed, context_length=gen.CONTEXT_LENGTH, config=cfg)
        t2 = time.process_time()
        if res is not None:
            read_s += t1 - t0
            gen_s += t2 - t1
            best = t2 - t0 if best is None else min(best, t2 - t0)
    if res is None:
        sha1s.append(None)
        continue
    per_doc.append(best)
    sha1s.append(hashlib.sha1(res.document.encode()).hexdigest())

json.dump(
    {
        "files": len(per_doc),
        "reps": reps,
        "read_s": read_s,
        "generate_s": gen_s,
        "per_doc_s": statistics.median(per_doc) if per_doc else None,
        "sha1": sha1s,
        "runtime": " + ".join(
            ["Python " + platform.python_version()]
            + [m + " " + sys.modules[m].__version__ for m in ("gemmi", "numpy") if m in sys.modules]
        ),
    },
    sys.stdout,
)
