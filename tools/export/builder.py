"""The graft graph under construction, shared by both capture paths (converter.py for torch.fx,
aten_converter.py for make_fx): graft's nodes as model.json objects, the tensors they read,
what is known of every node's value in each traced run, and the interface the op tables call
(`cx.call`, `cx.step`, `cx.shape`, `cx.dtype`, `cx.reshape`).

Each traced node becomes zero or more graft nodes: `step` adds an intermediate one (named
after the traced node and its op), `call` the node that holds the traced node's value (named
as the traced node, with its recorded shape and dtype as meta).
"""
import torch

from .common import Dependent, MissingOp, Ref, Unsupported, advice
from .registry import graft_ops
from .symbols import reshape_plan, shape_text, symbolic_shape


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


def summarize(value):
    if isinstance(value, torch.Tensor):
        return TensorInfo(value.shape, value.dtype)
    if isinstance(value, torch.Size):
        return tuple(int(d) for d in value)
    if isinstance(value, (tuple, list)):
        return type(value)(summarize(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return Opaque(value)


def has_tensor(summary):
    if isinstance(summary, TensorInfo):
        return True
    if isinstance(summary, (tuple, list)):
        return any(has_tensor(v) for v in summary)
    return False


_DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
                torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32",
                torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8",
                torch.bool: "bool"}


def dtype_name(dtype):
    if dtype not in _DTYPE_NAMES:
        raise Unsupported("a %s tensor; graft's dtypes are %s"
                          % (str(dtype).replace("torch.", ""), ", ".join(_DTYPE_NAMES.values())))
    return _DTYPE_NAMES[dtype]


class Converted:
    """A converted model: the model.json object (without "weights"), its tensors, the traced
    graph, the names of the output nodes, whether the batch is symbolic, and the capture path
    ("fx" or "aten")."""

    def __init__(self, model, tensors, graph_module, output_names, dynamic, capture="fx"):
        self.model = model
        self.tensors = tensors
        self.graph_module = graph_module
        self.output_names = output_names
        self.dynamic = dynamic
        self.capture = capture


def _cuts_to(runs, shapes):
    """The (dim, size) slices from the front that give a value of shapes `runs` the shapes
    `shapes` in every run: [] if it has them, None if slicing cannot (a dim that follows the
    symbols must be the target's, a constant one at least as large)."""
    target = tuple(shapes[None])
    if len(runs[None]) != len(target) or any(s not in runs for s in shapes):
        return None
    cuts = []
    for k, d in enumerate(target):
        if any(shapes[s][k] != d for s in shapes):
            if any(runs[s][k] != shapes[s][k] for s in shapes):
                return None
        elif any(runs[s][k] != runs[None][k] for s in shapes) or runs[None][k] < d:
            return None
        elif runs[None][k] > d:
            cuts.append((k, d))
    return cuts


def _referenced(value):
    """The node names a JSON argument value refers to ({"node": name}, nested in lists)."""
    if isinstance(value, dict):
        if set(value) == {"node"}:
            return [value["node"]]
        return [name for v in value.values() for name in _referenced(v)]
    if isinstance(value, list):
        return [name for v in value for name in _referenced(v)]
    return []


class GraphBuilder:
    """The graft graph being built. Subclasses set self.current = (base summary, {symbol:
    summary}) of the traced node being converted and self.current_name before calling its
    converter."""

    def __init__(self, symbols, used_names):
        self.symbols = symbols
        self.nodes = []               # graft's nodes (JSON objects) in topological order
        self.tensors = {}             # safetensors name -> tensor
        self.attr_nodes = {}          # tensor name -> Ref of its get_attr node
        self.info = {}                # graft node name -> (TensorInfo, {symbol: TensorInfo})
        self.used_names = set(used_names)
        self.stand_ins = set()        # names standing in for values that failed to convert
        self.current = (None, {})
        self.current_name = None
        self.result_name = None

    def prune_unused(self):
        """Drops the call and get_attr nodes no output depends on (what an op folded at export
        read), and the tensors only those read. Placeholders stay: they are the inputs."""
        by_name = {n["name"]: n for n in self.nodes}
        used, stack = set(), [n["name"] for n in self.nodes if n["op"] == "output"]
        while stack:
            name = stack.pop()
            if name in used:
                continue
            used.add(name)
            node = by_name[name]
            stack += _referenced(node.get("args", [])) + _referenced(node.get("kwargs", {}))
        self.nodes = [n for n in self.nodes if n["op"] == "placeholder" or n["name"] in used]
        read = {n["target"] for n in self.nodes if n["op"] == "get_attr"}
        self.tensors = {k: v for k, v in self.tensors.items() if k in read}
        self.attr_nodes = {k: v for k, v in self.attr_nodes.items() if k in read}

    # ** the interface of the op tables **

    def call(self, op, operands, **attrs):
        """The graft node that computes the traced node's value."""
        if self.result_name is not None:
            raise AssertionError("converter for %s emitted two results" % self.current_name)
        self.result_name = self.current_name
        base, variants = self.current
        meta = self._meta(base, variants)
        self._emit(self.current_name, op, operands, attrs, meta)
        if isinstance(base, TensorInfo):
            self.info[self.current_name] = (base, variants)
        return Ref(self.current_name)

    def step(self, op, operands, **attrs):
        """An intermediate graft node of the traced node's conversion (no meta: graft infers
        its shape)."""
        name = self.unique("%s_%s" % (self.current_name, op))
        self._emit(name, op, operands, attrs, None)
        return Ref(name)

    def symbolic(self, op, param, value, what):
        """An attribute value of graft op `op`: a Dependent that is a symbol S becomes "S", and
        one that is a sum of multiples of symbols its text ("T-1", Dependent.affine), where the
        registry declares `param` SymInt or SymScalar (slice's end, arange's end); any other
        Dependent is refused as `what`."""
        if not isinstance(value, Dependent):
            return value
        signature = (graft_ops() or {}).get(op)
        types = {n: t for n, t, _ in signature.params} if signature is not None else {}
        declared = types.get(param, "")
        if value.symbol() is not None and declared.startswith("Sym"):
            return value.symbol()
        if declared.startswith("Sym") and not declared.endswith("[]") and value.affine():
            return value.affine()
        raise value.error(what)

    def shape(self, ref):
        """The recorded shape (in the run with the example inputs) of an operand."""
        return self._info(ref)[0].shape

    def dtype(self, ref):
        return self._info(ref)[0].dtype

    def shapes(self, ref):
        """{None: base shape, symbol: shape in that symbol's run} of an operand."""
        base, variants = self._info(ref)
        shapes = {None: base.shape}
        shapes.update({s: v.shape for s, v in variants.items()})
        return shapes

    def result_dtype(self):
        """The recorded dtype of the traced node being converted."""
        base, _ = self.current
        if not isinstance(base, TensorInfo):
            raise Unsupported("its result is not a tensor")
        return base.dtype

    def result_shapes(self):
        """The same for the traced node being converted."""
        base, variants = self.current
        if not isinstance(base, TensorInfo):
            raise Unsupported("its result is not a tensor")
        shapes = {None: base.shape}
        shapes.update({s: v.shape for s, v in variants.items() if isinstance(v, TensorInfo)})
        return shapes

    def reshape(self, input):
        """The traced node as a reshape of `input` to its recorded shape, written as
        symbols.reshape_plan says (sizes that follow the symbols become -1, stay dims or are
        written as the symbols)."""
        in_shapes, out_shapes = self.shapes(input), self.result_shapes()
        plan = reshape_plan(self.symbols, in_shapes, out_shapes)
        if not plan:
            return input
        value = input
        for i, (op, *args) in enumerate(plan):
            if op in ("reshape", "unflatten") and any(isinstance(d, str) for d in args[-1]):
                self._require_symbolic_sizes(op, args[-1], in_shapes, out_shapes)
            emit = self.call if i + 1 == len(plan) else self.step
            if op == "flatten":
                value = emit("flatten", [value], start_dim=args[0], end_dim=args[1])
            elif op == "reshape":
                value = emit("reshape", [value], shape=args[0])
            elif op == "unflatten":
                value = emit("unflatten", [value], dim=args[0], sizes=args[1])
            else:
                value = emit(op, [value], dim=args[0])
        return value

    # ** internals **

    def _require_symbolic_sizes(self, op, sizes, in_shapes, out_shapes):
        """Refuses a reshape to symbolic `sizes` when graft's `op` declares them int[], not
        SymInt[] (a registry from before symbolic sizes)."""
        signature = (graft_ops() or {}).get(op)
        if signature is None or any(t == "SymInt[]" for _, t, _ in signature.params):
            return
        syms = sorted({d for d in sizes if isinstance(d, str)})
        raise Unsupported("a reshape from %s to %s needs symbolic sizes, and graft's %s takes "
                          "int[]; %s" % (shape_text(self.symbols, in_shapes),
                                         shape_text(self.symbols, out_shapes), op, advice(syms)))

    def unique(self, name):
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
        candidate, i = name, 1
        while candidate in self.used_names:
            candidate = "%s_%d" % (name, i)
            i += 1
        self.used_names.add(candidate)
        return candidate

    def _info(self, ref):
        info = self.info.get(ref.name) if isinstance(ref, Ref) else None
        if info is None or not isinstance(info[0], TensorInfo):
            raise Unsupported("'%s' is not a tensor with a recorded shape"
                              % getattr(ref, "name", ref))
        return info

    def witness(self, shapes):
        """A graph value whose shape is `shapes` ({None: base, symbol: shape}) in every run, to
        take a symbolic shape from (expand_as, full_like): one that has it, else one that has
        its symbolic dims and at least its constant ones, sliced down (a class token expanded
        to the batch takes its shape from x[:, :1]); None if there is none."""
        best = None
        for name, (base, variants) in self.info.items():
            if name in self.stand_ins:
                continue
            runs = {None: base.shape}
            runs.update({s: v.shape for s, v in variants.items()})
            cuts = _cuts_to(runs, shapes)
            if cuts == []:
                return Ref(name)
            if cuts is not None and best is None:
                best = (name, cuts)
        if best is None:
            return None
        value = Ref(best[0])
        for k, d in best[1]:
            value = self.step("slice", [value], dim=k, end=d)
        return value

    def _emit(self, name, op, operands, attrs, meta):
        registry = graft_ops()
        operands = list(operands)
        while operands and operands[-1] is None:
            operands = operands[:-1]
        try:
            args = [self.json_value(v) for v in operands]
            kwargs = {k: self.json_value(v) for k, v in attrs.items() if v is not None}
        except Unsupported as e:
            if registry is not None and op not in registry:
                raise MissingOp(op, str(e)) from None
            raise
        if registry is not None and op not in registry:
            raise MissingOp(op)
        entry = {"name": name, "op": "call_function", "target": op, "args": args}
        if kwargs:
            entry["kwargs"] = kwargs
        if meta is not None:
            entry["meta"] = meta
        self.nodes.append(entry)

    def _meta(self, base, variants):
        """meta for a recorded tensor: symbols where a dim follows one; None when a dim changes
        with the symbols in another way (graft infers those)."""
        if not isinstance(base, TensorInfo):
            return None
        shapes = {s: v.shape for s, v in variants.items() if isinstance(v, TensorInfo)}
        if len(shapes) != len(variants):
            return None
        shape = symbolic_shape(self.symbols, base.shape, shapes)
        if shape is None:
            return None
        return {"shape": shape, "dtype": dtype_name(base.dtype)}

    def add_placeholder(self, name, index, info):
        self.nodes.append({"name": name, "op": "placeholder", "target": name,
                           "meta": {"shape": self.symbols.input_shape(index, info.shape),
                                    "dtype": dtype_name(info.dtype)}})
        variants = {}
        for s, dims in self.symbols.dims.items():
            shape = list(info.shape)
            for i, d in dims:
                if i == index:
                    shape[d] += 1
            variants[s] = TensorInfo(shape, info.dtype)
        self.info[name] = (info, variants)
        return Ref(name)

    def attr_ref(self, path, tensor, name=None, dtypes=(torch.float32,)):
        """A get_attr node for a tensor stored in the weights file under `path`."""
        if path in self.attr_nodes:
            return self.attr_nodes[path]
        if not isinstance(tensor, torch.Tensor):
            raise Unsupported("'%s' is a %s, not a tensor" % (path, type(tensor).__name__))
        if tensor.dtype not in dtypes:
            raise Unsupported("tensor '%s' is %s; graft models hold %s tensors"
                              % (path, str(tensor.dtype).replace("torch.", ""),
                                 "/".join(dtype_name(d) for d in dtypes)))
        name = name or self.unique(path.replace(".", "_"))
        self.nodes.append({"name": name, "op": "get_attr", "target": path,
                           "meta": {"shape": list(tensor.shape),
                                    "dtype": dtype_name(tensor.dtype)}})
        self.tensors[path] = tensor.detach()
        info = TensorInfo(tensor.shape, tensor.dtype)
        self.info[name] = (info, {s: info for s in self.symbols.names()})
        ref = Ref(name)
        self.attr_nodes[path] = ref
        return ref

    def json_value(self, value):
        if isinstance(value, Ref):
            return {"node": value.name}
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            # JSON has no infinities or NaN: model.json writes them as strings
            # (docs/decisions/0007-non-finite-floats.md).
            if value != value:
                return "nan"
            if value in (float("inf"), float("-inf")):
                return "inf" if value > 0 else "-inf"
            return value
        if isinstance(value, (tuple, list)):
            return [self.json_value(v) for v in value]
        if isinstance(value, Dependent):
            raise value.error("a size")
        raise Unsupported("cannot write the value %r" % (value,))
