"""The ATen capture path: capture the module with make_fx (aten_capture.py) once with the example
inputs and once per symbolic dim grown by one, recompose linear and matmul (aten_recompose.py),
check that every run recorded the same graph, and convert node by node through the ATen table
(aten_ops.py).

Arguments that differ between the runs are Dependent ints (a view's B * T), written as a symbol
where the graft op declares the parameter SymInt (builder.py's symbolic); ops that depend on no
input (arange, zeros, a mask built in forward) are folded into constant tensors unless they
change between the runs (arange(T) stays an op); parameters and buffers become get_attr
nodes under their state_dict names at their first use. Unsupported calls are collected and
reported together, grouped by ATen overload, each with the line of the model code that made
it and, where graft lacks the op, its name.
"""
import sys

import torch
import torch.fx
from torch._decomp import get_decompositions

from . import aten_ops
from .aten_capture import capture
from .aten_recompose import recompose
from .aten_rows import Args, bind
from .builder import GraphBuilder, TensorInfo
from .common import FAILED, ExportError, MissingOp, Ref, Unsupported, advice
from .converter import finish, record_runs
from .registry import graft_ops, ops_md_path
from .source_lines import user_frame_of_node
from .symbols import BATCH, Symbols, fold

STATE_DTYPES = (torch.float32, torch.int64, torch.bool)


class _State:
    """A parameter or buffer placeholder, written as a get_attr node at its first use."""

    def __init__(self, name, tensor):
        self.name, self.tensor = name, tensor


class _Constant:
    """A folded value (a tensor computed from no input), written as a get_attr at first use."""

    def __init__(self, name, value):
        self.name, self.value = name, value


class _Multi:
    """A multi-output op; each getitem of it becomes graft ops through the row's outputs."""

    def __init__(self, row, args, name):
        self.row, self.args, self.name = row, args, name


def _info(node):
    meta = node.meta.get("tensor_meta")
    if meta is None or not hasattr(meta, "shape"):
        return None
    return TensorInfo(meta.shape, meta.dtype)


def _key(target):
    return "getitem" if target is aten_ops.GETITEM else str(target)


def structure_difference(a, b):
    """Why two captured graphs differ in structure (ops and wiring, node by node in order),
    or None if they do not."""
    na, nb = list(a.graph.nodes), list(b.graph.nodes)
    if len(na) != len(nb):
        return "%d nodes against %d" % (len(na), len(nb))
    ia = {n: i for i, n in enumerate(na)}
    ib = {n: i for i, n in enumerate(nb)}
    for x, y in zip(na, nb):
        if x.op != y.op or x.target != y.target:
            return "node %s (%s) against %s (%s)" % (x.name, _key(x.target), y.name,
                                                      _key(y.target))
        if [ia[n] for n in x.all_input_nodes] != [ib[n] for n in y.all_input_nodes]:
            return "the inputs of node %s" % x.name
    return None


NO_ROW = ("graft has no mapping for this ATen op (no row in tools/export/aten_ops.py)")


