"""CPython oracle for pyrandom's tests.

Reads a JSON list of cases from stdin; each case is {"kind": "int"|"str",
"seed": "...", "ops": [[name, args...], ...]}. Writes, for each case, the
list of results of running the ops on random.Random(seed), as strings
(floats as float.hex, ints in decimal, lists space-separated).
"""
import json
import random
import sys


def fmt(v):
    if isinstance(v, float):
        return v.hex()
    if isinstance(v, list):
        return " ".join(str(x) for x in v)
    return str(v)


def run(case):
    seed = int(case["seed"]) if case["kind"] == "int" else case["seed"]
    r = random.Random(seed)
    out = []
    for op in case["ops"]:
        name, args = op[0], op[1:]
        if name == "random":
            v = r.random()
        elif name == "getrandbits":
            v = r.getrandbits(args[0])
        elif name == "randbelow":
            v = r._randbelow(args[0])
        elif name == "randint":
            v = r.randint(args[0], args[1])
        elif name == "randrange":
            v = r.randrange(args[0], args[1], args[2])
        elif name == "uniform":
            v = r.uniform(args[0], args[1])
        elif name == "gauss":
            v = r.gauss(args[0], args[1])
        elif name == "gausses":
            v = [r.gauss(args[1], args[2]).hex() for _ in range(args[0])]
        elif name == "choice":
            v = r.choice(list(range(args[0])))
        elif name == "shuffle":
            v = list(range(args[0]))
            r.shuffle(v)
        elif name in ("sample", "sampleidx"):
            v = r.sample(list(range(args[0])), args[1])
        elif name == "sample2":
            v = r.sample(range(args[0]), 2)
        else:
            raise ValueError("unknown op %r" % name)
        out.append(fmt(v))
    return out


json.dump([run(c) for c in json.load(sys.stdin)], sys.stdout)
