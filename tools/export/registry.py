"""graft's op registry as the exporter sees it: every op's name and parameters, read from
docs/ops.md. `rewrite ops --markdown` generates that file from engine/ops/op_table*.cpp and
engine_test fails when it is stale, so an op added to the registry is visible here without a
change to the exporter. The environment variable GRAFT_OPS_MD names another file in that
format (the tests use it to export against a registry with or without particular ops).
"""
import os
import re

OPS_MD = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "docs", "ops.md")

_SIGNATURE = re.compile(r"^([a-z_0-9]+)\((.*)\)$")


class Signature:
    """An op's parameters in order: [(name, type text, has_default)]."""

    def __init__(self, name, params):
        self.name = name
        self.params = params

    def names(self):
        return [p[0] for p in self.params]

    def __str__(self):
        return "%s(%s)" % (self.name, ", ".join(
            "%s %s%s" % (t, n, "=..." if d else "") for n, t, d in self.params))


def parse_signature(text):
    """'conv2d(Tensor input, int[2] stride=1, ...)' as a Signature; None if malformed."""
    m = _SIGNATURE.match(text.strip())
    if not m:
        return None
    params = []
    for part in _split_params(m.group(2)):
        decl, eq, _ = part.partition("=")
        words = decl.split()
        if len(words) != 2:
            return None
        params.append((words[1], words[0], bool(eq)))
    return Signature(m.group(1), params)


def _split_params(text):
    """Splits at commas outside brackets (defaults such as [1, 1])."""
    parts, depth, current = [], 0, ""
    for c in text:
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        parts.append(current.strip())
    return parts


_cache = {}


def ops_md_path():
    return os.environ.get("GRAFT_OPS_MD") or OPS_MD


def graft_ops(path=None):
    """{op name: Signature} of graft's registry; None when docs/ops.md is not there (an
    exporter copied out of the source tree), in which case nothing can be checked."""
    path = path or ops_md_path()
    if path in _cache:
        return _cache[path]
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        _cache[path] = None
        return None
    ops = {}
    for i, line in enumerate(lines):
        if line == "```" and i > 1 and lines[i - 2].startswith("### ") and i + 1 < len(lines):
            signature = parse_signature(lines[i + 1])
            if signature is not None:
                ops[signature.name] = signature
    _cache[path] = ops
    return ops
