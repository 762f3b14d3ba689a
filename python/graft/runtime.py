"""Running models on graft's oneDNN runtime from Python."""
from __future__ import annotations

import statistics
import time
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from graft import _graft
from graft.model import Model

_NUMPY_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
                 "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
                 "uint8": np.uint8, "bool": np.bool_}


def _to_numpy(value: Any) -> Tuple[np.ndarray, bool]:
    """(the array, whether it came from torch). CPU torch tensors are viewed, not copied, and
    so is any other CPU array that speaks DLPack (`__dlpack__`: JAX, TensorFlow, CuPy's host
    arrays…)."""
    if isinstance(value, np.ndarray):
        return value, False
    module = type(value).__module__
    if module.startswith("torch"):
        if value.requires_grad:
            value = value.detach()
        return value.cpu().numpy(), True
    if hasattr(value, "__dlpack__"):
        try:
            return np.from_dlpack(value), False
        except (BufferError, RuntimeError, TypeError) as e:  # a device array, an unsupported dtype
            raise _graft.RunError(f"cannot read a {type(value).__name__} through DLPack: {e} "
                                  f"(copy it to host memory first)") from None
    return np.asarray(value), False


class ProfileRow(NamedTuple):
    """One step of a profiled run: the node (or inserted reorder), its op, the implementation
    that ran it ("linear brgemm:avx512_core") and its mean wall time per run in ms."""
    node: str
    op: str
    implementation: str
    ms: float


class Profile(list):
    """The steps of profiled runs, slowest first (a list of ProfileRow); str() is the table
    `rewrite bench --profile` prints, by_op() the time per op."""

    def total_ms(self) -> float:
        return sum(r.ms for r in self)

    def by_op(self) -> List[Tuple[str, float, int]]:
        """(op, ms per run, steps) per op, the most expensive first."""
        ops: Dict[str, List[float]] = {}
        for r in self:
            ops.setdefault(r.op, []).append(r.ms)
        return sorted(((op, sum(ms), len(ms)) for op, ms in ops.items()), key=lambda t: -t[1])

    def __str__(self) -> str:
        total = self.total_ms() or 1.0
        lines = [f"{'ms/run':>10} {'%':>6}  {'node':<32} {'op':<16} implementation"]
        lines += [f"{r.ms:10.3f} {100 * r.ms / total:5.1f}%  {r.node:<32} {r.op:<16} "
                  f"{r.implementation}" for r in self]
        return "\n".join(lines)


class Executable:
    """A model ready to run. Calling it runs the model on arrays (or torch tensors), one per
    input in the model's order; the runtime compiles once per set of input shapes and keeps
    each compiled version. Returns one array, or a tuple when the model has several outputs;
    torch tensors in give torch tensors out.
    """

    def __init__(self, model: Model, threads: Optional[int] = None,
                 dims: Optional[Mapping[str, int]] = None):
        self.model = model
        self.threads = threads or 0
        self.dims = dict(dims or {})
        self._input_names = [i.name for i in model.inputs]
        self._compiled: Dict[Tuple[Tuple[int, ...], ...], "_graft.Executable"] = {}

    def compiled_for(self, shapes: Sequence[Sequence[int]]) -> "_graft.Executable":
        """The executable for these input shapes, compiled on first use."""
        key = tuple(tuple(int(d) for d in s) for s in shapes)
        exe = self._compiled.get(key)
        if exe is None:
            exe = _graft.compile(self.model._handle, dict(zip(self._input_names, key)),
                                 self.dims, self.threads)
            self._compiled[key] = exe
        return exe

    def run(self, *inputs: Any) -> List[np.ndarray]:
        """The outputs as a list of numpy arrays."""
        arrays = [_to_numpy(x)[0] for x in inputs]
        if len(arrays) != len(self._input_names):
            raise _graft.RunError(f"the model takes {len(self._input_names)} inputs "
                                  f"({', '.join(self._input_names)}), {len(arrays)} given")
        return self.compiled_for([a.shape for a in arrays]).run(arrays)

    def __call__(self, *inputs: Any) -> Any:
        from_torch = any(_to_numpy(x)[1] for x in inputs)
        outputs: List[Any] = self.run(*inputs)
        if from_torch:
            import torch
            outputs = [torch.from_numpy(o) for o in outputs]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def random_inputs(self, batch: int = 1, seed: int = 0) -> List[np.ndarray]:
        """Inputs of the model's shapes (symbolic dims set to `batch`, or to `dims`), uniform
        in [-1, 1) for floats, 0/1 for bool, small non-negative integers otherwise."""
        rng = np.random.default_rng(seed)
        out = []
        for spec in self.model.inputs:
            shape = [d if isinstance(d, int) else self.dims.get(d, batch) for d in spec.shape or ()]
            dtype = _NUMPY_DTYPES.get(spec.dtype or "float32", np.float32)
            if np.issubdtype(dtype, np.floating):
                out.append(rng.uniform(-1, 1, shape).astype(dtype))
            elif dtype == np.bool_:
                out.append(rng.integers(0, 2, shape).astype(np.bool_))
            else:
                out.append(rng.integers(0, 8, shape).astype(dtype))
        return out

    def bench(self, *inputs: Any, warmup: int = 3, iterations: int = 20) -> Dict[str, float]:
        """Latency of this process's runs: median, p90, min and mean in ms over `iterations`."""
        arrays = [_to_numpy(x)[0] for x in inputs] or self.random_inputs()
        exe = self.compiled_for([a.shape for a in arrays])
        for _ in range(warmup):
            exe.run(arrays)
        times = []
        for _ in range(iterations):
            start = time.perf_counter()
            exe.run(arrays)
            times.append((time.perf_counter() - start) * 1e3)
        times.sort()
        return {"median_ms": statistics.median(times),
                "p90_ms": times[min(len(times) - 1, int(0.9 * len(times)))],
                "min_ms": times[0], "mean_ms": statistics.fmean(times)}

    def profile(self, *inputs: Any, iterations: int = 5) -> Profile:
        """Every step's mean time over `iterations` runs (after one untimed run, which pays for
        page faults), slowest first: rows (node, op, implementation, ms); print() it for the
        table `rewrite bench --profile` prints, by_op() for the time per op."""
        arrays = [_to_numpy(x)[0] for x in inputs] or self.random_inputs()
        exe = self.compiled_for([a.shape for a in arrays])
        exe.run(arrays)
        runs = max(1, iterations)
        totals: Optional[List[float]] = None
        for _ in range(runs):
            ms = exe.profile(arrays)
            totals = ms if totals is None else [a + b for a, b in zip(totals, ms)]
        rows = [ProfileRow(s[0], s[1], s[2], t / runs) for s, t in zip(exe.steps(), totals or [])]
        return Profile(sorted(rows, key=lambda r: -r.ms))

    def __repr__(self) -> str:
        return f"<graft.Executable of {self.model!r}: {len(self._compiled)} shapes compiled>"


def compile(model: Model, threads: Optional[int] = None,  # noqa: A001 (torch.compile's name)
            dims: Optional[Mapping[str, int]] = None) -> Executable:
    """An Executable for `model`: `threads` for oneDNN (default: the cores), `dims` binds
    symbolic sizes that the inputs' shapes do not give."""
    return Executable(model, threads, dims)
