"""The torch-level capture path: trace an nn.Module with torch.fx.symbolic_trace, run the traced
graph with ShapeProp to record every node's shape and dtype (and every Python value, such as
x.size(0)), and convert node by node through the tables of ops.py.

Symbolic dims (symbols.py): the graph is run once with the example inputs and once per symbol
with that symbol's dims one larger. A model that cannot run at batch B + 1 (a hard-coded
view(1, -1)) is exported with a static batch, with a warning; one that cannot run with a
--dynamic-dim grown is refused.

Everything is checked and converted before anything is written: unsupported nodes are
collected and reported together (ExportError), each with its fx node name.
"""
import contextlib
import io
import operator
import sys

import torch
import torch.fx
from torch.fx.node import map_aggregate
from torch.fx.passes.shape_prop import ShapeProp

from . import ops
from .builder import Converted, GraphBuilder, Opaque, TensorInfo, has_tensor, summarize
from .common import FAILED, ExportError, Ref, Unsupported
from .source_lines import user_frame_of_traceback, where_text
from .symbols import BATCH, fold

INPUT_DTYPES = (torch.float32, torch.int64, torch.bool)


class TraceFailed(ExportError):
    """symbolic_trace failed; `reason` is the tracer's message and its location in one line
    (for the auto capture's note)."""

    def __init__(self, message, reason):
        super().__init__(message)
        self.reason = reason


class _Recorder(ShapeProp):
    """ShapeProp (it sets node.meta['tensor_meta']) that also keeps a summary of every node's
    value: shapes and dtypes of tensors, Python values as they are."""

    def __init__(self, gm):
        super().__init__(gm)
        self.values = {}

    def run_node(self, n):
        result = super().run_node(n)
        self.values[n.name] = summarize(result)
        return result


def record(gm, inputs):
    """Runs gm on inputs; returns {node name: summary}. ShapeProp prints a traceback before it
    re-raises a failure; that goes to a buffer, and the cause is put into the ExportError."""
    recorder = _Recorder(gm)
    stderr = io.StringIO()
    try:
        with torch.no_grad(), contextlib.redirect_stderr(stderr):
            recorder.propagate(*inputs)
    except Exception as e:  # noqa: BLE001 - any failure of the user's model is reported
        cause = e.__cause__ or e.__context__ or e
        raise ExportError("running the traced model on the example inputs failed: %s\n  %s: %s"
                          % (str(e).split(" with meta=")[0], type(cause).__name__, cause)) from None
    return recorder.values


# ** tracing **

_TRACE_HELP = (
    "torch.fx traces forward() with symbolic values, so Python control flow that depends on "
    "tensor values (`if x.sum() > 0:`, a loop over a tensor, x.item()) has no single graph, "
    "and a size read from a tensor cannot be unpacked or passed where torch takes a number "
    "(`n, t, c = x.shape`, torch.arange(2 * t)). Make the code independent of tensor values, "
    "move it into a function marked with torch.fx.wrap or a leaf module (which graft must then "
    "support), or bind such inputs with concrete_args. Or export with --capture aten (or "
    "without --capture fx: auto tries it next), which runs forward() as Python and so reads "
    "sizes as numbers.")

# Why an fx call has no conversion when the ATen path has one; the torch-level table lacks it.
_ATEN_ONLY = {
    operator.getitem: "indexing or slicing a tensor (x[:, :k]) has no conversion on the "
                      "torch.fx path (the ATen path has one)",
}

_TRY_ATEN = (
    "The torch.fx path converts fewer calls than the ATen path (no indexing or slicing of "
    "tensors, float32 results only): export with --capture aten, or without --capture fx "
    "(auto tries torch.fx first, then the ATen path).")


class _NotOnThisPath(Unsupported):
    """A call the torch-level table cannot convert (the ATen path may): the error then says
    to try --capture aten."""


def trace(module):
    """torch.fx.symbolic_trace, with the tracer's error explained as a TraceFailed."""
    try:
        return torch.fx.symbolic_trace(module)
    except Exception as e:  # noqa: BLE001 - every tracer failure becomes a diagnostic
        frame = user_frame_of_traceback(e.__traceback__)
        first = (str(e).strip().splitlines() or [""])[0].split(". ")[0]
        reason = "%s%s" % (first or type(e).__name__,
                           " at %s:%d" % (frame.filename, frame.lineno) if frame else "")
        raise TraceFailed("torch.fx cannot trace %s: %s: %s%s\n%s"
                          % (type(module).__name__, type(e).__name__, e, where_text(frame),
                             _TRACE_HELP), reason) from None