class _Converter(GraphBuilder):
    def __init__(self, base, variants, symbols, check=None):
        super().__init__(symbols, [])
        self.base = base
        # the node of each run that corresponds to a node of the base run (same position)
        self.nodes_of = {s: {n.name: m for n, m in zip(base.gm.graph.nodes, v.gm.graph.nodes)}
                         for s, v in variants.items()}
        # ... and of the run with every symbol two larger (None: none), for Dependent.affine
        self.check_nodes = None if check is None else {
            n.name: m for n, m in zip(base.gm.graph.nodes, check.gm.graph.nodes)}
        self.env = {}
        self.outputs = []
        self.problems = []            # (aten node, key, Unsupported)
        self.state_tensors = {}       # aten placeholder name -> its parameter or buffer

    def _variant_infos(self, node):
        return {s: _info(nodes[node.name]) for s, nodes in self.nodes_of.items()}

    def _merge(self, value, node, path):
        """An argument with node references replaced by their values and Python values folded
        across the runs (an int that changes is a Dependent)."""
        if isinstance(value, torch.fx.Node):
            return self._lookup(value)
        if isinstance(value, (list, tuple)):
            return type(value)(self._merge(v, node, path + (k,)) for k, v in enumerate(value))
        def at(nodes):
            other = nodes[node.name]
            v = other.args if isinstance(path[0], int) else other.kwargs
            for k in path:
                v = v[k]
            return v
        variants = {s: at(nodes) for s, nodes in self.nodes_of.items()}
        check = at(self.check_nodes) if self.check_nodes is not None else None
        return fold(self.symbols, value, variants, "argument %s" % (path[-1] if path else "?"),
                    check)

    def _lookup(self, node):
        value = self.env[node.name]
        if isinstance(value, _State):
            ref = self.attr_ref(value.name, value.tensor, self.unique(value.name.replace(
                ".", "_")), dtypes=STATE_DTYPES)
            self.env[node.name] = ref
            return ref
        if isinstance(value, _Constant):
            ref = self.attr_ref("constants." + value.name, value.value,
                                self.unique(value.name), dtypes=STATE_DTYPES)
            self.env[node.name] = ref
            return ref
        return value

    def convert(self):
        inputs = iter(self.base.inputs)
        input_index = 0
        for node in self.base.gm.graph.nodes:
            self.result_name = None
            self.current = (_info(node), self._variant_infos(node))
            try:
                if node.op == "placeholder":
                    kind, name, tensor = next(inputs)
                    if kind == "state":
                        self.env[node.name] = _State(name, tensor)
                        self.state_tensors[node.name] = tensor
                    else:
                        info = TensorInfo(tensor.shape, tensor.dtype)
                        self.env[node.name] = self.add_placeholder(self.unique(name),
                                                                   input_index, info)
                        input_index += 1
                elif node.op == "get_attr":
                    self.env[node.name] = _Constant(node.name, getattr(self.base.gm,
                                                                       node.target))
                elif node.op == "output":
                    self._output(node)
                else:
                    self.env[node.name] = self._call(node)
            except Unsupported as e:
                self.problems.append((node, self._problem_key(node), e))
                self.env[node.name] = self._stand_in(node)

    def _problem_key(self, node):
        """The ATen overload a problem is reported under: a getitem's is its producer's."""
        if node.op == "call_function" and node.target is aten_ops.GETITEM:
            return _key(node.args[0].target)
        return _key(getattr(node, "target", node.op))

    def _stand_in(self, node):
        """The value of a node that failed: a reference with its recorded shape, so that the
        nodes after it are converted (and their own problems reported) all the same. Nothing
        is written when any node failed."""
        base, variants = self.current
        if not isinstance(base, TensorInfo):
            return FAILED
        name = self.unique(node.name)
        self.info[name] = (base, variants)
        self.stand_ins.add(name)
        return Ref(name)

    def _output(self, node):
        refs = []
        for n in node.args[0]:
            value = self._lookup(n) if isinstance(n, torch.fx.Node) else n
            if value is FAILED:
                return
            if not isinstance(value, Ref):
                raise Unsupported("output %r is not a tensor computed by the graph" % (value,))
            refs.append(value)
        self.nodes.append({"name": "output", "op": "output", "target": "output",
                           "args": [[self.json_value(r) for r in refs]]})
        self.outputs = refs

    def _call(self, node):
        key = _key(node.target)
        if self._foldable(node, key):
            return _Constant(node.name, self._evaluate(node, key))
        try:
            return self._convert_call(node, key)
        except Unsupported:
            # An op graft cannot express, computed from parameters and buffers only (swin v2
            # zeroes a slice of a copy of its qkv bias): its value is the same in every run,
            # so it is computed here and stored as a constant.
            if key == "getitem" or not self._from_state_only(node, key):
                raise
            return _Constant(node.name, self._state_value(node))

    def _convert_call(self, node, key):
        row = None
        if key != "getitem":
            row = aten_ops.ROWS.get(key)
            if row is None:
                raise Unsupported(NO_ROW)
        scalars = aten_ops.SCALAR_CONSTANT_OPERANDS.get(key, ())
        args = tuple(self._operand(v, node, k, k in scalars) for k, v in enumerate(node.args))
        kwargs = {k: self._merge(v, node, (k,)) for k, v in node.kwargs.items()}
        if _has_failed(args) or _has_failed(kwargs):
            return FAILED
        if key == "getitem":
            return self._getitem(node, args)
        a = Args(key, bind(node.target, args, kwargs), node)
        if row.outputs is not None:
            return _Multi(row, a, node.name)
        self.current_name = self.unique(node.name)
        return row.apply(self, a)

    def _operand(self, arg, node, index, scalar):
        """Positional argument `index`, merged; with `scalar`, a folded 0-d float tensor of the
        node's result dtype is a Python float (the same value and result type)."""
        value = self.env.get(arg.name) if scalar and isinstance(arg, torch.fx.Node) else None
        info = self.current[0]
        if (isinstance(value, _Constant) and info is not None and value.value.dim() == 0 and
                value.value.is_floating_point() and value.value.dtype == info.dtype):
            return value.value.item()
        return self._merge(arg, node, (index,))

    def _getitem(self, node, args):
        producer, index = args
        if isinstance(producer, (list, tuple)):
            return producer[index]
        if not isinstance(producer, _Multi):
            raise Unsupported("an index into %r" % (producer,))
        self.current_name = self.unique(producer.name if index == 0 else
                                        "%s_%d" % (producer.name, index))
        return producer.row.outputs(self, producer.args, index)

    # ** folding **

    def _foldable(self, node, key):
        """A node computed from no input: a factory, an op on folded values only, or an op
        that reads only its input's shape; its arguments and shape the same in every run."""
        if key in aten_ops.RANDOM:
            return False
        inputs = node.all_input_nodes
        if key not in aten_ops.FACTORIES and key not in aten_ops.SHAPE_ONLY and (
                not inputs or not all(isinstance(self.env.get(n.name), _Constant)
                                      for n in inputs)):
            return False
        base, variants = self.current
        if any(_shape_of(v) != _shape_of(base) for v in variants.values()):
            return False
        for s, nodes in self.nodes_of.items():
            other = nodes[node.name]
            if not _same_constants(node.args, other.args, nodes) or not _same_constants(
                    node.kwargs, other.kwargs, nodes):
                return False
        return True

    def _from_state_only(self, node, key):
        """Whether `node` is computed from parameters, buffers and folded values only, by
        deterministic ops, with the same arguments and shape in every run."""
        if key in aten_ops.RANDOM or not self._state_derived(node):
            return False
        base, variants = self.current
        return all(_shape_of(v) == _shape_of(base) for v in variants.values()) and all(
            _same_constants(node.args, nodes[node.name].args, nodes)
            and _same_constants(node.kwargs, nodes[node.name].kwargs, nodes)
            for nodes in self.nodes_of.values())

    def _state_derived(self, node, seen=None):
        seen = {} if seen is None else seen
        if node.name not in seen:
            if node.name in self.state_tensors or isinstance(self.env.get(node.name), _Constant):
                seen[node.name] = True
            elif node.op != "call_function" or _key(node.target) in aten_ops.RANDOM:
                seen[node.name] = False
            else:
                inputs = node.all_input_nodes
                seen[node.name] = bool(inputs) and all(self._state_derived(n, seen)
                                                       for n in inputs)
        return seen[node.name]

    def _state_value(self, node, values=None):
        """The value of a node that _state_derived accepts, computed with torch."""
        values = {} if values is None else values
        if node.name not in values:
            value = self.env.get(node.name)
            if node.name in self.state_tensors:
                values[node.name] = self.state_tensors[node.name]
            elif isinstance(value, _Constant):
                values[node.name] = value.value
            else:
                args = torch.fx.node.map_arg(node.args, lambda n: self._state_value(n, values))
                kwargs = torch.fx.node.map_arg(node.kwargs,
                                               lambda n: self._state_value(n, values))
                with torch.no_grad():
                    result = node.target(*args, **kwargs)
                values[node.name] = (result.detach().clone() if isinstance(result, torch.Tensor)
                                     else result)
        return values[node.name]

    def _evaluate(self, node, key):
        def value(n):
            v = self.env.get(n.name)
            if isinstance(v, _Constant):
                return v.value
            info = _info(n)  # an input of a shape-only op: its data is not read
            return torch.zeros(info.shape, dtype=info.dtype)
        args = torch.fx.node.map_arg(node.args, value)
        kwargs = torch.fx.node.map_arg(node.kwargs, value)
        with torch.no_grad():
            result = node.target(*args, **kwargs)
        if isinstance(result, torch.Tensor):
            return result.detach().clone()
        return result


