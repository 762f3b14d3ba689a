"""The row type of the ATen table (aten_ops.py): how one ATen overload becomes graft ops.

A row names the graft op and says where each of its operands and attributes comes from:

    Row("layer_norm", ["input"], {"normalized_shape": "normalized_shape", "weight": "weight",
        "bias": "bias", "eps": "eps"})

`operands` are ATen argument names, in the graft op's order. `attrs` maps a graft parameter
to an ATen argument name, to (name, function of its value), to Const(value), or to a function
of the bound arguments. `require` lists ATen arguments that must have a value (with the
reason); `drop` lists those the row ignores (layout, device, memory_format...). Every argument
of the ATen schema is one of these (tests/models/aten_table_test.py checks it). A row with
`convert` runs that function instead; one with `outputs` is a multi-output op whose uses
(getitem) each become graft ops.
"""
import torch

from .builder import dtype_name
from .common import Dependent, Ref, Unsupported, as_int

TENSOR_OPTIONS = ("layout", "device", "pin_memory")


class Const:
    """A constant graft attribute."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Args:
    """An ATen call's arguments bound to its schema by name, defaults filled in; values are
    Refs (tensors), lists of Refs, Python values or Dependent ints. `node` is the ATen node
    (for converters that read its inputs' recorded layout)."""

    def __init__(self, target, values, node=None):
        self.target = target
        self.values = values
        self.node = node

    def __getattr__(self, name):
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None

    def int(self, name):
        return as_int(self.values[name], self._what(name))

    def ints(self, name):
        value = self.values[name]
        if value is None:
            return None
        if not isinstance(value, (tuple, list)):
            value = [value]
        return [as_int(v, self._what(name)) for v in value]

    def tensor(self, name):
        value = self.values[name]
        if not isinstance(value, Ref):
            raise Unsupported("argument '%s' must be a tensor computed by the graph, got %r"
                              % (name, value))
        return value

    def _what(self, name):
        return "argument '%s' of %s" % (name, self.target)


def dtype_attr(value):
    """A torch dtype as graft's dtype name (attributes of type str)."""
    return None if value is None else dtype_name(value)


def scalar(value):
    """A Python number as an attribute: floats stay floats, ints ints."""
    return float(value) if isinstance(value, float) else value


def bind(target, args, kwargs):
    """{argument name: value} for an ATen call, by its schema."""
    schema = target._schema
    values = {}
    arguments = schema.arguments
    for i, value in enumerate(args):
        values[arguments[i].name] = value
    values.update(kwargs)
    for a in arguments:
        if a.name not in values:
            values[a.name] = a.default_value
    return values


def check_options(a):
    """layout, device and pin_memory of a factory or copy: strided CPU tensors only."""
    layout = a.values.get("layout")
    if layout not in (None, torch.strided):
        raise Unsupported("layout=%s; graft tensors are strided" % layout)
    device = a.values.get("device")
    if device is not None and torch.device(device).type != "cpu":
        raise Unsupported("device=%s; export the model on the CPU" % device)


class Row:
    def __init__(self, graft=None, operands=(), attrs=None, require=None, drop=(),
                 convert=None, outputs=None, note=""):
        self.graft = graft
        self.operands = list(operands)
        self.attrs = dict(attrs or {})
        self.require = dict(require or {})
        self.drop = tuple(drop)
        self.convert = convert
        self.outputs = outputs
        self.note = note

    def sources(self):
        """The ATen argument names a declarative row reads (for the completeness test)."""
        names = set(self.operands) | set(self.require) | set(self.drop)
        for source in self.attrs.values():
            if isinstance(source, str):
                names.add(source)
            elif isinstance(source, tuple):
                names.add(source[0])
        return names

    def apply(self, cx, a):
        """The graft value of the call (a Ref, or an operand for an identity)."""
        self.check(a)
        if self.convert is not None:
            return self.convert(cx, a)
        operands = [a.values[name] for name in self.operands]
        for name, value in zip(self.operands, operands):
            if isinstance(value, Dependent):
                raise value.error("argument '%s' of %s" % (name, a.target))
        attrs = {k: self._attr(cx, a, k, source) for k, source in self.attrs.items()}
        return cx.call(self.graft, operands, **attrs)

    def check(self, a):
        for name, (expected, reason) in self.require.items():
            value = a.values[name]
            ok = expected(value) if callable(expected) else value == expected
            if not ok:
                raise Unsupported("%s=%r: %s" % (name, value, reason))
        if set(TENSOR_OPTIONS) & set(self.drop):
            check_options(a)

    def _attr(self, cx, a, key, source):
        if isinstance(source, Const):
            return source.value
        if isinstance(source, str):
            value = a.values[source]
            if isinstance(value, Dependent):
                return cx.symbolic(self.graft, key, value, "argument '%s' of %s"
                                   % (source, a.target))
        elif isinstance(source, tuple):
            value = a.values[source[0]]
            if isinstance(value, Dependent):
                return cx.symbolic(self.graft, key, value, "argument '%s' of %s"
                                   % (source[0], a.target))
            return None if value is None else source[1](value)
        else:
            return source(a)
        if isinstance(value, Dependent) or (isinstance(value, (list, tuple)) and any(
                isinstance(v, Dependent) for v in value)):
            bad = value if isinstance(value, Dependent) else next(
                v for v in value if isinstance(v, Dependent))
            raise bad.error("argument '%s' of %s" % (source, a.target))
        return value


def first_output(row, others):
    """outputs= of a multi-output op whose graft op computes only output 0 (`others` names
    the rest, for the message)."""
    def output(cx, a, index):
        if index != 0:
            raise Unsupported("its output %d (%s) is used, but graft's %s computes output 0 "
                              "only" % (index, others, row.graft))
        return row.apply(cx, a)
    output.row = row
    return output


def identity(name):
    """A row whose value is its operand `name` (a no-op at inference in a functional graph)."""
    def convert(cx, a):
        return a.values[name]
    return Row(convert=convert, operands=[name])


def unsupported(reason):
    """A row for an op that has no graft equivalent by design; `reason` says what to do."""
    def convert(cx, a):
        raise Unsupported(reason)
    return Row(convert=convert)
