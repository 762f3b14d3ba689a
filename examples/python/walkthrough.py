#!/usr/bin/python3
"""The walkthrough of examples/README.md, from Python: check, test and verify a rule, apply it
with the standard library to a PyTorch model, compare with PyTorch, benchmark, go back to
torch.fx, and run the result as a drop-in nn.Module.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/walkthrough.py [--out out/python]

Each step prints what it found; the script stops with an AssertionError if a step is wrong.
"""
import argparse
import os
import sys

import torch

import graft
import graft.fx
import graft.testing
import graft.torch

HERE = os.path.dirname(os.path.abspath(__file__))
MY_RULES = os.path.join(HERE, "..", "rules", "my_fusion.rules")
sys.path.insert(0, os.path.join(HERE, "..", "models"))
from hswish_net import make_net  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="out/python", help="where the exported models go")
    args = parser.parse_args()

    # 1-4. Check the rule file, run its tests and verify its rules (rewrite check/test/verify).
    rules = graft.Rules.load(MY_RULES, graft.torch.standard_rules_path())
    print(f"loaded {rules!r}")
    for outcome in graft.testing.assert_tests_pass(MY_RULES):
        print(outcome.report.splitlines()[0])
    for outcome in graft.testing.assert_verified(MY_RULES):
        print(outcome.report.splitlines()[0])

    # 5. Export a PyTorch model with the pattern; give its batch norm real statistics.
    torch.manual_seed(0)
    net = make_net().eval()
    net.bn.running_mean.uniform_(-1, 1)
    net.bn.running_var.uniform_(0.5, 2)
    x = torch.rand(4, 3, 32, 32) * 2 - 1
    model = graft.fx.export(net, (x,), os.path.join(args.out, "hswish_net"))
    print(f"exported {model!r}")

    # 6. Rewrite: hardswish_from_hardsigmoid, then the standard library's folding and fusion.
    result = model.rewrite(rules, stats=True)
    fired = {rule: s["applied"] for rule, s in result.stats.items() if s["applied"]}
    print(f"rewrote: {fired}")
    assert result.model.op_counts() == {"conv2d_post": 1, "adaptive_avg_pool2d": 1,
                                        "flatten": 1, "linear": 1}, result.model.op_counts()
    result.model.save(os.path.join(args.out, "hswish_net_fused", "model.json"))

    # 7. Run on graft's runtime and compare with PyTorch on the same weights and input.
    with torch.no_grad():
        want = net(x)
    got = graft.compile(result.model)(x)
    error = float((got - want).abs().max() / want.abs().max())
    print(f"graft vs PyTorch: error relative to the largest output {error:.2e}")
    assert error < 1e-5

    # 8. Benchmark before and after (this process, median of 20 runs).
    before = graft.compile(model).bench(x)["median_ms"]
    after = graft.compile(result.model).bench(x)["median_ms"]
    print(f"median latency: {before:.3f} ms before, {after:.3f} ms after rewriting")

    # 9. Back to PyTorch: a GraphModule with the folded weights, which TorchScript accepts.
    gm = graft.fx.to_graph_module(result.model)
    scripted = torch.jit.script(gm)
    with torch.no_grad():
        assert float((scripted(x) - want).abs().max() / want.abs().max()) < 1e-5
    print(f"to_graph_module: {len(gm.state_dict())} tensors in its state_dict, scripted")

    # 10. Or keep the nn.Module interface and run on graft.
    fast = graft.torch.optimize(net, (x,), rules=[MY_RULES, "std"])
    with torch.no_grad():
        assert float((fast(x) - want).abs().max() / want.abs().max()) < 1e-5
    print(f"graft.torch.optimize: {fast.model!r}")


if __name__ == "__main__":
    main()
