"""Model specs of the command line: `torchvision:NAME` or `MODULE:FACTORY`, where MODULE is a
dotted module path importable from the current directory or a .py file, and FACTORY a callable
returning an nn.Module. Models are built after torch.manual_seed(seed), so their random
initialisation is reproducible; torchvision models get weights=None (nothing is downloaded).
"""
import importlib
import importlib.util
import os
import sys

import torch

from .common import ExportError

TORCHVISION_INPUT_SHAPE = (3, 224, 224)


def build(spec, seed):
    """Returns (module, input_shapes or None). input_shapes exclude the batch dim; they come
    from the module's `input_shapes` attribute if it has one."""
    if ":" not in spec:
        raise ExportError("model spec '%s' must be torchvision:NAME or MODULE:FACTORY" % spec)
    where, name = spec.rsplit(":", 1)
    torch.manual_seed(seed)
    if where == "torchvision":
        import torchvision
        factory = getattr(torchvision.models, name, None)
        if factory is None or name.startswith("_") or not callable(factory):
            raise ExportError("torchvision.models has no model '%s'" % name)
        return factory(weights=None), [TORCHVISION_INPUT_SHAPE]
    module = _import(where)
    factory = getattr(module, name, None)
    if factory is None or not callable(factory):
        raise ExportError("'%s' has no callable '%s'" % (where, name))
    model = factory()
    if not isinstance(model, torch.nn.Module):
        raise ExportError("%s() returned a %s, expected a torch.nn.Module"
                          % (spec, type(model).__name__))
    shapes = getattr(model, "input_shapes", None)
    return model, [tuple(s) for s in shapes] if shapes is not None else None


def _import(where):
    if where.endswith(".py"):
        if not os.path.isfile(where):
            raise ExportError("no such file '%s'" % where)
        module_name = os.path.splitext(os.path.basename(where))[0]
        spec = importlib.util.spec_from_file_location(module_name, where)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        return module
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as e:
        raise ExportError("cannot import '%s': %s" % (where, e)) from None


def example_inputs(shapes, batch, seed):
    """Standard-normal inputs of shape (batch, *shape), from their own seeded generator."""
    generator = torch.Generator().manual_seed(seed + 1)
    return tuple(torch.randn((batch,) + tuple(s), generator=generator) for s in shapes)


def randomize_norm_stats(module, seed):
    """Gives every BatchNorm seeded random statistics and affine parameters. Freshly
    initialised models have mean 0, var 1, weight 1 and bias 0, which hides a wrong batch-norm
    fold; these values do not."""
    generator = torch.Generator().manual_seed(seed + 2)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
                c = m.running_mean.shape[0]
                m.running_mean.copy_(torch.randn(c, generator=generator) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=generator) + 0.5)
                if m.weight is not None:
                    m.weight.copy_(torch.rand(c, generator=generator) + 0.5)
                    m.bias.copy_(torch.randn(c, generator=generator) * 0.1)
