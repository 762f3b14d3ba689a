"""Model specs of the command line: `torchvision:NAME` or `MODULE:FACTORY`, where MODULE is a
dotted module path importable from the current directory or a .py file, and FACTORY a callable
returning an nn.Module, or (module, example_inputs) with the inputs a tensor or a tuple/list of
tensors. Models are built after torch.manual_seed(seed), so their random initialisation (and a
factory's inputs) are reproducible. `torchvision:NAME` is any builder of
torchvision.models.list_models() (classification, segmentation, video, detection, optical flow,
quantization), built with weights=None and weights_backbone=None (nothing is downloaded), with
its kind's input shapes.
"""
import difflib
import importlib
import importlib.util
import inspect
import os
import sys

import torch

from .common import ExportError
from .source_lines import is_installed_file, user_frames_of_traceback, where_text

TORCHVISION_INPUT_SHAPE = (3, 224, 224)
VIDEO_INPUT_SHAPE = (3, 16, 112, 112)   # (C, T, H, W) of torchvision's video classifiers
# Input shapes by kind (torchvision_kind) where they are not one 224 x 224 image; optical flow
# takes two frames.
KIND_INPUT_SHAPES = {"video": [VIDEO_INPUT_SHAPE],
                     "optical_flow": [TORCHVISION_INPUT_SHAPE, TORCHVISION_INPUT_SHAPE]}


class Built:
    """A built model: the module, its input shapes without the batch dim (or None), and the
    example inputs a factory returned (or None)."""

    def __init__(self, module, shapes=None, inputs=None):
        self.module, self.shapes, self.inputs = module, shapes, inputs


def torchvision_kind(builder):
    """The kind of a torchvision builder, from the package that defines it: classification
    (torchvision.models.resnet), or segmentation, video, detection, optical_flow or
    quantization (torchvision.models.KIND.module)."""
    parts = builder.__module__.split(".")
    return parts[2] if len(parts) > 3 else "classification"


def torchvision_builder(name):
    """The builder that torchvision.models.list_models() lists under `name`, whatever its kind;
    an unknown name is an ExportError with the closest names."""
    import torchvision.models
    known = torchvision.models.list_models()
    if name not in known:
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        raise ExportError("torchvision %s has no model '%s'%s (torchvision.models.list_models() "
                          "lists its %d builders)"
                          % (torchvision.__version__, name,
                             "; did you mean %s?" % " or ".join(close) if close else "",
                             len(known)))
    return torchvision.models.get_model_builder(name)


def _torchvision(spec, name):
    """Builds a torchvision model without pretrained weights, nor the pretrained backbone that
    detection and segmentation builders load by default, so nothing is downloaded."""
    builder = torchvision_builder(name)
    kind = torchvision_kind(builder)
    kwargs = {"weights": None}
    if "weights_backbone" in inspect.signature(builder).parameters:
        kwargs["weights_backbone"] = None
    module = _run_user_code(spec, "torchvision's builder", lambda: builder(**kwargs))
    return Built(module, list(KIND_INPUT_SHAPES.get(kind, [TORCHVISION_INPUT_SHAPE])))


def build(spec, seed):
    """Returns the Built model of a spec. Shapes come from the module's `input_shapes`
    attribute if it has one; inputs from a factory that returns (module, inputs)."""
    if ":" not in spec:
        raise ExportError("model spec '%s' must be torchvision:NAME or MODULE:FACTORY" % spec)
    where, name = spec.rsplit(":", 1)
    torch.manual_seed(seed)
    if where == "torchvision":
        return _torchvision(spec, name)
    module = _import(where)
    factory = getattr(module, name, None)
    if factory is None or not callable(factory):
        raise ExportError("'%s' has no callable '%s'" % (where, name))
    hint = ""
    if where.startswith("torchvision.models") and _is_torchvision_builder(name):
        hint = ("\n%s() without arguments loads pretrained weights; torchvision:%s builds it "
                "with weights=None and weights_backbone=None (nothing is downloaded)"
                % (name, name))
    result = _run_user_code(spec, "the factory", factory, hint)
    inputs = None
    if isinstance(result, (tuple, list)) and len(result) == 2 and isinstance(
            result[0], torch.nn.Module):
        result, inputs = result
        inputs = (inputs,) if isinstance(inputs, torch.Tensor) else inputs
        if not isinstance(inputs, (tuple, list)) or not all(
                isinstance(x, torch.Tensor) for x in inputs):
            raise ExportError("%s() returned (module, %s); the example inputs must be a tensor "
                              "or a tuple/list of tensors" % (spec, type(inputs).__name__))
        inputs = tuple(inputs)
    if not isinstance(result, torch.nn.Module):
        raise ExportError("%s() returned a %s, expected a torch.nn.Module or (module, "
                          "example_inputs)" % (spec, type(result).__name__))
    shapes = getattr(result, "input_shapes", None)
    return Built(result, [tuple(s) for s in shapes] if shapes is not None else None, inputs)


