#!/usr/bin/python3
"""Generates PyTorch reference data for torch_parity_test.cpp. Reads a JSON list of cases
({op, inputs: [{shape, lo, hi, name}], kwargs, list_input}) and writes, for case i, the inputs
in_<i>_<j>.npy and torch's result out_<i>.npy into the output directory. Ops resolve in
torch.nn.functional first, then torch, with graft's attribute names as keyword arguments
(they are torch's)."""
import json
import sys
import warnings

import numpy as np
import torch
import torch.nn.functional as F


def main():
    warnings.filterwarnings("ignore")  # F.sigmoid / F.tanh deprecation notes
    cases = json.load(open(sys.argv[1]))
    out = sys.argv[2]
    gen = torch.Generator().manual_seed(1234)
    for i, case in enumerate(cases):
        tensors = []
        kwargs = dict(case.get("kwargs", {}))
        for j, spec in enumerate(case["inputs"]):
            lo, hi = spec.get("lo", -2.0), spec.get("hi", 2.0)
            t = torch.rand(spec["shape"], generator=gen) * (hi - lo) + lo
            np.save(f"{out}/in_{i}_{j}.npy", t.numpy())
            if "name" in spec:
                kwargs[spec["name"]] = t  # passed by keyword (layer_norm's weight, bias)
            else:
                tensors.append(t)
        op = case["op"]
        fn = getattr(F, op, None) or getattr(torch, op, None)
        if op == "contiguous":
            fn = lambda x: x.contiguous()
        args = [tensors] if case.get("list_input") else tensors
        with torch.no_grad():
            result = fn(*args, **kwargs)
        np.save(f"{out}/out_{i}.npy", result.contiguous().numpy())


if __name__ == "__main__":
    main()