def _shape_of(info):
    return info.shape if isinstance(info, TensorInfo) else None


def _same_constants(a, b, nodes):
    """Whether arguments a (base run) and b (another run, whose node for a base node is
    nodes[name]) are the same."""
    if isinstance(a, torch.fx.Node):
        return b is nodes.get(a.name)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(
            _same_constants(x, y, nodes) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(
            _same_constants(a[k], b[k], nodes) for k in a)
    return type(a) is type(b) and a == b


def _has_failed(value):
    if value is FAILED:
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_failed(v) for v in value)
    if isinstance(value, dict):
        return any(_has_failed(v) for v in value.values())
    return False


# ** the runs **


_MOVEMENT = {"aten.reshape.default", "aten.permute.default", "aten.transpose.int",
             "aten.t.default", "aten.unsqueeze.default", "aten.squeeze.dim",
             "aten.squeeze.default", "aten.expand.default", "aten.as_strided.default",
             "aten.split.Tensor", "aten.split_with_sizes.default", "aten.unbind.int",
             "aten.select.int", "aten.slice.Tensor", "getitem"}


def _computation(gm):
    """The ops of a graph that compute, in order: all but data movement (reshapes,
    permutes, splits...), whose arrangement PyTorch chooses by which dims are 1."""
    return [_key(n.target) for n in gm.graph.nodes
            if n.op == "call_function" and _key(n.target) not in _MOVEMENT]