# ** checks **


def check_dtypes(module, example_inputs):
    """Every floating parameter and buffer must be float32 (graft's runtime computes in
    float32); inputs must be tensors of float32, int64 (indices) or bool (masks)."""
    wrong = []
    for name, t in list(module.named_parameters()) + list(module.named_buffers()):
        if (t.is_floating_point() or t.is_complex()) and t.dtype != torch.float32:
            wrong.append((name, t.dtype))
    if wrong:
        dtypes = sorted({str(d).replace("torch.", "") for _, d in wrong})
        shown = ", ".join("'%s' (%s)" % (n, str(d).replace("torch.", "")) for n, d in wrong[:5])
        more = " and %d more" % (len(wrong) - 5) if len(wrong) > 5 else ""
        raise ExportError("graft models hold float32 weights, but %d of this model's tensors "
                          "are %s: %s%s; convert the model with model.float() before exporting"
                          % (len(wrong), "/".join(dtypes), shown, more))
    for i, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor):
            raise ExportError("example input %d is a %s, expected a tensor" % (i, type(x).__name__))
        if x.dtype not in INPUT_DTYPES:
            raise ExportError("example input %d is %s; graft models take float32, int64 or "
                              "bool inputs" % (i, str(x.dtype).replace("torch.", "")))


# ** conversion **


def _describe(gm, node):
    """fx node as a reader knows it: 'name (call_module 'layer1.0.conv1': torch.nn...Conv2d)'."""
    if node.op == "call_module":
        m = gm.get_submodule(node.target)
        what = "call_module '%s' (%s.%s)" % (node.target, type(m).__module__,
                                            type(m).__qualname__)
    elif node.op == "call_function":
        t = node.target
        module = getattr(t, "__module__", None) or ""
        module = "operator" if module == "_operator" else module
        what = "call_function %s" % ((module + "." if module else "") +
                                     getattr(t, "__name__", repr(t)))
    elif node.op == "call_method":
        what = "call_method '%s'" % node.target
    else:
        what = "%s '%s'" % (node.op, node.target)
    return what


