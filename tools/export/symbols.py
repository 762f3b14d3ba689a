"""Symbolic dims: which input dims are symbols (the batch N on every input's dim 0, and each
`--dynamic-dim NAME=INPUT:DIM`), the inputs with one symbol grown by one, and what the runs at
those inputs say about every traced value.

The exporter traces once with the example inputs and once per symbol with that symbol's dims
one larger (the first slice repeated, so token ids stay valid indices). A dim that reads S in
the first run and S + 1 in the run for symbol S, and does not change in the others, is that
symbol; a Python int that changes is a Dependent. A reshape whose sizes depend on the symbols
becomes a -1, a flatten/unflatten that keeps the symbolic dims as they are, or a reshape to
symbolic sizes (["N", "T", 8]).
"""
import re

import torch

from .common import Dependent, ExportError, Unsupported, advice

BATCH = "N"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_dynamic_dim(text):
    """'T=1:1' or 'T=tokens:1' as (name, input index or name, dim); ValueError if malformed."""
    name, sep, rest = text.partition("=")
    where, sep2, dim = rest.rpartition(":")
    if not sep or not sep2 or not _NAME.match(name) or not where:
        raise ValueError("expected NAME=INPUT:DIM such as T=1:1, got '%s'" % text)
    try:
        dim = int(dim)
    except ValueError:
        raise ValueError("DIM must be an int in '%s'" % text) from None
    return name, int(where) if where.lstrip("-").isdigit() else where, dim


class Symbols:
    """The symbolic dims of one export: dims[s] = [(input index, dim)], sizes[s] = the
    example size. The batch symbol N, when present, comes first."""

    def __init__(self, dims, sizes):
        self.dims = dims
        self.sizes = sizes

    def names(self):
        return list(self.dims)

    def without(self, symbol):
        return Symbols({s: d for s, d in self.dims.items() if s != symbol},
                       {s: v for s, v in self.sizes.items() if s != symbol})

    def input_shape(self, index, shape):
        """An input's shape for model.json: its symbolic dims as their names."""
        shape = list(shape)
        for s, dims in self.dims.items():
            for i, d in dims:
                if i == index:
                    shape[d] = s
        return shape

    def grown_by_two(self, inputs):
        """The inputs with every symbol's dims two larger: the run that checks the sums of
        symbols derived from the runs one larger (Dependent.affine)."""
        for s in self.names():
            inputs = self.grown(self.grown(inputs, s), s)
        return inputs

    def grown(self, inputs, symbol):
        """The inputs with `symbol`'s dims one larger: the first slice repeated."""
        inputs = list(inputs)
        for i, d in self.dims[symbol]:
            x = inputs[i]
            inputs[i] = torch.cat([x, x.narrow(d, 0, 1)], dim=d)
        return tuple(inputs)


def resolve(specs, names, inputs, dynamic_batch):
    """Symbols from the parsed --dynamic-dim specs, the inputs' names and example tensors."""
    dims, sizes, taken = {}, {}, {}
    if dynamic_batch and inputs and inputs[0].dim() > 0:
        batch = int(inputs[0].shape[0])
        dims[BATCH] = [(i, 0) for i, x in enumerate(inputs)
                       if x.dim() > 0 and int(x.shape[0]) == batch]
        sizes[BATCH] = batch
        taken.update({(i, 0): BATCH for i, _ in dims[BATCH]})
    for name, where, dim in specs:
        if name == BATCH:
            raise ExportError("--dynamic-dim %s=...: '%s' is the batch's symbol; pick another "
                              "name" % (name, BATCH))
        if isinstance(where, int):
            if not 0 <= where < len(inputs):
                raise ExportError("--dynamic-dim %s=%d:%d: the model has %d input%s"
                                  % (name, where, dim, len(inputs),
                                     "" if len(inputs) == 1 else "s"))
            index = where
        elif where in names:
            index = names.index(where)
        else:
            raise ExportError("--dynamic-dim %s=%s:%d: no input named '%s' (the inputs are %s)"
                              % (name, where, dim, where, ", ".join(names)))
        rank = inputs[index].dim()
        if not -rank <= dim < rank:
            raise ExportError("--dynamic-dim %s=%s:%d: input '%s' has %d dims"
                              % (name, where, dim, names[index], rank))
        dim %= rank
        if (index, dim) in taken:
            raise ExportError("--dynamic-dim %s=%s:%d: dim %d of input '%s' is already the "
                              "symbol %s%s" % (name, where, dim, dim, names[index],
                                               taken[(index, dim)],
                                               " (the batch; add --static-batch to name it "
                                               "yourself)" if taken[(index, dim)] == BATCH
                                               else ""))
        size = int(inputs[index].shape[dim])
        if name in sizes and sizes[name] != size:
            raise ExportError("--dynamic-dim %s: dim %d of input '%s' has size %d, but %s is "
                              "%d elsewhere; one symbol is one size"
                              % (name, dim, names[index], size, name, sizes[name]))
        dims.setdefault(name, []).append((index, dim))
        sizes[name] = size
        taken[(index, dim)] = name
    return Symbols(dims, sizes)


# ** what the runs say **


def symbolic_shape(symbols, base, variants):
    """The shape for model.json meta given a tensor's shape in the base run and per symbol's
    run: symbol names where a dim follows exactly one symbol, None when a dim changes another
    way (graft infers those)."""
    if any(len(v) != len(base) for v in variants.values()):
        return None
    shape = []
    for k, d in enumerate(base):
        changed = [s for s, v in variants.items() if v[k] != d]
        if not changed:
            shape.append(int(d))
        elif (len(changed) == 1 and d == symbols.sizes[changed[0]]
              and variants[changed[0]][k] == d + 1):
            shape.append(changed[0])
        else:
            return None
    return shape


