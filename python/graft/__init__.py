"""graft from Python: load models, apply .rules files, run models on graft's runtime.

    import graft
    model = graft.load("examples/models/tiny_cnn/model.json")
    rules = graft.Rules.load("rules/std.rules")
    result = model.rewrite(rules)            # a new Model; `model` is unchanged
    result.model.save("/tmp/fused.json")
    run = graft.compile(result.model)
    (logits,) = run(numpy_image)             # numpy arrays or torch tensors in, the same out

Errors raise graft.GraftError subclasses whose message is what the CLI prints (file:line:col
for rules, the JSON pointer for models). docs/python.md has the whole API.
"""
from graft._graft import GraftError, ModelError, RewriteError, RulesError, RunError
from graft.model import Model, Node, RewriteResult, Rules, TensorSpec, load
from graft.runtime import Executable, compile

__all__ = [
    "Executable", "GraftError", "Model", "ModelError", "Node", "RewriteError", "RewriteResult",
    "Rules", "RulesError", "RunError", "TensorSpec", "compile", "load",
]
