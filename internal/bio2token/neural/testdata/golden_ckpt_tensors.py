# Writes golden_ckpt_tensors.json: for every tensor of the golden bio2token
# checkpoint (../shared/corpus/golden/bio2token/bio2token-random-seed7.ckpt),
# as PyTorch itself reads it: its shape, the float64 sum of its values, and
# its values at three row-major positions (first, middle, last). The loader
# test compares LoadCheckpoint's tensors with these. Run with Debian's
# python3-torch:  /usr/bin/python3 golden_ckpt_tensors.py CKPT > golden_ckpt_tensors.json
import json, sys
import torch

sd = torch.load(sys.argv[1], map_location="cpu")["state_dict"]
out = {}
for k, v in sd.items():
    flat = v.detach().reshape(-1)
    n = flat.numel()
    pos = [0, n // 2, n - 1]
    out[k] = {
        "shape": list(v.shape),
        "sum": float(flat.double().sum()),
        "at": pos,
        "values": [float(flat[p]) for p in pos],
    }
json.dump(out, sys.stdout, indent=0, sort_keys=True)
print()
