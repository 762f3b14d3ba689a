"""graft.torch.optimize: a PyTorch module rewritten with .rules files and run on graft's
runtime, behind the nn.Module interface.

    fast = graft.torch.optimize(net, (x,))          # export, rewrite with rules/std.rules, compile
    with torch.no_grad():
        y = fast(x)                                 # torch tensors in and out

Inference only: the forward pass refuses inputs that require grad (graft computes no
gradients). Symbolic dims of the export (the batch, --dynamic-dim ones) may change from call to
call; each new set of input shapes is compiled once.
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Sequence, Union

import torch

from graft import fx
from graft.model import Model, Rules
from graft.runtime import Executable, compile as compile_model

_RULES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules")


def standard_rules_path(name: str = "std") -> str:
    """The packaged copy of rules/<name>.rules (graft's standard rule library)."""
    return os.path.join(_RULES_DIR, name + ".rules")


class GraftModule(torch.nn.Module):
    """An nn.Module whose forward runs a graft model on graft's runtime."""

    def __init__(self, model: Model, executable: Executable):
        super().__init__()
        self.model = model
        self.executable = executable

    def forward(self, *inputs: Any) -> Any:
        for x in inputs:
            if isinstance(x, torch.Tensor) and x.requires_grad and torch.is_grad_enabled():
                raise RuntimeError(
                    "graft.torch.optimize: graft runs inference only and computes no gradients; "
                    "call the module under torch.no_grad() or pass tensors that do not require "
                    "grad (keep the original module for training)")
        outputs = [torch.from_numpy(o) for o in self.executable.run(*inputs)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def extra_repr(self) -> str:
        return repr(self.model)


def optimize(module: torch.nn.Module, example_inputs: Sequence[Any],
             rules: Union[str, Sequence[str], Rules, None] = "std", *,
             threads: Optional[int] = None, capture: str = "auto",
             dynamic_dims: Iterable[str] = ()) -> GraftModule:
    """Exports `module` on `example_inputs`, rewrites it with `rules` ("std" for the standard
    library, paths of .rules files, a loaded Rules, or None for none) and compiles it."""
    model = fx.export(module, example_inputs, capture=capture, dynamic_dims=dynamic_dims)
    if rules is not None:
        if isinstance(rules, str):
            rules = [rules]
        if not isinstance(rules, Rules):
            rules = Rules.load(*[standard_rules_path(r) if r == "std" else r for r in rules])
        model = model.rewrite(rules).model
    return GraftModule(model, compile_model(model, threads=threads))
