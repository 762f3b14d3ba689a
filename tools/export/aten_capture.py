"""Capture at the ATen level: run the module on its example inputs under functorch's
functionalize and make_fx (tracing_mode='real') and return the recorded graph of ATen ops, with
every placeholder named: the module's parameters and buffers by their state_dict names, the
inputs by forward()'s parameter names, and each node's source line in the model code.

Sizes are concrete during the run, so Python arithmetic on them, tuple unpacking and leaf
modules such as nn.LSTM simply run; control flow that reads tensor values is specialised to
the example (the converter refuses the ops that read values, such as aten._local_scalar_dense).
"""
import inspect

from torch.fx.experimental.proxy_tensor import PythonKeyTracer, make_fx
from torch.nn.utils import stateless
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree as pytree

from . import einsum_lowering
from .common import ExportError
from .source_lines import user_frame_of_traceback, where_text

try:  # functorch ships with Debian's torch 1.13
    from functorch import functionalize
except ImportError:  # pragma: no cover - a torch without functorch
    functionalize = None

class Captured:
    """The ATen graph of one run. `inputs` are the graph's placeholders in order, each
    ("state", state_dict name, tensor) or ("input", forward() parameter name, tensor)."""

    def __init__(self, gm, inputs, out_spec):
        self.gm = gm
        self.inputs = inputs
        self.out_spec = out_spec


class _NoFastPaths(TorchFunctionMode):
    """A torch-function mode that passes every call through but einsums that are one matrix
    product (einsum_lowering). While one is active, tensors count as having
    __torch_function__, which makes nn.MultiheadAttention and nn.TransformerEncoderLayer take
    their decomposed path instead of the fused inference kernels
    (_native_multi_head_attention, _transformer_encoder_layer_fwd)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        lowered = einsum_lowering.lower(func, args, kwargs)
        if lowered is not None:
            return lowered
        return func(*args, **(kwargs or {}))


def state_tensors(module):
    """[(name, tensor)] of every parameter and buffer, tied tensors once under their first
    name (the order of named_parameters() then named_buffers()), and {every name: index}."""
    unique, index = [], {}
    seen = {}
    for kind in ("_parameters", "_buffers"):
        for prefix, sub in module.named_modules(remove_duplicate=False):
            for attr, tensor in getattr(sub, kind).items():
                if tensor is None:
                    continue
                name = prefix + "." + attr if prefix else attr
                if id(tensor) not in seen:
                    seen[id(tensor)] = len(unique)
                    unique.append((name, tensor))
                index[name] = seen[id(tensor)]
    return unique, index


def input_names(module, count):
    """forward()'s parameter names for `count` positional inputs (x, input_1... if it takes
    *args)."""
    try:
        params = list(inspect.signature(module.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            break
    while len(names) < count:
        names.append("input_%d" % len(names))
    return names[:count]


def capture(module, example_inputs, decompositions=None):
    """Returns the Captured ATen graph of module(*example_inputs), functionalized, with the
    ops of `decompositions` ({overload: function}) decomposed. The module must be in eval
    mode."""
    if functionalize is None:
        raise ExportError("ATen capture needs functorch (shipped with torch 1.13)")
    unique, index = state_tensors(module)
    names = list(index)

    def run(flat, *inputs):
        with _NoFastPaths():
            return stateless.functional_call(module, {n: flat[index[n]] for n in names},
                                             inputs)

    out_spec = []

    def flat_run(flat, *inputs):
        outputs, spec = pytree.tree_flatten(run(flat, *inputs))
        out_spec.append(spec)
        return outputs

    saved = PythonKeyTracer.record_stack_traces
    PythonKeyTracer.record_stack_traces = True
    try:
        gm = make_fx(functionalize(flat_run), decomposition_table=decompositions,
                     tracing_mode="real")(
            [t for _, t in unique], *example_inputs)
    except ExportError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of the user's model is reported
        raise ExportError("make_fx (ATen) could not run %s on the example inputs: %s: %s%s%s"
                          % (type(module).__name__, type(e).__name__, _first_line(e),
                             where_text(user_frame_of_traceback(e.__traceback__)),
                             _hint(e))) from None
    finally:
        PythonKeyTracer.record_stack_traces = saved
    gm.graph.eliminate_dead_code()
    gm.recompile()
    inputs = [("state", n, t) for n, t in unique]
    inputs += [("input", n, x) for n, x in zip(input_names(module, len(example_inputs)),
                                                example_inputs)]
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs):
        raise ExportError("make_fx recorded %d inputs, expected %d (%d state tensors and %d "
                          "example inputs); are all inputs tensors?"
                          % (len(placeholders), len(inputs), len(unique), len(example_inputs)))
    return Captured(gm, inputs, out_spec[0] if out_spec else None)


def _first_line(e):
    text = str(e).strip()
    return text.splitlines()[0].split(" - erroring out!")[0] if text else ""


def _hint(e):
    if "value out of a tracing tensor" in str(e):
        return ("\nPython control flow that depends on tensor values (`if x.sum() > 0:`, "
                "x.item() as a size) has no single graph: compute both branches and select "
                "with torch.where, or make the code independent of tensor values")
    return ""