def fold(symbols, base, variants, what="a Python value", check=None):
    """One folded Python value from its value per run: the value itself when no run changes
    it, a Dependent for an int that changes, Unsupported for anything else that changes.
    `check` is the value in the run with every symbol two larger (None: no such run), for
    Dependent.affine to check its sum on."""
    if isinstance(base, (tuple, list)) and all(
            type(v) is type(base) and len(v) == len(base) for v in variants.values()):
        checks = (check if isinstance(check, (tuple, list)) and len(check) == len(base)
                  else [None] * len(base))
        return type(base)(fold(symbols, b, {s: v[k] for s, v in variants.items()}, what,
                               checks[k])
                          for k, b in enumerate(base))
    changes = {s: v for s, v in variants.items() if not (v == base and type(v) is type(base))}
    if not changes:
        return base
    if isinstance(base, int) and not isinstance(base, bool) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in changes.values()):
        return Dependent(base, changes, symbols.sizes,
                         check if isinstance(check, int) and not isinstance(check, bool)
                         else None)
    symbols_changed = sorted(changes)
    raise Unsupported("%s that changes with %s (%r at %s, %s); %s"
                      % (what, "/".join(symbols_changed), base,
                         ", ".join("%s=%d" % (s, symbols.sizes[s]) for s in symbols_changed),
                         ", ".join("%r at %s=%d" % (changes[s], s, symbols.sizes[s] + 1)
                                   for s in symbols_changed),
                         advice(symbols_changed)))


def reshape_plan(symbols, in_shapes, out_shapes):
    """How a reshape from in_shapes to out_shapes (each {None: base shape, symbol: shape in
    that symbol's run}) is written. Returns a list of steps, each ("flatten", start, end),
    ("reshape", sizes), ("unflatten", dim, sizes), ("unsqueeze", dim) or ("squeeze", dim); []
    is the identity. One size that follows the symbols becomes -1, dims the reshape keeps as
    they are stay symbolic; when several sizes follow the symbols, each that is one symbol
    becomes its name ("T", a symbolic size) and at most one other the -1."""
    base_in, base_out = list(in_shapes[None]), list(out_shapes[None])
    runs = list(in_shapes)
    if any(len(in_shapes[r]) != len(base_in) or len(out_shapes[r]) != len(base_out)
           for r in runs):
        raise Unsupported("a reshape whose rank changes with the symbols")
    if all(list(in_shapes[r]) == list(out_shapes[r]) for r in runs):
        return []
    varying = [k for k in range(len(base_out)) if any(out_shapes[r][k] != base_out[k]
                                                      for r in runs)]
    p = 0
    while p < min(len(base_in), len(base_out)) and all(
            in_shapes[r][p] == out_shapes[r][p] for r in runs):
        p += 1
    q = 0
    while q < min(len(base_in), len(base_out)) - p and all(
            in_shapes[r][-1 - q] == out_shapes[r][-1 - q] for r in runs):
        q += 1
    mid_in, mid_out = base_in[p:len(base_in) - q], base_out[p:len(base_out) - q]
    if len(mid_out) == 1 and len(mid_in) >= 2:
        return [("flatten", p, p + len(mid_in) - 1)]
    if not mid_in and mid_out == [1]:
        return [("unsqueeze", p)]
    if mid_in == [1] and not mid_out:
        return [("squeeze", p)]
    if len(varying) <= 1:
        return [("reshape", [-1 if k in varying else d for k, d in enumerate(base_out)])]
    split_varying = [k for k in varying if p <= k < len(base_out) - q]
    if len(split_varying) <= 1 and mid_in and len(mid_out) >= 2:
        sizes = [-1 if p + k in split_varying else d for k, d in enumerate(mid_out)]
        steps = [] if len(mid_in) == 1 else [("flatten", p, p + len(mid_in) - 1)]
        return steps + [("unflatten", p, sizes)]
    # Several sizes follow the symbols ([N*T, C] -> [N, T, C]): each that is one symbol is
    # written as its name (reshape's sizes are SymInt[]), and one other may be the -1.
    followed = {k: _followed_symbol(symbols, out_shapes, k) for k in varying}
    others = [k for k in varying if followed[k] is None]
    if len(others) <= 1:
        sizes = list(base_out)
        for k in varying:
            sizes[k] = followed[k] or -1
        return [("reshape", sizes)]
    syms = sorted({s for s in runs if s is not None
                   and any(out_shapes[s][k] != base_out[k] for k in others)})
    raise Unsupported("a reshape from %s to %s has %d sizes that depend on %s and are not a "
                      "symbol each; graft's reshape can infer one (-1); %s"
                      % (shape_text(symbols, in_shapes), shape_text(symbols, out_shapes),
                         len(others), "/".join(syms), advice(syms)))


def _followed_symbol(symbols, shapes, k):
    """The symbol dim k of `shapes` ({None: base, symbol: shape}) follows, or None."""
    one = symbolic_shape(symbols, (shapes[None][k],), {s: (v[k],) for s, v in shapes.items()
                                                       if s is not None})
    return one[0] if one is not None and isinstance(one[0], str) else None


def shape_text(symbols, shapes):
    """A shape for messages: constant dims as ints, a dim that follows one symbol as its
    name, any other changing dim as '?'."""
    dims = []
    for k, d in enumerate(shapes[None]):
        one = symbolic_shape(symbols, (d,), {s: (v[k],) for s, v in shapes.items()
                                             if s is not None})
        dims.append("?" if one is None else str(one[0]))
    return "[%s]" % ", ".join(dims)