def _runs_at_batch_2(run, example_inputs, symbols, base):
    """At batch 1 PyTorch arranges data movement differently for the size-1 dims (einsum and
    matmul fold them away, strides differ). When the runs at batch 2 and 3 agree and compute
    what batch 1 computes, the symbolic batch is traced there; None otherwise."""
    grown = Symbols(symbols.dims, dict(symbols.sizes, **{BATCH: 2}))
    try:
        runs = record_runs(run, symbols.grown(example_inputs, BATCH), grown, "under make_fx")
    except ExportError:
        return None
    if any(structure_difference(runs[0].gm, v.gm) is not None for v in runs[1].values()):
        return None
    if _computation(runs[0].gm) != _computation(base.gm):
        return None
    return runs


def _capture_runs(module, example_inputs, symbols):
    """The captured runs (base, {symbol: run}, symbols, the run with every symbol two larger or
    None) with the symbols whose runs differ in structure dropped (the batch, with a warning)
    or refused (a --dynamic-dim)."""
    decompositions = get_decompositions(aten_ops.DECOMPOSE)

    def run(inputs):
        captured = capture(module, inputs, decompositions)
        recompose(captured.gm)
        return captured

    base, variants, symbols = record_runs(run, example_inputs, symbols, "under make_fx")
    if BATCH in variants and symbols.sizes[BATCH] == 1 and structure_difference(
            base.gm, variants[BATCH].gm) is not None:
        runs = _runs_at_batch_2(run, example_inputs, symbols, base)
        if runs is not None:
            base, variants, symbols = runs
    for s in list(variants):
        why = structure_difference(base.gm, variants[s].gm)
        if why is None:
            continue
        size = symbols.sizes[s]
        if s != BATCH:
            raise ExportError(
                "the captured graph changes with %s (%s at %s = %d and %d): the model's "
                "control flow depends on %s (a Python loop over its steps, such as nn.LSTM's "
                "decomposition, or an `if` on a size); export without --dynamic-dim %s"
                % (s, why, s, size, size + 1, s, s))
        print("export_fx.py: warning: the captured graph changes with the batch size (%s at "
              "batch %d and %d); exporting with a static batch of %d"
              % (why, size, size + 1, size), file=sys.stderr)
        del variants[s]
        symbols = symbols.without(s)
    return base, variants, symbols, _check_run(run, base, symbols)


def _check_run(run, base, symbols):
    """The captured run with every symbol two larger, on which the sums of symbols derived from
    the runs one larger are checked (Dependent.affine); None when there are no symbols, or the
    model fails there or captures another graph."""
    if not symbols.names():
        return None
    inputs = tuple(x for kind, _, x in base.inputs if kind == "input")
    try:
        check = run(symbols.grown_by_two(inputs))
    except ExportError:
        return None
    return check if structure_difference(base.gm, check.gm) is None else None


def _batch_only(problems, symbols):
    """Whether every problem is a value that follows the symbolic batch and nothing else."""
    return BATCH in symbols.sizes and all(str(e).endswith(advice([BATCH]))
                                          for _, _, e in problems)


