"""graft's PyTorch exporter: nn.Modules as graft models (docs/exporter.md).

    from export import export
    export(model, (torch.randn(1, 3, 224, 224),), "out/resnet18", reference=True)

writes out/resnet18/model.json and model.safetensors (docs/model-format.md) and, with
reference=True, the inputs and PyTorch's eager outputs as .npy files plus reference.json.
`convert()` does the same in memory. The model is captured with torch.fx (converter.py) or,
when that fails, with make_fx at the ATen level (aten_converter.py); `capture` chooses. Every
failure is an ExportError whose message says what to change; nothing is written then. The
errors of torchvision's detection and optical-flow models add what graft cannot capture in
them and what to export instead (torchvision_limits.py).
"""
import json
import sys

import torch
from torch.utils import _pytree as pytree

from . import aten_converter, converter, torchvision_limits
from .aten_capture import input_names
from .builder import Converted
from .common import ExportError
from .files import (check_output_dir, model_json_text, npy_bytes, safetensors_bytes,
                    write_directory)
from .symbols import resolve

__all__ = ["export", "convert", "Converted", "ExportError"]

CAPTURES = ("auto", "fx", "aten")


def _note(text):
    print("export_fx.py: " + text, file=sys.stderr)


def _first_problem(error):
    lines = str(error).splitlines()
    return lines[1].strip() if len(lines) > 1 else lines[0]


def convert(module, example_inputs, *, dynamic_batch=True, dynamic_dims=(), capture="auto",
            metadata=None, note=_note):
    """Captures `module` (in eval mode) and converts it; raises ExportError with every
    problem. dynamic_dims holds (name, input index or name, dim) triples (--dynamic-dim);
    `note` receives the line saying which capture path was used and why. `auto` tries torch.fx
    and, when it cannot trace the model or its graph has calls the torch-level table cannot
    convert, make_fx."""
    if capture not in CAPTURES:
        raise ExportError("capture must be one of %s, got '%s'" % ("/".join(CAPTURES), capture))
    example_inputs = tuple(example_inputs)
    converter.check_dtypes(module, example_inputs)
    symbols = resolve(list(dynamic_dims), input_names(module, len(example_inputs)),
                      example_inputs, dynamic_batch)
    try:
        return _capture(module, example_inputs, symbols, capture, metadata, note)
    except ExportError as e:
        limits = torchvision_limits.note(module)
        if not limits:
            raise
        raise ExportError(str(e) + limits) from None


def _capture(module, example_inputs, symbols, capture, metadata, note):
    if capture == "fx":
        converted = converter.convert(module, example_inputs, symbols, metadata)
        note("captured with torch.fx (--capture fx)")
        return converted
    if capture == "aten":
        converted = aten_converter.convert(module, example_inputs, symbols, metadata)
        note("captured with make_fx (ATen) (--capture aten)")
        return converted
    try:
        converted = converter.convert(module, example_inputs, symbols, metadata)
        note("captured with torch.fx")
        return converted
    except converter.TraceFailed as e:
        why = "torch.fx could not trace: %s" % e.reason
    except ExportError as e:
        why = "torch.fx's graph has calls the torch-level table cannot convert: %s" \
              % _first_problem(e)
    try:
        converted = aten_converter.convert(module, example_inputs, symbols, metadata)
    except ExportError as e:
        raise ExportError("%s\n(torch.fx was tried first: %s)" % (e, why)) from None
    note("captured with make_fx (ATen): %s" % why)
    return converted


def flatten_outputs(value):
    """The model's outputs as a list of tensors, in the order of the exported graph's outputs
    (torch's pytree order: tuples and lists in order, dicts by insertion)."""
    leaves, _ = pytree.tree_flatten(value)
    for leaf in leaves:
        if not isinstance(leaf, torch.Tensor):
            raise ExportError("the model returned a %s; expected tensors" % type(leaf).__name__)
    return leaves


def export(module, example_inputs, out_dir, *, reference=False, dynamic_batch=True,
           dynamic_dims=(), capture="auto", metadata=None, note=_note):
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
                            dynamic_dims=dynamic_dims, capture=capture, metadata=metadata,
                            note=note)
        eager = None
        if reference:
            with torch.no_grad():
                eager = flatten_outputs(module(*example_inputs))
    finally:
        module.train(was_training)

    files = {"model.safetensors": safetensors_bytes(
        {name: t.cpu().contiguous().numpy() for name, t in converted.tensors.items()})}
    if reference:
        files.update(_reference_files(converted, example_inputs, eager))
    model = dict(converted.model)
    model["weights"] = "model.safetensors"
    ordered = {k: model[k] for k in ("format", "version", "weights", "metadata", "buffers", "nodes")
               if k in model}
    files["model.json"] = model_json_text(ordered).encode()
    write_directory(out_dir, files)
    return converted


def _reference_files(converted, example_inputs, eager):
    """input_<name>.npy (each with its dtype), output_<i>.npy and reference.json."""
    if len(eager) != len(converted.output_names):
        raise ExportError("the model returned %d tensors but its graph has %d outputs"
                          % (len(eager), len(converted.output_names)))
    placeholders = [n["name"] for n in converted.model["nodes"] if n["op"] == "placeholder"]
    files, manifest = {}, {"inputs": {}, "outputs": [], "torch": torch.__version__}
    for name, x in zip(placeholders, example_inputs):
        file = "input_%s.npy" % name
        files[file] = npy_bytes(x.detach().cpu().numpy())
        manifest["inputs"][name] = file
    for i, (name, y) in enumerate(zip(converted.output_names, eager)):
        file = "output_%d.npy" % i
        files[file] = npy_bytes(y.detach().cpu().numpy())
        manifest["outputs"].append({"node": name, "file": file, "shape": list(y.shape)})
    files["reference.json"] = (json.dumps(manifest, indent=1) + "\n").encode()
    return files
