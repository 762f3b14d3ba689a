#!/usr/bin/python3
"""graft's main job on a million-node model next to Python's json.load of the same file, in one run.

Writes a model.json of N blocks of conv2d -> batch_norm(training=False) -> relu chained on one
input [1, 8, 8, 8] (the graph bench/rewrite_bench.cpp builds: conv weight [8, 8, 3, 3], padding
1, no bias, batch-norm parameters [8], every weight a get_attr node of its own reading one of
five tensors of a small safetensors file), saved as graft saves a model except that get_attr
nodes carry no meta. 125,000 blocks are 1,000,002 nodes, about 106 MB. Then, taking turns,
--repeat times each:

  graft    rewrite --rules examples/rules/fuse.rules chain.json -o out.json: load, verify, fold
           every batch_norm into its convolution (125,000 rewrites, 313 MB of new weights),
           verify, save (model.json and safetensors, fsync'd);
  copy     rewrite chain.json -o out.json: the same without rules (load, verify, save), what
           the loader and the saver take;
  python   /usr/bin/python3 -c 'json.load(open("chain.json"))'.

Each child is timed by the wall clock and by its CPU time (user + system, from wait4), which a
machine shared with other work disturbs much less; its peak RSS comes from the same call, made
by a small process that starts it (a child's peak would otherwise count this script's memory).
Prints the medians, graft's over Python's, and graft's peak RSS over the size of model.json;
--json FILE also writes them. Run from the repository root after building:

  /usr/bin/python3 bench/end_to_end_bench.py [--blocks 125000] [--repeat 3] [--dir DIR]
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

TENSORS = {"w": [8, 8, 3, 3], "mean": [8], "var": [8], "gamma": [8], "beta": [8]}
ACTIVATION = {"shape": [1, 8, 8, 8], "dtype": "float32"}


def write_weights(path):
    header, data = {}, b""
    for name in sorted(TENSORS):
        count = 1
        for d in TENSORS[name]:
            count *= d
        values = [0.5 + (i % 7) * 0.01 for i in range(count)]  # positive: var takes rsqrt
        header[name] = {"dtype": "F32", "shape": TENSORS[name],
                        "data_offsets": [len(data), len(data) + 4 * count]}
        data += struct.pack(f"<{count}f", *values)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def write_chain(directory, blocks):
    """chain.json and chain.safetensors in `directory`; returns the path of chain.json."""
    write_weights(os.path.join(directory, "chain.safetensors"))

    def line(node):
        return "    " + json.dumps(node, separators=(",", ":"))

    lines = [line({"name": "x", "op": "placeholder", "target": "x", "meta": ACTIVATION})]
    previous = "x"
    for b in range(blocks):
        lines += [line({"name": f"{t}_{b}", "op": "get_attr", "target": t}) for t in TENSORS]
        lines.append(line({"name": f"conv_{b}", "op": "call_function", "target": "conv2d",
                           "args": [{"node": previous}, {"node": f"w_{b}"}],
                           "kwargs": {"padding": [1, 1]}, "meta": ACTIVATION}))
        lines.append(line({"name": f"bn_{b}", "op": "call_function", "target": "batch_norm",
                           "args": [{"node": f"conv_{b}"}] + [
                               {"node": f"{t}_{b}"} for t in ("mean", "var", "gamma", "beta")],
                           "meta": ACTIVATION}))
        lines.append(line({"name": f"relu_{b}", "op": "call_function", "target": "relu",
                           "args": [{"node": f"bn_{b}"}], "meta": ACTIVATION}))
        previous = f"relu_{b}"
    lines.append(line({"name": "output", "op": "output", "target": "output",
                       "args": [[{"node": previous}]]}))
    path = os.path.join(directory, "chain.json")
    with open(path, "w") as f:
        f.write('{\n  "format": "graft.model",\n  "version": 1,\n'
                '  "weights": "chain.safetensors",\n  "nodes": [\n')
        f.write(",\n".join(lines) + "\n  ]\n}\n")
    return path, len(lines)


# Starts the measured command from a small process of its own: a child's peak RSS counts the
# memory of the process it was forked from (Linux keeps the largest RSS across exec), and this
# script holds hundreds of megabytes once it has written the chain.
SPAWNER = """
import json, os, sys
pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ,
                      file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"code": os.waitstatus_to_exitcode(status),
                  "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss * 1024}))
