"""Values shared by the exporter's modules: the error types and what an fx node turns into.

An fx node's value during conversion is one of
  Ref            a node of the graft graph (a tensor),
  a Python value an int, float, bool, str, None or a tuple/list of them, folded at export time
                 (sizes, dims, arithmetic on them),
  BatchDependent a folded int that differs between the two batch sizes the exporter traces
                 with (x.size(0) and what is computed from it).
"""


class ExportError(Exception):
    """The model cannot be exported; the message says why and what to do. The CLI prints it
    without a traceback and exits with 1."""


class Unsupported(Exception):
    """One fx node cannot be converted; the converter collects these and reports them all."""


class Ref:
    """A reference to a node of the graft graph, written as {"node": name}."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "Ref(%r)" % self.name


class BatchDependent:
    """An int computed from the batch size: `small` at the traced batch, `large` at batch + 1."""

    __slots__ = ("small", "large")

    def __init__(self, small, large):
        self.small = small
        self.large = large

    def __repr__(self):
        return "BatchDependent(%r, %r)" % (self.small, self.large)


class Failed:
    """The value of a node that could not be converted; its users are skipped quietly."""


FAILED = Failed()
