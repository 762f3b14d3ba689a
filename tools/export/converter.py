"""From an nn.Module to a graft model in memory: trace with torch.fx, run the traced graph with
ShapeProp to record every node's shape and dtype (and every Python value, such as x.size(0)),
and convert node by node through the tables of ops.py.

The batch dim. By default the placeholders get the symbolic leading dim "N", so the model runs
at any batch size. To know which dims and which Python values depend on the batch, the graph
is run twice, at batch B and B + 1: a dim that reads B in the first run and B + 1 in the second
is "N"; a shape that changes otherwise (flatten(x, 0)) gets no meta (graft infers it); an int
that changes (x.size(0)) may only be the one inferred size of a reshape, where it becomes -1.
A model that cannot run at B + 1 (a hard-coded view(1, -1)) is exported with a static batch,
with a warning.

Everything is checked and converted before anything is written: unsupported nodes are
collected and reported together (ExportError), each with its fx node name.
"""
import contextlib
import io
import os
import sys
import traceback

import torch
import torch.fx
from torch.fx.node import map_aggregate
from torch.fx.passes.shape_prop import ShapeProp

from . import ops
from .common import FAILED, BatchDependent, ExportError, Ref, Unsupported


class TensorInfo:
    """The recorded shape and dtype of a tensor value."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype


class Opaque:
    """A recorded value the exporter cannot fold (a dtype, a device, a module...)."""

    def __init__(self, value):
        self.type_name = type(value).__name__

    def __repr__(self):
        return "<%s>" % self.type_name


def _summarize(value):
    if isinstance(value, torch.Tensor):
        return TensorInfo(value.shape, value.dtype)
    if isinstance(value, torch.Size):
        return tuple(int(d) for d in value)
    if isinstance(value, (tuple, list)):
        return type(value)(_summarize(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return Opaque(value)


def _has_tensor(summary):
    if isinstance(summary, TensorInfo):
        return True
    if isinstance(summary, (tuple, list)):
        return any(_has_tensor(v) for v in summary)
    return False


class _Recorder(ShapeProp):
    """ShapeProp (it sets node.meta['tensor_meta']) that also keeps a summary of every node's
    value: shapes and dtypes of tensors, Python values as they are."""

    def __init__(self, gm):
        super().__init__(gm)
        self.values = {}

    def run_node(self, n):
        result = super().run_node(n)
        self.values[n.name] = _summarize(result)
        return result


def _record(gm, inputs):
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


def _grow_batch(x):
    """The example input with one more row (the first row repeated)."""
    return torch.cat([x, x[:1]], dim=0)


# ** tracing **

_TRACE_HELP = (
    "torch.fx traces forward() with symbolic values, so Python control flow that depends on "
    "tensor values (`if x.sum() > 0:`, a loop over a tensor, x.item()) has no single graph. "
    "Make the code independent of tensor values, move it into a function marked with "
    "torch.fx.wrap or a leaf module (which graft must then support), or bind such inputs "
    "with concrete_args.")


def _user_frame(tb):
    """The innermost frame of the traceback outside torch: where the user's code failed."""
    torch_dir = os.path.dirname(torch.__file__)
    here = os.path.dirname(__file__)
    user = None
    for frame in traceback.extract_tb(tb):
        if not frame.filename.startswith(torch_dir) and not frame.filename.startswith(here):
            user = frame
    return user


def trace(module):
    """torch.fx.symbolic_trace, with the tracer's error explained as an ExportError."""
    try:
        return torch.fx.symbolic_trace(module)
    except Exception as e:  # noqa: BLE001 - every tracer failure becomes a diagnostic
        frame = _user_frame(e.__traceback__)
        where = ""
        if frame is not None:
            where = "\n  at %s:%d in %s: %s" % (frame.filename, frame.lineno, frame.name,
                                              (frame.line or "").strip())
        raise ExportError("torch.fx cannot trace %s: %s: %s%s\n%s"
                          % (type(module).__name__, type(e).__name__, e, where,
                             _TRACE_HELP)) from None


# ** checks **


def check_float32(module, example_inputs):
    """Every floating parameter and buffer, and every input, must be float32 (graft's runtime
    computes in float32). Integer buffers such as BatchNorm's num_batches_tracked are fine as
    long as the graph does not read them."""
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
        if x.dtype != torch.float32:
            raise ExportError("example input %d is %s; graft models take float32 inputs"
                              % (i, str(x.dtype).replace("torch.", "")))


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


