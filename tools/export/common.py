"""Values shared by the exporter's modules: the error types and what a traced node turns into.

A traced node's value during conversion is one of
  Ref            a node of the graft graph (a tensor),
  a Python value an int, float, bool, str, None or a tuple/list of them, folded at export time
                 (sizes, dims, arithmetic on them),
  Dependent      a folded int that differs between the runs the exporter traces with, one
                 with the example inputs and one per symbolic dim with that dim one larger
                 (x.size(0) under the batch symbol N, and what is computed from it).
"""


class ExportError(Exception):
    """The model cannot be exported; the message says why and what to do. The CLI prints it
    without a traceback and exits with 1."""


class Unsupported(Exception):
    """One traced node cannot be converted; the converter collects these and reports them
    all."""


class MissingOp(Unsupported):
    """A traced node needs a graft op that graft's registry does not have (yet)."""

    def __init__(self, op, also=None):
        super().__init__("needs graft op '%s', which graft's registry does not have yet%s"
                         % (op, "; also: " + also if also else ""))
        self.op = op


class Ref:
    """A reference to a node of the graft graph, written as {"node": name}."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "Ref(%r)" % self.name


class Dependent:
    """An int that depends on symbolic dims: `base` with the example inputs (whose symbols
    have the sizes `sizes`), changes[s] when symbol s is one larger (only the symbols that
    change it are keys), and `check` when every symbol is two larger (None: not known)."""

    __slots__ = ("base", "changes", "sizes", "check")

    def __init__(self, base, changes, sizes, check=None):
        self.base = base
        self.changes = changes
        self.sizes = sizes
        self.check = check

    def symbols(self):
        return sorted(self.changes)

    def symbol(self):
        """The symbol this int is, when it reads S in the base run and S + 1 in symbol S's run
        only (x.size(1) under T); None otherwise."""
        if len(self.changes) != 1:
            return None
        (s, value), = self.changes.items()
        return s if self.base == self.sizes[s] and value == self.base + 1 else None

    def affine(self):
        """This int as a sum of multiples of symbols and an int ("2*T", "T-1", "N+2*T-3"), the
        text graft's SymInt takes: the coefficients are the changes in the runs one larger,
        and the sum must give the value of the run with every symbol two larger (N*T, T*T do
        not); None otherwise."""
        coefficients = {s: v - self.base for s, v in self.changes.items()}
        constant = self.base - sum(c * self.sizes[s] for s, c in coefficients.items())
        if self.check is None or self.check != self.base + 2 * sum(coefficients.values()):
            return None
        text = ""
        for s in sorted(coefficients):
            c = coefficients[s]
            term = s if abs(c) == 1 else "%d*%s" % (abs(c), s)
            text += ("-" if c < 0 else "+" if text else "") + term
        if constant:
            text += "%+d" % constant
        return text

    def describe(self):
        """'5 at T=5, 6 at T=6'."""
        parts = ["%d at %s" % (self.base, ", ".join("%s=%d" % (s, self.sizes[s])
                                                      for s in self.symbols()))]
        for s in self.symbols():
            parts.append("%d at %s=%d" % (self.changes[s], s, self.sizes[s] + 1))
        return ", ".join(parts)

    def error(self, what):
        """The Unsupported for a use of this value where graft needs a constant."""
        return Unsupported("%s depends on %s (%s), but graft needs a constant here; %s"
                           % (what, "/".join(self.symbols()), self.describe(),
                              advice(self.symbols())))

    def __repr__(self):
        return "Dependent(%r, %r)" % (self.base, self.changes)


def advice(symbols):
    """What a user can do about a value that depends on `symbols` (N is the batch)."""
    user = [s for s in symbols if s != "N"]
    parts = []
    if "N" in symbols:
        parts.append("export with --static-batch")
    if user:
        parts.append("export without --dynamic-dim %s" % "/".join(user))
    return " or ".join(parts)


def as_int(value, what):
    """`value` as an int constant, or Unsupported saying what it is instead."""
    if isinstance(value, Dependent):
        raise value.error(what)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Unsupported("%s must be an int, got %r" % (what, value))
    return value


class Failed:
    """The value of a node that could not be converted; its users are skipped quietly."""


FAILED = Failed()