def _import(where):
    if where.endswith(".py"):
        if not os.path.isfile(where):
            raise ExportError("no such file '%s'" % where)
        module_name = os.path.splitext(os.path.basename(where))[0]
        spec = importlib.util.spec_from_file_location(module_name, where)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        _run_user_code(where, "importing it", lambda: spec.loader.exec_module(module))
        return module
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return _run_user_code(where, "importing it", lambda: importlib.import_module(where))
    except ExportError:
        raise
    except ModuleNotFoundError as e:
        raise ExportError("cannot import '%s': %s" % (where, e)) from None


def _run_user_code(what, doing, call, hint=""):
    """call(): the user's code (a factory, a builder, importing a module). An exception it
    raises is the model's failure, not the exporter's, so it becomes an ExportError naming it
    and the lines of model code it went through (the innermost, and the outermost when that is
    the user's own, not an installed package's): no traceback, no "internal error". A module
    that is not found at all is left to the caller."""
    try:
        return call()
    except ExportError:
        raise
    except Exception as e:  # noqa: BLE001 - whatever the user's code raises
        if isinstance(e, ModuleNotFoundError) and doing == "importing it" and \
                e.name is not None and what.split(".")[0] == e.name.split(".")[0]:
            raise
        frames = user_frames_of_traceback(e.__traceback__)
        where = "".join(where_text(f) for f in frames[-1:])
        if len(frames) > 1 and not is_installed_file(frames[0].filename):
            where += where_text(frames[0]).replace("\n  at", "\n  called from", 1)
        raise ExportError("%s: %s raised %s: %s%s%s"
                          % (what, doing, type(e).__name__, e, where, hint)) from None


def _is_torchvision_builder(name):
    import torchvision.models
    return name in torchvision.models.list_models()


def example_inputs(shapes, batch, seed):
    """Standard-normal inputs of shape (batch, *shape), from their own seeded generator."""
    generator = torch.Generator().manual_seed(seed + 1)
    return tuple(torch.randn((batch,) + tuple(s), generator=generator) for s in shapes)


_TRACKING_NORMS = (torch.nn.modules.batchnorm._BatchNorm,
                   torch.nn.modules.instancenorm._InstanceNorm)


def randomize_norm_stats(module, seed):
    """Gives every BatchNorm and every InstanceNorm that tracks running statistics seeded
    random statistics and affine parameters. Freshly initialised models have mean 0, var 1,
    weight 1 and bias 0, which hides a wrong batch-norm fold; these values do not."""
    generator = torch.Generator().manual_seed(seed + 2)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, _TRACKING_NORMS) and m.running_mean is not None:
                c = m.running_mean.shape[0]
                m.running_mean.copy_(torch.randn(c, generator=generator) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=generator) + 0.5)
                if m.weight is not None:
                    m.weight.copy_(torch.rand(c, generator=generator) + 0.5)
                    m.bias.copy_(torch.randn(c, generator=generator) * 0.1)


def randomize_zero_weights(module, seed):
    """Draws every parameter of two or more dims that is all zeros (torchvision's ViT: the head's
    weight and the class token) from N(0, 0.02^2), seeded. A zero head makes the model output
    zeros whatever its body computes, so a comparison with PyTorch would test nothing. Returns
    the names of the parameters drawn."""
    generator = torch.Generator().manual_seed(seed + 3)
    drawn = []
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.dim() >= 2 and p.is_floating_point() and not p.any():
                p.copy_(torch.randn(p.shape, generator=generator) * 0.02)
                drawn.append(name)
    return drawn