def _convert_with_static_batch(module, example_inputs, base, variants, symbols, failed):
    """A conversion whose only problems are values that follow the batch (einsum at batch 1
    permutes by which dims are 1): first the symbolic batch traced at 2 and 3, where PyTorch
    arranges data movement as at any larger batch; failing that, a static batch, with a
    warning, as for a graph that changes with the batch."""
    decompositions = get_decompositions(aten_ops.DECOMPOSE)

    def run(inputs):
        captured = capture(module, inputs, decompositions)
        recompose(captured.gm)
        return captured

    if symbols.sizes[BATCH] == 1:
        runs = _runs_at_batch_2(run, example_inputs, symbols, base)
        if runs is not None:
            converter = _Converter(*runs)
            converter.convert()
            if not converter.problems:
                return converter
    static = symbols.without(BATCH)
    converter = _Converter(base, {s: v for s, v in variants.items() if s != BATCH}, static)
    converter.convert()
    if not converter.problems:
        first = failed.problems[0]
        print("export_fx.py: warning: %s (node %s) follows the batch size in a way graft cannot "
              "write symbolically (%s); exporting with a static batch of %d"
              % (first[1], first[0].name, str(first[2]).split(";")[0], symbols.sizes[BATCH]),
              file=sys.stderr)
    return converter


def _call_names(nodes):
    """The names of the traced calls that failed, in order: a getitem's is its producer's
    (the output of a split is that split's problem)."""
    names = []
    for node in nodes:
        if node.op == "call_function" and node.target is aten_ops.GETITEM:
            node = node.args[0]
        if node.name not in names:
            names.append(node.name)
    return names


def problems_error(module, problems):
    """One ExportError for every problem, grouped by ATen overload and reason."""
    groups = {}
    for node, key, error in problems:
        groups.setdefault((key, str(error)), []).append((node, error))
    missing = sorted({e.op for _, _, e in problems if isinstance(e, MissingOp)})
    lines, calls = [], 0
    for (key, reason), members in groups.items():
        frames, seen = [], set()
        for node, _ in members:
            frame = user_frame_of_node(node)
            if frame is not None and (frame.filename, frame.lineno) not in seen:
                seen.add((frame.filename, frame.lineno))
                frames.append(frame)
        names = _call_names(node for node, _ in members)
        calls += len(names)
        lines.append("  %s (node%s %s%s): %s" % (
            key, "s" if len(names) > 1 else "", ", ".join(names[:4]),
            " and %d more" % (len(names) - 4) if len(names) > 4 else "", reason))
        for frame in frames[:3]:
            lines.append("      at %s:%d in %s: %s" % (frame.filename, frame.lineno,
                                                       frame.name, frame.line))
        if len(frames) > 3:
            lines.append("      and %d more places" % (len(frames) - 3))
    text = ("cannot export %s with make_fx (ATen): %d ATen call%s cannot be converted to graft "
            "ops:\n%s" % (type(module).__name__, calls, "" if calls == 1 else "s",
                          "\n".join(lines)))
    if missing:
        one = len(missing) == 1
        text += ("\ngraft's registry lacks %s: %s. tools/export/aten_ops.py proposes %s; the "
                 "exporter uses an op as soon as graft's registry (docs/ops.md) has it. Until "
                 "then, write those lines with ops graft has (docs/ops.md)."
                 % ("this op" if one else "these ops", ", ".join(missing),
                    "its signature" if one else "their signatures"))
    if any(str(e) == NO_ROW for _, _, e in problems):
        text += ("\nAn ATen op without a row has no graft equivalent: write those lines with "
                 "ops graft has (docs/ops.md), or add a row to tools/export/aten_ops.py if a "
                 "graft op computes it.")
    return ExportError(text)


def convert(module, example_inputs, symbols, metadata=None):
    """Captures `module` (in eval mode) with make_fx and converts it; raises ExportError with
    every problem."""
    example_inputs = tuple(example_inputs)
    if graft_ops() is None:
        print("export_fx.py: warning: cannot read graft's op list '%s'; the ops the model "
              "needs are not checked against graft's registry" % ops_md_path(), file=sys.stderr)
    base, variants, symbols, check = _capture_runs(module, example_inputs, symbols)
    converter = _Converter(base, variants, symbols, check)
    converter.convert()
    if converter.problems and _batch_only(converter.problems, symbols):
        converter = _convert_with_static_batch(module, example_inputs, base, variants, symbols,
                                               converter)
    if converter.problems:
        raise problems_error(module, converter.problems)
    converter.prune_unused()
    return finish(module, example_inputs, converter, converter.symbols, metadata, base.gm, "aten")
