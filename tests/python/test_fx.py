"""graft.fx and graft.torch: export, rewrite, back to a torch.fx.GraphModule that PyTorch can
script, trace and save; and the drop-in module on graft's runtime. Numbers are compared with
PyTorch eager on the same weights and inputs, relative to the output's largest magnitude, with
randomised batch-norm statistics so that folding them into the convolutions is really checked."""
import json

import pytest

torch = pytest.importorskip("torch")
import graft  # noqa: E402
import graft.fx  # noqa: E402
import graft.torch  # noqa: E402


class SmallNet(torch.nn.Module):
    """conv-bn-relu, a residual block, hardswish, pooling and a linear head: what rules/std.rules
    fuses (batch-norm folding, conv + activation + residual post-ops, linear + activation)."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1, bias=False),
                                        torch.nn.BatchNorm2d(8), torch.nn.ReLU())
        self.conv = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.head = torch.nn.Linear(8, 5)

    def forward(self, x):
        y = self.stem(x)
        y = torch.relu(self.bn(self.conv(y)) + y)
        y = torch.nn.functional.hardswish(y)
        y = torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        return torch.sigmoid(self.head(y) * 2.0)


def make_net(seed=0):
    torch.manual_seed(seed)
    net = SmallNet().eval()
    for m in net.modules():  # batch-norm statistics far from (0, 1), so folding shows
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-1, 1)
            m.running_var.uniform_(0.5, 2)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    return net


def relative_error(got, want):
    return float((got - want).abs().max()) / float(want.abs().max())


def test_export_rewrite_and_back_to_a_graph_module_computes_the_model(tmp_path):
    net = make_net()
    x = torch.rand(2, 3, 16, 16) * 2 - 1
    model = graft.fx.export(net, (x,), tmp_path / "net")
    assert (tmp_path / "net" / "model.json").exists()
    assert model.op_counts()["batch_norm"] == 2
    rules = graft.Rules.load(graft.torch.standard_rules_path())
    fused = model.rewrite(rules).model
    counts = fused.op_counts()
    assert "batch_norm" not in counts and "conv2d_post" in counts
    gm = graft.fx.to_graph_module(fused)
    assert isinstance(gm, torch.fx.GraphModule)
    with torch.no_grad():
        want = net(x)
        assert relative_error(gm(x), want) < 1e-5
        assert relative_error(graft.fx.to_graph_module(model)(x), want) < 1e-5
    # the folded weights are parameters, under the constants' names
    state = gm.state_dict()
    assert state and all(isinstance(v, torch.Tensor) for v in state.values())
    assert any(p.requires_grad for p in gm.parameters())
    # PyTorch's own tools accept it
    scripted = torch.jit.script(gm)
    traced = torch.jit.trace(gm, (x,))
    with torch.no_grad():
        assert relative_error(scripted(x), want) < 1e-5
        assert relative_error(traced(x), want) < 1e-5


def test_a_graph_module_can_be_fine_tuned():
    net = make_net(1)
    x = torch.rand(2, 3, 8, 8)
    gm = graft.fx.to_graph_module(graft.fx.export(net, (x,)))
    loss = gm(x).sum()
    loss.backward()
    assert any(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in gm.parameters())


def test_optimize_runs_on_graft_and_matches_eager_at_any_batch():
    net = make_net(2)
    fast = graft.torch.optimize(net, (torch.rand(1, 3, 16, 16),), threads=1)
    assert "conv2d_post" in fast.model.op_counts()
    with torch.no_grad():
        for batch in (1, 3):
            x = torch.rand(batch, 3, 16, 16) * 2 - 1
            y = fast(x)
            assert isinstance(y, torch.Tensor) and y.shape == (batch, 5)
            assert relative_error(y, net(x)) < 1e-4


def test_optimize_refuses_gradients():
    net = make_net(3)
    fast = graft.torch.optimize(net, (torch.rand(1, 3, 8, 8),), rules=None)
    x = torch.rand(1, 3, 8, 8, requires_grad=True)
    with pytest.raises(RuntimeError, match="inference only"):
        fast(x)
    with torch.no_grad():
        assert fast(x).shape == (1, 5)


def test_a_resnet18_round_trips_through_graft():
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    net = torchvision.models.resnet18(weights=None).eval()
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2)
    x = torch.rand(1, 3, 64, 64)
    fused = graft.fx.export(net, (x,)).rewrite(
        graft.Rules.load(graft.torch.standard_rules_path())).model
    gm = graft.fx.to_graph_module(fused)
    with torch.no_grad():
        want = net(x)
        assert relative_error(gm(x), want) < 1e-4
        assert relative_error(torch.jit.script(gm)(x), want) < 1e-4


def test_symbolic_reshape_sizes_become_sizes_of_the_input(tmp_path):
    # relu(x) for x: [N, T, 8], through [N*T, 8] and a reshape back to [N, T, 8]
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"format": "graft.model", "version": 1, "nodes": [
        {"name": "x", "op": "placeholder", "meta": {"shape": ["N", "T", 8], "dtype": "float32"}},
        {"name": "rows", "op": "call_function", "target": "flatten", "args": [{"node": "x"}, 0, 1]},
        {"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "rows"}]},
        {"name": "y", "op": "call_function", "target": "reshape",
         "args": [{"node": "r"}, ["N", "T", 8]]},
        {"name": "output", "op": "output", "args": [[{"node": "y"}]]}]}))
    model = graft.load(path)
    y = {n.name: n for n in model.nodes}["y"]
    assert y.symbols == ("shape",)
    assert y.kwargs["shape"] == ["N", "T", 8]
    assert y.shape == ("N", "T", 8)
    gm = graft.fx.to_graph_module(model)
    for n, t in ((2, 3), (3, 5)):
        x = torch.randn(n, t, 8)
        assert torch.equal(gm(x), torch.relu(x))


def test_sums_of_symbols_become_sums_of_sizes_of_the_input(tmp_path):
    # x[:, :T-1] + arange(0, 2*T-2, 2): T-1 values each
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"format": "graft.model", "version": 1, "nodes": [
        {"name": "x", "op": "placeholder", "meta": {"shape": ["N", "T"], "dtype": "float32"}},
        {"name": "pos", "op": "call_function", "target": "arange", "args": [0, "2*T-2", 2],
         "kwargs": {"dtype": "float32"}},
        {"name": "head", "op": "call_function", "target": "slice",
         "args": [{"node": "x"}], "kwargs": {"dim": 1, "end": "T-1"}},
        {"name": "y", "op": "call_function", "target": "add",
         "args": [{"node": "head"}, {"node": "pos"}]},
        {"name": "output", "op": "output", "args": [[{"node": "y"}]]}]}))
    model = graft.load(path)
    assert {n.name: n.symbols for n in model.nodes}["head"] == ("end",)
    gm = graft.fx.to_graph_module(model)
    for t in (3, 5):
        x = torch.rand(2, t)
        want = x[:, :t - 1] + torch.arange(0, 2 * t - 2, 2, dtype=torch.float32)
        assert torch.equal(gm(x), want)


def test_a_symbolic_slice_and_arange_become_sizes_of_the_input(tmp_path):
    # x[:, :T] + arange(T) of x: [N, T], with a 6-column buffer sliced to [:T] as well
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"format": "graft.model", "version": 1, "nodes": [
        {"name": "x", "op": "placeholder", "meta": {"shape": ["N", "T"], "dtype": "float32"}},
        {"name": "pos", "op": "call_function", "target": "arange", "args": [0, "T"],
         "kwargs": {"dtype": "float32"}},
        {"name": "head", "op": "call_function", "target": "slice",
         "args": [{"node": "x"}], "kwargs": {"dim": 1, "end": "T"}},
        {"name": "y", "op": "call_function", "target": "add",
         "args": [{"node": "head"}, {"node": "pos"}]},
        {"name": "output", "op": "output", "args": [[{"node": "y"}]]}]}))
    model = graft.load(path)
    assert {n.name: n.symbols for n in model.nodes}["head"] == ("end",)
    assert {n.name: n.kwargs for n in model.nodes}["pos"]["end"] == "T"
    gm = graft.fx.to_graph_module(model)
    for t in (3, 5):
        x = torch.rand(2, t)
        assert torch.equal(gm(x), x + torch.arange(t, dtype=torch.float32))