class _Converter(GraphBuilder):
    def __init__(self, gm, values, variants, symbols):
        super().__init__(symbols, [n.name for n in gm.graph.nodes])
        self.gm = gm
        self.values = values          # node name -> summary with the example inputs
        self.variants = variants      # symbol -> node name -> summary in that symbol's run
        self.env = {}                 # fx node name -> Ref / Python value / Dependent
        self.outputs = []             # Refs of the graph's outputs
        self.problems = []            # (fx node name, description, reason)
        self.node = None              # the fx node being converted
        self.input_index = 0
        self.aten_may_convert = False  # a problem is a call only the torch-level table lacks

    # ** the interface of ops.py's converters (besides GraphBuilder's) **

    def param(self, module, attr):
        """A get_attr node for a module's parameter or buffer (None stays None)."""
        tensor = getattr(module, attr)
        if tensor is None:
            return None
        return self.attr_ref(self.node.target + "." + attr, tensor)

    # ** internals **

    def _map(self, value):
        """fx args with node references replaced by their values; FAILED if any failed."""
        failed = []

        def lookup(n):
            v = self.env[n.name]
            if v is FAILED:
                failed.append(n.name)
            return v
        mapped = map_aggregate(value, lambda a: lookup(a) if isinstance(a, torch.fx.Node) else a)
        return FAILED if failed else mapped

    def convert(self):
        for node in self.gm.graph.nodes:
            self.node = node
            self.current_name, self.result_name = node.name, None
            self.current = (self.values.get(node.name),
                            {s: v.get(node.name) for s, v in self.variants.items()})
            try:
                value = self._convert_node(node)
            except Unsupported as e:
                self.problems.append((node.name, _describe(self.gm, node), str(e)))
                self.aten_may_convert |= isinstance(e, _NotOnThisPath)
                value = FAILED
            self.env[node.name] = value

    def _convert_node(self, node):
        summary = self.values.get(node.name)
        if node.op == "placeholder":
            if not isinstance(summary, TensorInfo):
                raise Unsupported("input '%s' is not a tensor" % node.target)
            self.input_index += 1
            return self.add_placeholder(node.name, self.input_index - 1, summary)
        if node.op == "output":
            outputs = self._map(node.args[0])
            if outputs is FAILED:
                return FAILED
            refs = _flatten_outputs(outputs)
            self.nodes.append({"name": "output", "op": "output", "target": "output",
                               "args": [[self.json_value(r) for r in refs]]})
            self.outputs = refs
            return None
        if node.op == "get_attr":
            value = _attr_path(self.gm, node.target)
            if isinstance(value, torch.Tensor):
                return self.attr_ref(node.target, value, node.name)
            return self._fold(node)

        # The converter is looked up before the operands are: a node after an unsupported one
        # is still reported when it is unsupported itself, so one run lists every problem.
        tensor_result = has_tensor(summary)
        convert = self._lookup(node) if tensor_result else None
        args, kwargs = self._map(node.args), self._map(node.kwargs)
        if args is FAILED or kwargs is FAILED:
            return FAILED
        if not tensor_result:
            return self._convert_python_value(node, summary)
        if isinstance(summary, TensorInfo) and summary.dtype != torch.float32:
            raise _NotOnThisPath("produces a %s tensor; the torch-level path converts "
                                 "float32 computations only (--capture aten handles other "
                                 "dtypes)" % str(summary.dtype).replace("torch.", ""))
        try:
            if node.op == "call_module":
                return convert(self, self.gm.get_submodule(node.target), *args, **kwargs)
            return convert(self, *args, **kwargs)
        except TypeError as e:  # fx's args do not bind to torch's signature as we wrote it
            raise Unsupported("cannot bind its arguments: %s" % e) from None

    def _lookup(self, node):
        if node.op == "call_module":
            module = self.gm.get_submodule(node.target)
            convert = ops.module_converter(module)
            if convert is None:
                raise _NotOnThisPath("no graft op for %s" % type(module).__name__)
            return convert
        table = ops.FUNCTIONS if node.op == "call_function" else ops.METHODS
        convert = table.get(node.target)
        if convert is None and node.target in _ATEN_ONLY and self._on_tensor(node):
            raise _NotOnThisPath(_ATEN_ONLY[node.target])
        if convert is None:
            raise _NotOnThisPath("graft has no op for this call "
                                 "(docs/exporter.md lists the supported ones)")
        return convert

    def _on_tensor(self, node):
        """Whether the call's first operand is a tensor (x[0], not a tuple's element)."""
        first = node.args[0] if node.args else None
        return (isinstance(first, torch.fx.Node)
                and isinstance(self.values.get(first.name), TensorInfo))

    def _fold(self, node):
        return fold(self.symbols, self.values.get(node.name),
                    {s: v.get(node.name) for s, v in self.variants.items()})

    def _convert_python_value(self, node, summary):
        """A call whose result is not a tensor: sizes and arithmetic on them are folded into
        constants; anything read from tensor data (x.item()) cannot be."""
        query = ((node.op == "call_method" and node.target in ops.SHAPE_QUERY_METHODS) or
                 (node.op == "call_function" and node.target is getattr and len(node.args) == 2
                  and node.args[1] in ops.SHAPE_QUERY_ATTRS))
        inputs_folded = all(not isinstance(self.env[n.name], Ref)
                            for n in node.all_input_nodes)
        if isinstance(summary, Opaque):
            raise Unsupported("returns a %s, which a graph cannot hold" % summary.type_name)
        if not (query or inputs_folded):
            raise Unsupported("returns a Python %s computed from tensor data, which a graph "
                              "cannot hold" % type(summary).__name__)
        return self._fold(node)


def _attr_path(gm, target):
    value = gm
    for part in target.split("."):
        value = getattr(value, part)
    return value


def _flatten_outputs(value):
    if isinstance(value, Ref):
        return [value]
    if isinstance(value, (tuple, list)):
        result = []
        for v in value:
            result.extend(_flatten_outputs(v))
        return result
    if isinstance(value, dict):
        raise Unsupported("a dict output; return a tensor or a tuple of tensors "
                          "(--capture aten flattens dicts)")
    raise Unsupported("output %r is not a tensor computed by the graph" % (value,))