class _Converter:
    def __init__(self, gm, values, values_b, batch, dynamic):
        self.gm = gm
        self.values = values          # node name -> summary at batch B
        self.values_b = values_b      # ... at batch B + 1 (the same dict when static)
        self.batch = batch
        self.dynamic = dynamic
        self.env = {}                 # fx node name -> Ref / Python value / BatchDependent
        self.nodes = []               # graft's nodes (JSON objects) in topological order
        self.tensors = {}             # safetensors name -> tensor
        self.attr_nodes = {}          # tensor name -> Ref of its get_attr node
        self.ref_info = {}            # graft node name -> TensorInfo of its value
        self.outputs = []             # Refs of the graph's outputs
        self.used_names = {n.name for n in gm.graph.nodes}
        self.problems = []            # (fx node name, description, reason)
        self.node = None              # the fx node being converted
        self.emitted = None

    # ** the interface of ops.py's converters **

    def call(self, op, operands, **attrs):
        if self.emitted is not None:
            raise AssertionError("converter for %s emitted two nodes" % self.node.name)
        while operands and operands[-1] is None:
            operands = operands[:-1]
        entry = {"name": self.node.name, "op": "call_function", "target": op,
                 "args": [_json_value(v) for v in operands]}
        kwargs = {k: _json_value(v) for k, v in attrs.items() if v is not None}
        if kwargs:
            entry["kwargs"] = kwargs
        meta = self._meta(self.node.name)
        if meta is not None:
            entry["meta"] = meta
        self.emitted = entry
        return Ref(self.node.name)

    def shape(self, ref):
        """The recorded shape (at batch B) of an operand."""
        return self._info(ref).shape

    def dtype(self, ref):
        return self._info(ref).dtype

    def param(self, module, attr):
        """A get_attr node for a module's parameter or buffer (None stays None)."""
        tensor = getattr(module, attr)
        if tensor is None:
            return None
        path = self.node.target + "." + attr
        return self._attr_ref(path, tensor)

    # ** internals **

    def _info(self, ref):
        info = self.ref_info.get(ref.name)
        if not isinstance(info, TensorInfo):
            raise Unsupported("'%s' is not a tensor" % ref.name)
        return info

    def _unique(self, name):
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
        candidate, i = name, 1
        while candidate in self.used_names:
            candidate = "%s_%d" % (name, i)
            i += 1
        self.used_names.add(candidate)
        return candidate

    def _attr_ref(self, path, tensor, name=None):
        if path in self.attr_nodes:
            return self.attr_nodes[path]
        if not isinstance(tensor, torch.Tensor):
            raise Unsupported("'%s' is a %s, not a tensor" % (path, type(tensor).__name__))
        if tensor.dtype != torch.float32:
            raise Unsupported("tensor '%s' is %s; graft models hold float32 tensors"
                              % (path, str(tensor.dtype).replace("torch.", "")))
        name = name or self._unique(path.replace(".", "_"))
        self.nodes.append({"name": name, "op": "get_attr", "target": path,
                           "meta": {"shape": list(tensor.shape), "dtype": "float32"}})
        self.tensors[path] = tensor.detach()
        self.ref_info[name] = TensorInfo(tensor.shape, tensor.dtype)
        ref = Ref(name)
        self.attr_nodes[path] = ref
        return ref

    def _meta(self, name):
        """meta for a node's recorded tensor: "N" where the dim follows the batch; None when
        a dim changes with the batch in another way (graft infers those)."""
        a, b = self.values.get(name), self.values_b.get(name)
        if not isinstance(a, TensorInfo) or not isinstance(b, TensorInfo):
            return None
        shape = []
        for da, db in zip(a.shape, b.shape):
            if da == db:
                shape.append(da)
            elif da == self.batch and db == self.batch + 1:
                shape.append("N")
            else:
                return None
        return {"shape": shape, "dtype": _dtype_name(a.dtype)}

    def _fold(self, a, b):
        if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
            return type(a)(self._fold(x, y) for x, y in zip(a, b))
        if a == b and type(a) is type(b):
            return a
        if isinstance(a, int) and isinstance(b, int):
            return BatchDependent(a, b)
        raise Unsupported("a Python value that changes with the batch size (%r at batch %d, "
                          "%r at batch %d); export with --static-batch"
                          % (a, self.batch, b, self.batch + 1))

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
            self.node, self.emitted = node, None
            try:
                value = self._convert_node(node)
            except Unsupported as e:
                self.problems.append((node.name, _describe(self.gm, node), str(e)))
                value = FAILED
            if self.emitted is not None:
                self.nodes.append(self.emitted)
                self.ref_info[node.name] = self.values.get(node.name)
            self.env[node.name] = value

    def _convert_node(self, node):
        summary = self.values.get(node.name)
        if node.op == "placeholder":
            if not isinstance(summary, TensorInfo):
                raise Unsupported("input '%s' is not a tensor" % node.target)
            shape = list(summary.shape)
            if self.dynamic and shape:
                shape[0] = "N"
            self.nodes.append({"name": node.name, "op": "placeholder", "target": node.name,
                               "meta": {"shape": shape, "dtype": _dtype_name(summary.dtype)}})
            self.ref_info[node.name] = summary
            return Ref(node.name)
        if node.op == "output":
            outputs = self._map(node.args[0])
            if outputs is FAILED:
                return FAILED
            refs = _flatten_outputs(outputs)
            self.nodes.append({"name": "output", "op": "output", "target": "output",
                               "args": [[_json_value(r) for r in refs]]})
            self.outputs = refs
            return None
        if node.op == "get_attr":
            value = _attr_path(self.gm, node.target)
            if isinstance(value, torch.Tensor):
                return self._attr_ref(node.target, value, node.name)
            return self._fold(self.values.get(node.name), self.values_b.get(node.name))

        # The converter is looked up before the operands are: a node after an unsupported one
        # is still reported when it is unsupported itself, so one run lists every problem.
        tensor_result = _has_tensor(summary)
        convert = self._lookup(node) if tensor_result else None
        args, kwargs = self._map(node.args), self._map(node.kwargs)
        if args is FAILED or kwargs is FAILED:
            return FAILED
        if not tensor_result:
            return self._convert_python_value(node, summary)
        if isinstance(summary, TensorInfo) and summary.dtype != torch.float32:
            raise Unsupported("produces a %s tensor; graft computes in float32"
                              % str(summary.dtype).replace("torch.", ""))
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
                raise Unsupported("no graft op for %s" % type(module).__name__)
            return convert
        table = ops.FUNCTIONS if node.op == "call_function" else ops.METHODS
        convert = table.get(node.target)
        if convert is None:
            raise Unsupported("graft has no op for this call "
                              "(docs/exporter.md lists the supported ones)")
        return convert

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
        return self._fold(summary, self.values_b.get(node.name))


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
        raise Unsupported("a dict output; return a tensor or a tuple of tensors")
    raise Unsupported("output %r is not a tensor computed by the graph" % (value,))


_DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
                torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32",
                torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8",
                torch.bool: "bool"}


def _dtype_name(dtype):
    return _DTYPE_NAMES[dtype]


def _json_value(value):
    if isinstance(value, Ref):
        return {"node": value.name}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise Unsupported("the non-finite constant %r" % value)
        return value
    if isinstance(value, (tuple, list)):
        return [_json_value(v) for v in value]
    if isinstance(value, BatchDependent):
        raise Unsupported("a size that depends on the batch size (%d at batch B, %d at B + 1) "
                          "is used where graft needs a constant; export with --static-batch"
                          % (value.small, value.large))
    raise Unsupported("cannot write the value %r" % (value,))


class Converted:
    """A converted model: the model.json object (without "weights") and its tensors."""

    def __init__(self, model, tensors, graph_module, output_names, dynamic):
        self.model = model
        self.tensors = tensors
        self.graph_module = graph_module
        self.output_names = output_names
        self.dynamic = dynamic


def convert(module, example_inputs, *, dynamic_batch=True, metadata=None):
    """Traces `module` (in eval mode) and converts it; raises ExportError with every problem."""
    example_inputs = tuple(example_inputs)
    check_float32(module, example_inputs)
    gm = trace(module)
    placeholders = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        raise ExportError("forward() takes %d input%s (%s), but %d example input%s given"
                          % (len(placeholders), "" if len(placeholders) == 1 else "s",
                             ", ".join(placeholders), len(example_inputs),
                             " was" if len(example_inputs) == 1 else "s were"))
    values = _record(gm, example_inputs)
    batch = int(example_inputs[0].shape[0]) if example_inputs and example_inputs[0].dim() else 0
    values_b = values
    if dynamic_batch and batch > 0:
        try:
            values_b = _record(gm, tuple(_grow_batch(x) for x in example_inputs))
        except ExportError as e:
            print("export_fx.py: warning: the model does not run at batch %d (%s); exporting "
                  "with a static batch of %d" % (batch + 1, str(e).splitlines()[0], batch),
                  file=sys.stderr)
            dynamic_batch = False
    else:
        dynamic_batch = False
    converter = _Converter(gm, values, values_b, batch, dynamic_batch)
    converter.convert()
    if converter.problems:
        width = max(len(name) for name, _, _ in converter.problems)
        lines = ["  %-*s  %s: %s" % (width, name, what, reason)
                 for name, what, reason in converter.problems]
        raise ExportError("cannot export %s: %d node%s of the traced graph cannot be converted "
                          "to graft ops:\n%s" % (type(module).__name__, len(converter.problems),
                                                 "" if len(converter.problems) == 1 else "s",
                                                 "\n".join(lines)))
    model = {"format": "graft.model", "version": 1}
    meta = {"module": "%s.%s" % (type(module).__module__, type(module).__qualname__),
            "torch": torch.__version__,
            "batch": "N" if dynamic_batch else batch}
    meta.update(metadata or {})
    model["metadata"] = meta
    model["nodes"] = converter.nodes
    return Converted(model, converter.tensors, gm, [r.name for r in converter.outputs],
                     dynamic_batch)