"""


def measure(cmd):
    """Wall seconds, CPU seconds and peak RSS (bytes) of one run of `cmd`."""
    start = time.perf_counter()
    spawner = subprocess.run([sys.executable, "-c", SPAWNER, *cmd], capture_output=True,
                             text=True)
    wall = time.perf_counter() - start
    if spawner.returncode != 0:
        sys.exit(f"{' '.join(cmd)} could not be run:\n{spawner.stderr}")
    child = json.loads(spawner.stdout.splitlines()[-1])
    if child["code"] != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{spawner.stderr}")
    return {"wall": wall, "cpu": child["cpu"], "rss": child["rss"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=125_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--binary", default="build/bin/rewrite")
    parser.add_argument("--rules", default="examples/rules/fuse.rules")
    parser.add_argument("--dir", help="where to write the model (default: a temporary directory)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: cmake --build build --target rewrite")
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.dir or scratch
        os.makedirs(directory, exist_ok=True)
        model, nodes = write_chain(directory, args.blocks)
        size = os.path.getsize(model)
        out = os.path.join(directory, "out.json")
        graft_cmd = [args.binary, "--rules", args.rules, model, "-o", out]
        copy_cmd = [args.binary, model, "-o", out]
        python_cmd = ["/usr/bin/python3", "-c", "import json, sys; json.load(open(sys.argv[1]))",
                      model]
        runs = {"graft": [], "copy": [], "python": []}
        for _ in range(args.repeat):
            runs["graft"].append(measure(graft_cmd))
            runs["copy"].append(measure(copy_cmd))
            runs["python"].append(measure(python_cmd))
        median = {side: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "rss")}
                  for side, rs in runs.items()}
    g, c, p = median["graft"], median["copy"], median["python"]
    figures = {"nodes": nodes, "model_json_bytes": size, "repeat": args.repeat, "median": median,
               "wall_ratio": g["wall"] / p["wall"], "cpu_ratio": g["cpu"] / p["cpu"],
               "graft_rss_over_file": g["rss"] / size, "copy_wall_ratio": c["wall"] / p["wall"],
               "copy_cpu_ratio": c["cpu"] / p["cpu"], "copy_rss_over_file": c["rss"] / size,
               "runs": runs}
    print(f"{nodes:,} nodes, model.json {size / 1e6:.1f} MB; median of {args.repeat} runs each\n")
    print(f"{'':<34} {'wall s':>8} {'cpu s':>8} {'peak RSS MB':>12}")
    print(f"{'graft rewrite --rules fuse.rules':<34} {g['wall']:>8.2f} {g['cpu']:>8.2f} "
          f"{g['rss'] / 1e6:>12.0f}")
    print(f"{'graft rewrite (no rules)':<34} {c['wall']:>8.2f} {c['cpu']:>8.2f} "
          f"{c['rss'] / 1e6:>12.0f}")
    print(f"{'python3 json.load':<34} {p['wall']:>8.2f} {p['cpu']:>8.2f} {p['rss'] / 1e6:>12.0f}")
    print(f"\ngraft / json.load: wall {figures['wall_ratio']:.2f}, "
          f"cpu {figures['cpu_ratio']:.2f}; "
          f"graft peak RSS / model.json size: {figures['graft_rss_over_file']:.1f}")
    print(f"no rules / json.load: wall {figures['copy_wall_ratio']:.2f}, "
          f"cpu {figures['copy_cpu_ratio']:.2f}; "
          f"peak RSS / size {figures['copy_rss_over_file']:.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
