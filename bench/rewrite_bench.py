#!/usr/bin/python3
"""graft's rewrite driver next to torch.fx's subgraph rewriter, on the same graphs, in one run.

Both sides get N blocks of conv2d -> batch_norm(training=False) -> relu (8 nodes a block: conv,
its weight, batch_norm, its 4 parameters, relu) and the conv-bn fold as their one rule:

  graft     build/bin/rewrite_bench (the rule read from examples/rules/fuse.rules), modes
            `fold` (the scale computed by the constant folder, as `rewrite` runs it) and
            `nofold` (the scale expression inserted as ops — exactly what replace_pattern does);
  torch.fx  torch.fx.subgraph_rewriter.replace_pattern with the same pattern and replacement,
            on a GraphModule traced from the same chain. Only replace_pattern is timed.

torch.fx grows faster than linearly, so it runs only up to --fx-max-nodes. Both sides are
timed by the wall clock and by the CPU time of the thread doing the work; ratios use CPU time,
which a busy machine disturbs much less. Prints a table and writes the figures as JSON
(--json FILE). Run from the repository root after building:

  /usr/bin/python3 bench/rewrite_bench.py [--sizes 10000,100000,1000000] [--fx-max-nodes 30000]
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

import torch
import torch.fx
import torch.nn.functional as F
from torch.fx import subgraph_rewriter


class Weights(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 8, 3, 3))
        for name in ("mean", "var", "gamma", "beta"):
            self.register_buffer(name, torch.rand(8) + 0.5)


def chain(blocks):
    """The graph rewrite_bench builds: one get_attr per use, calls written as the traced pattern."""
    g = torch.fx.Graph()
    x = g.placeholder("x")
    for _ in range(blocks):
        y = g.call_function(torch.conv2d, (x, g.get_attr("w"), None, 1, 1))
        mean, var, gamma, beta = (g.get_attr(n) for n in ("mean", "var", "gamma", "beta"))
        y = g.call_function(F.batch_norm, (y, mean, var),
                            {"weight": gamma, "bias": beta, "training": False, "momentum": 0.1,
                             "eps": 1e-5})
        x = g.call_function(torch.relu, (y,))
    g.output(x)
    return torch.fx.GraphModule(Weights(), g)


def pattern(x, w, mean, var, gamma, beta):
    y = torch.conv2d(x, w, None, 1, 1)
    return F.batch_norm(y, mean, var, gamma, beta, False, 0.1, 1e-5)


def replacement(x, w, mean, var, gamma, beta):
    scale = gamma * torch.rsqrt(var + 1e-5)
    return torch.conv2d(x, w * scale.reshape(-1, 1, 1, 1), beta - mean * scale, 1, 1)


def time_fx(nodes):
    blocks = max(1, (nodes - 2 + 7) // 8)
    gm = chain(blocks)
    count = len(gm.graph.nodes)
    start, cpu_start = time.perf_counter(), time.thread_time()
    matches = subgraph_rewriter.replace_pattern(gm, pattern, replacement)
    seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu_start
    if len(matches) != blocks:
        sys.exit(f"torch.fx replaced {len(matches)} of {blocks} blocks")
    return count, seconds, cpu


def run_graft(binary, sizes, repeat, budget):
    cmd = [binary, "--sizes", ",".join(map(str, sizes)), "--rules", "1,10,100", "--mode", "both",
           "--repeat", str(repeat), "--budget", str(budget), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--fx-max-nodes", type=int, default=30000,
                        help="largest graph torch.fx is run on (it needs minutes beyond)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="graft: at least this many runs per configuration, the best reported")
    parser.add_argument("--budget", type=float, default=3,
                        help="graft: more runs (up to 50) while a graph size took less than this (s)")
    parser.add_argument("--binary", default="build/bin/rewrite_bench")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: cmake --build build --target rewrite_bench")
    sizes = [int(s) for s in args.sizes.split(",")]
    torch.set_num_threads(1)
    # torch.fx's cycle check recurses once per node of the chain.
    sys.setrecursionlimit(10_000_000)
    threading.stack_size(1 << 30)

    graft = run_graft(args.binary, sizes, args.repeat, args.budget)
    runs = {(r["mode"], r["nodes"], r["rules"]): r for r in graft["runs"]}
    fx = {}

    def run_fx():
        for n in sizes:
            if n <= args.fx_max_nodes:
                fx[n] = time_fx(n)

    worker = threading.Thread(target=run_fx)  # a thread, for the big stack
    worker.start()
    worker.join()

    counts = sorted({r["runs"] for r in graft["runs"]})
    print(f"torch {torch.__version__}; graft rewrite_graph best of {counts[0]}–{counts[-1]} runs "
          f"(more for smaller graphs); one thread; CPU seconds (wall in the JSON)\n")
    print(f"{'nodes':>9} {'rules':>5} {'fold s':>9} {'nofold s':>9} {'nodes/s fold':>13} "
          f"{'t(N)/t(1) fold':>15} {'nofold':>7} {'torch.fx s':>11} {'fx/graft fold':>14} "
          f"{'fx/graft nofold':>16}")
    rows = []
    for (mode, nodes, rules), r in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][2])):
        if mode != "fold":
            continue
        nofold = runs[("nofold", nodes, rules)]
        one_fold, one_nofold = runs[("fold", nodes, 1)], runs[("nofold", nodes, 1)]
        row = {"nodes": nodes, "rules": rules,
               "fold_cpu_seconds": r["cpu_seconds"], "nofold_cpu_seconds": nofold["cpu_seconds"],
               "fold_wall_seconds": r["seconds"], "nofold_wall_seconds": nofold["seconds"],
               "nodes_per_cpu_s_fold": nodes / r["cpu_seconds"],
               "ratio_to_1_rule_fold": r["cpu_seconds"] / one_fold["cpu_seconds"],
               "ratio_to_1_rule_nofold": nofold["cpu_seconds"] / one_nofold["cpu_seconds"]}
        fx_cells = ["", "", ""]
        for fx_count, fx_wall, fx_cpu in fx.values():
            if rules == 1 and abs(fx_count - nodes) <= 8:
                row.update({"torch_fx_cpu_seconds": fx_cpu, "torch_fx_wall_seconds": fx_wall,
                            "torch_fx_over_graft_fold": fx_cpu / r["cpu_seconds"],
                            "torch_fx_over_graft_nofold": fx_cpu / nofold["cpu_seconds"]})
                fx_cells = [f"{fx_cpu:.3f}", f"{fx_cpu / r['cpu_seconds']:.0f}x",
                            f"{fx_cpu / nofold['cpu_seconds']:.0f}x"]
        rows.append(row)
        print(f"{nodes:>9} {rules:>5} {r['cpu_seconds']:>9.4f} {nofold['cpu_seconds']:>9.4f} "
              f"{row['nodes_per_cpu_s_fold']:>13.0f} {row['ratio_to_1_rule_fold']:>15.2f} "
              f"{row['ratio_to_1_rule_nofold']:>7.2f} {fx_cells[0]:>11} {fx_cells[1]:>14} "
              f"{fx_cells[2]:>16}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "rows": rows, "graft": graft}, f, indent=1)


if __name__ == "__main__":
    main()