def record_runs(run, inputs, symbols, what):
    """Runs `run` with the example inputs and once per symbol with that symbol's dims grown.
    Returns (base result, {symbol: result}, symbols): a failing batch run drops the batch
    symbol with a warning; a failing --dynamic-dim run is an ExportError."""
    base = run(inputs)
    variants = {}
    for s in list(symbols.names()):
        try:
            variants[s] = run(symbols.grown(inputs, s))
        except ExportError as e:
            size = symbols.sizes[s]
            if s != BATCH:
                raise ExportError("the model does not run with %s = %d (%s grown by one) %s "
                                  "(only dims the weights do not fix, such as a sequence "
                                  "length, can be symbolic): %s" % (s, size + 1, s, what, e)
                                  ) from None
            print("export_fx.py: warning: the model does not run at batch %d (%s); exporting "
                  "with a static batch of %d" % (size + 1, str(e).splitlines()[0], size),
                  file=sys.stderr)
            symbols = symbols.without(s)
    return base, variants, symbols


def problems_error(module, problems, what, hint=None):
    """The ExportError listing every node that cannot be converted, then `hint` (auto's note
    quotes the first node only)."""
    width = max(len(name) for name, _, _ in problems)
    lines = ["  %-*s  %s: %s" % (width, name, desc, reason) for name, desc, reason in problems]
    return ExportError("cannot export %s: %d node%s of the %s cannot be converted to graft "
                       "ops:\n%s%s" % (type(module).__name__, len(problems),
                                       "" if len(problems) == 1 else "s", what,
                                       "\n".join(lines), "\n" + hint if hint else ""))


def convert(module, example_inputs, symbols, metadata=None):
    """Traces `module` (in eval mode) with torch.fx and converts it; raises ExportError with
    every problem (TraceFailed when symbolic_trace fails)."""
    example_inputs = tuple(example_inputs)
    gm = trace(module)
    placeholders = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        raise ExportError("forward() takes %d input%s (%s), but %d example input%s given"
                          % (len(placeholders), "" if len(placeholders) == 1 else "s",
                             ", ".join(placeholders), len(example_inputs),
                             " was" if len(example_inputs) == 1 else "s were"))
    values, variants, symbols = record_runs(lambda xs: record(gm, xs), example_inputs, symbols,
                                            "in the traced graph")
    converter = _Converter(gm, values, {s: variants[s] for s in symbols.names()}, symbols)
    converter.convert()
    if converter.problems:
        raise problems_error(module, converter.problems, "traced graph",
                             _TRY_ATEN if converter.aten_may_convert else None)
    return finish(module, example_inputs, converter, symbols, metadata, gm, "fx")


def buffer_names(module):
    """The state_dict names of the module's registered buffers (running_mean, …), under every
    path a shared submodule has: model.json's "buffers". Constants not among them, parameters
    and the tensors the trace folds, are parameters to graft."""
    names = set()
    for prefix, m in module.named_modules(remove_duplicate=False):
        for name, b in m._buffers.items():
            if b is not None:
                names.add(prefix + "." + name if prefix else name)
    return names


def finish(module, example_inputs, builder, symbols, metadata, gm, capture):
    """The Converted model of a finished builder."""
    model = {"format": "graft.model", "version": 1}
    dynamic = BATCH in symbols.sizes
    batch = int(example_inputs[0].shape[0]) if example_inputs and example_inputs[0].dim() else 0
    meta = {"module": "%s.%s" % (type(module).__module__, type(module).__qualname__),
            "torch": torch.__version__, "capture": capture, "batch": BATCH if dynamic else batch}
    if symbols.sizes:
        meta["symbols"] = {s: {"example": symbols.sizes[s], "inputs": [list(d) for d in dims]}
                           for s, dims in symbols.dims.items()}
    meta.update(metadata or {})
    model["metadata"] = meta
    buffers = sorted(buffer_names(module) & set(builder.tensors))
    if buffers:
        model["buffers"] = buffers
    model["nodes"] = builder.nodes
    return Converted(model, builder.tensors, gm, [r.name for r in builder.outputs], dynamic,
                     capture)
