"""Models, rules and rewriting: thin, typed wrappers over graft._graft."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from graft import _graft

Dim = Union[int, str]  # a size, or a symbol such as "N"
PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class TensorSpec:
    """A model input or output: its name, shape (sizes or symbols) and dtype ("float32")."""
    name: str
    shape: Optional[Tuple[Dim, ...]]
    dtype: Optional[str]


@dataclass(frozen=True)
class Node:
    """One node, as torch.fx names its parts.

    op is "placeholder", "get_attr", "call_function" or "output"; for a call, target is the
    op ("conv2d"), args the operands (node names, numbers or None) and kwargs every attribute.
    """
    name: str
    op: str
    target: str
    args: Tuple[Any, ...]
    kwargs: Dict[str, Any] = field(default_factory=dict)
    shape: Optional[Tuple[Dim, ...]] = None
    dtype: Optional[str] = None
    operand_names: Tuple[str, ...] = ()  # each arg's parameter name ("input", "weight", …)
    # The attributes whose value names a symbol (kwargs["end"] == "T" for x[:, :T],
    # kwargs["shape"] == ["N", "T", 8] for a reshape).
    symbols: Tuple[str, ...] = ()


def _spec(info: Tuple[str, Optional[List[Dim]], Optional[str]]) -> TensorSpec:
    name, shape, dtype = info
    return TensorSpec(name, tuple(shape) if shape is not None else None, dtype)


class Model:
    """A loaded model.json with its weights. Rewriting returns a new Model."""

    def __init__(self, handle: "_graft.Model"):
        self._handle = handle

    @staticmethod
    def load(path: PathLike, allow_paths: Sequence[PathLike] = ()) -> "Model":
        """Loads and verifies a model; raises ModelError listing every problem found."""
        return Model(_graft.Model.load(os.fspath(path), [os.fspath(p) for p in allow_paths]))

    def save(self, path: PathLike) -> None:
        """Writes model.json and its weights file atomically, as `rewrite -o` does."""
        self._handle.save(os.fspath(path))

    def copy(self) -> "Model":
        return Model(self._handle.copy())

    @property
    def path(self) -> str:
        """The model.json this model was loaded from."""
        return self._handle.path

    @property
    def metadata(self) -> Dict[str, Any]:
        """model.json's "metadata" object."""
        return json.loads(self._handle.metadata_json)

    @property
    def nodes(self) -> List[Node]:
        return [Node(d["name"], d["op"], d["target"], tuple(d["args"]), d["kwargs"],
                     tuple(d["shape"]) if d["shape"] is not None else None, d["dtype"],
                     tuple(d["operand_names"]), tuple(d["symbols"]))
                for d in self._handle.nodes()]

    @property
    def inputs(self) -> List[TensorSpec]:
        return [_spec(i) for i in self._handle.inputs()]

    @property
    def outputs(self) -> List[TensorSpec]:
        return [_spec(o) for o in self._handle.outputs()]

    def op_counts(self) -> Dict[str, int]:
        """{op: number of call_function nodes}."""
        counts: Dict[str, int] = {}
        for n in self.nodes:
            if n.op == "call_function":
                counts[n.target] = counts.get(n.target, 0) + 1
        return counts

    def __len__(self) -> int:
        return self._handle.node_count()

    def print(self) -> str:
        """The graph as a table (torch.fx's print_tabular); also printed."""
        text = self._handle.table()
        print(text)
        return text

    def table(self) -> str:
        return self._handle.table()

    def dot(self, title: str = "") -> str:
        """The graph as Graphviz DOT text."""
        return self._handle.dot(title)

    def rewrite(self, rules: "Rules", explain: Optional[str] = None, stats: bool = False,
                verify_each: bool = False) -> "RewriteResult":
        """Applies every phase of `rules`, as `rewrite --rules` does, to a copy of this model.

        explain="RULE@NODE" also says what became of RULE at NODE in this run, as
        `rewrite --explain RULE@NODE` prints it: result.explanation is (applied, text), the
        text one line per phase that holds the rule (what it finds on the graph that phase
        starts from) and a last line saying whether it applied there or which rewrite took the
        node first. Raises RewriteError (with the rule's file:line) when a rewrite fails.
        """
        explanation = None
        if explain is not None:
            rule, at, node = explain.partition("@")
            if not rule or not at or not node:
                raise ValueError(f"explain takes 'RULE@NODE', got {explain!r}")
            explanation = _graft.explain_run(self._handle, rules._handle, rule, node)
        handle, applied, rule_stats = _graft.rewrite(self._handle, rules._handle, stats,
                                                     verify_each)
        return RewriteResult(Model(handle), [tuple(a) for a in applied], rule_stats, explanation)

    def explain(self, rules: "Rules", rule: str, node: str) -> Tuple[bool, str]:
        """Whether `rule` matches at `node` of this model as it is, and why (not): the first
        failing check, or the driver's reason to decline. rewrite(explain=...) follows the
        node through a whole run instead."""
        matched, reason, _doc = _graft.explain(self._handle, rules._handle, rule, node)
        return matched, reason

    def __repr__(self) -> str:
        ops = ", ".join(f"{op}×{n}" for op, n in sorted(self.op_counts().items()))
        return f"<graft.Model {self.path or '(in memory)'}: {len(self)} nodes; {ops}>"


@dataclass
class RewriteResult:
    """What Model.rewrite returns: the new model, each rewrite as (rule, node), per rule
    {candidates, matches, applied, seconds} when stats were asked for, and (matched, reason)
    when an explanation was."""
    model: Model
    applied: List[Tuple[str, str]]
    stats: Optional[Dict[str, Dict[str, float]]] = None
    explanation: Optional[Tuple[bool, str]] = None


class Rules:
    """.rules files with their imports, checked and compiled into one matcher."""

    def __init__(self, handle: "_graft.Rules"):
        self._handle = handle

    @staticmethod
    def load(*paths: PathLike, allow_paths: Sequence[PathLike] = ()) -> "Rules":
        """Loads rule files; raises RulesError whose message has each file:line:col."""
        return Rules(_graft.Rules.load([os.fspath(p) for p in paths],
                                       [os.fspath(p) for p in allow_paths]))

    @property
    def rule_names(self) -> List[str]:
        return self._handle.rule_names()

    @property
    def phase_names(self) -> List[str]:
        return self._handle.phase_names()

    @property
    def warnings(self) -> str:
        """The checker's warnings (unused bindings, …), as the CLI prints them; "" if none."""
        return self._handle.warnings

    def dump(self) -> str:
        """The compiled matcher, as `rewrite check --dump` prints it."""
        return self._handle.dump()

    def __repr__(self) -> str:
        return f"<graft.Rules {', '.join(self._handle.paths)}: {len(self.rule_names)} rules>"


def load(path: PathLike, allow_paths: Sequence[PathLike] = ()) -> Model:
    """graft.load(path) is Model.load(path)."""
    return Model.load(path, allow_paths)
