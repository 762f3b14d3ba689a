"""graft.compile: numpy and torch in and out, shapes compiled on demand, errors raised."""
import numpy as np
import pytest

import graft


def test_numpy_in_numpy_out_and_one_compile_per_shape(tiny_cnn):
    model = graft.load(tiny_cnn)
    run = graft.compile(model, threads=1)
    x1 = np.random.default_rng(0).uniform(-1, 1, (1, 3, 32, 32)).astype(np.float32)
    x2 = np.concatenate([x1, x1 * 0.5])
    y1 = run(x1)
    y2 = run(x2)
    assert isinstance(y1, np.ndarray)
    assert y1.shape == (1, 10) and y2.shape == (2, 10)
    np.testing.assert_allclose(y2[0], y1[0], rtol=1e-5, atol=1e-6)  # same image, same logits
    assert not np.allclose(y2[1], y1[0])
    assert len(run._compiled) == 2
    run(x1)
    assert len(run._compiled) == 2


def test_torch_tensors_in_give_torch_tensors_out_matching_pytorch(tiny_cnn):
    torch = pytest.importorskip("torch")
    model = graft.load(tiny_cnn)
    x = torch.rand(2, 3, 32, 32) * 2 - 1
    y = graft.compile(model)(x)
    assert isinstance(y, torch.Tensor)
    assert y.shape == (2, 10)
    # the same weights through the reference interpreter of `rewrite run --reference` are the
    # CLI's concern; here the fused model must agree with the plain one
    fused = model.rewrite(graft.Rules.load(tiny_cnn.parents[2] / "rules" / "fuse.rules")).model
    z = graft.compile(fused)(x)
    assert float((z - y).abs().max()) <= 1e-4 * float(y.abs().max())


def test_outputs_outlive_the_executable(tiny_cnn):
    model = graft.load(tiny_cnn)
    x = np.ones((1, 3, 32, 32), np.float32)
    y = graft.compile(model)(x)
    import gc
    gc.collect()
    expected = graft.compile(model)(x)
    np.testing.assert_array_equal(y, expected)


def test_bad_inputs_raise_run_error(tiny_cnn):
    run = graft.compile(graft.load(tiny_cnn))
    with pytest.raises(graft.RunError, match="1 inputs"):
        run()
    with pytest.raises(graft.RunError, match="dtype"):
        run(np.ones((1, 3, 32, 32), np.float64))
    with pytest.raises(graft.RunError):
        run(np.ones((1, 4, 32, 32), np.float32))  # 4 channels: the conv expects 3


def test_non_contiguous_inputs_are_read_correctly(tiny_cnn):
    run = graft.compile(graft.load(tiny_cnn))
    x = np.random.default_rng(2).uniform(-1, 1, (1, 32, 32, 3)).astype(np.float32)
    transposed = x.transpose(0, 3, 1, 2)  # a view, not C-contiguous
    np.testing.assert_array_equal(run(transposed), run(np.ascontiguousarray(transposed)))


def test_bench_and_profile_report_times(tiny_cnn):
    run = graft.compile(graft.load(tiny_cnn), threads=1)
    stats = run.bench(iterations=3, warmup=1)
    assert 0 < stats["min_ms"] <= stats["median_ms"] <= stats["p90_ms"]
    rows = run.profile()
    assert rows and all(ms >= 0 for *_rest, ms in rows)
    assert any(op == "conv2d" for _name, op, _impl, _ms in rows)


def test_profile_is_the_cli_table_and_sums_by_op(tiny_cnn):
    run = graft.compile(graft.load(tiny_cnn), threads=1)
    profile = run.profile(iterations=2)
    assert [r.ms for r in profile] == sorted((r.ms for r in profile), reverse=True)
    table = str(profile).splitlines()
    assert table[0].split()[:4] == ["ms/run", "%", "node", "op"]
    assert len(table) == len(profile) + 1
    assert any(r.op == "conv2d" and r.node in table[i + 1] for i, r in enumerate(profile))
    by_op = dict((op, ms) for op, ms, _steps in profile.by_op())
    assert abs(sum(by_op.values()) - profile.total_ms()) < 1e-9
    assert by_op["conv2d"] == sum(r.ms for r in profile if r.op == "conv2d")


class _DLPackOnly:
    """An array that only speaks DLPack (as a JAX or TensorFlow CPU array would)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_inputs_are_read_without_numpy(tiny_cnn):
    run = graft.compile(graft.load(tiny_cnn), threads=1)
    x = np.random.default_rng(3).uniform(-1, 1, (1, 3, 32, 32)).astype(np.float32)
    np.testing.assert_array_equal(run(_DLPackOnly(x)), run(x))
