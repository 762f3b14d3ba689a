"""graft's PyTorch exporter: torch.fx-traced nn.Modules as graft models (docs/exporter.md).

    from export import export
    export(model, (torch.randn(1, 3, 224, 224),), "out/resnet18", reference=True)

writes out/resnet18/model.json and model.safetensors (docs/model-format.md) and, with
reference=True, the input and PyTorch's eager outputs as .npy files plus reference.json.
`convert()` does the same in memory. Every failure is an ExportError whose message says what
to change; nothing is written then.
"""
import json

import numpy as np
import torch

from .common import ExportError
from .converter import Converted, convert
from .files import (check_output_dir, model_json_text, npy_bytes, safetensors_bytes,
                    write_directory)

__all__ = ["export", "convert", "Converted", "ExportError"]


def _flatten_tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flatten_tensors(v)]
    raise ExportError("the model returned a %s; expected tensors" % type(value).__name__)


def export(module, example_inputs, out_dir, *, reference=False, dynamic_batch=True,
           metadata=None):
    """Exports `module` to out_dir (model.json + model.safetensors; with reference=True also
    input_<name>.npy, output_<i>.npy and reference.json). The module runs in eval mode during
    the export and gets its previous mode back. Returns the Converted model; raises
    ExportError, having written nothing, when the model cannot be exported."""
    check_output_dir(out_dir)
    example_inputs = tuple(example_inputs)
    was_training = module.training
    module.eval()
    try:
        converted = convert(module, example_inputs, dynamic_batch=dynamic_batch,
                            metadata=metadata)
        eager = None
        if reference:
            with torch.no_grad():
                eager = _flatten_tensors(module(*example_inputs))
    finally:
        module.train(was_training)

    files = {"model.safetensors": safetensors_bytes(
        {name: t.cpu().contiguous().numpy() for name, t in converted.tensors.items()})}
    if reference:
        if len(eager) != len(converted.output_names):
            raise ExportError("the model returned %d tensors but its graph has %d outputs"
                              % (len(eager), len(converted.output_names)))
        placeholders = [n["name"] for n in converted.model["nodes"] if n["op"] == "placeholder"]
        manifest = {"inputs": {}, "outputs": [], "torch": torch.__version__}
        for name, x in zip(placeholders, example_inputs):
            file = "input_%s.npy" % name
            files[file] = npy_bytes(x.detach().cpu().numpy().astype(np.float32))
            manifest["inputs"][name] = file
        for i, (name, y) in enumerate(zip(converted.output_names, eager)):
            file = "output_%d.npy" % i
            files[file] = npy_bytes(y.detach().cpu().numpy())
            manifest["outputs"].append({"node": name, "file": file, "shape": list(y.shape)})
        files["reference.json"] = (json.dumps(manifest, indent=1) + "\n").encode()
    model = dict(converted.model)
    model["weights"] = "model.safetensors"
    ordered = {k: model[k] for k in ("format", "version", "weights", "metadata", "nodes")}
    files["model.json"] = model_json_text(ordered).encode()
    write_directory(out_dir, files)
    return converted
