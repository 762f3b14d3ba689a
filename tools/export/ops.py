"""The normalisation table: how each torch call an fx graph can hold becomes a call of graft's
op registry (docs/ops.md).

fx records three kinds of calls; each has a table here:
  FUNCTIONS  call_function targets: torch.*, torch.nn.functional.*, Python operators, and
             torchvision's fx-wrapped stochastic_depth
  METHODS    call_method targets: Tensor methods by name (x.view(...), x.softmax(-1))
  MODULES    call_module targets: torch.nn leaf modules by class; their parameters become
             get_attr nodes named by their qualified name (layer1.0.conv1.weight)

A converter is a Python function with torch's own parameter names and defaults, so Python
binds fx's args and kwargs exactly as torch would. It receives the converter context `cx`
first (and the module for MODULES), and returns `cx.call(op, operands, **attributes)` or, for
an op that is the identity at inference (Identity, eval-mode stochastic depth, .float() on a
float32 tensor), its input. It raises Unsupported for a call it cannot express; the exporter
collects those and reports them together.

Operands that lead the registry's signature go positionally, in its order; attributes (and
operands after an attribute, such as layer_norm's weight) go by keyword, by the registry's
names. `None` keywords are left out: every registry parameter that may be None defaults to
None.
"""
import operator

import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import Ref, Unsupported, as_int

# ** helpers **


def _tensor(value, what):
    if not isinstance(value, Ref):
        raise Unsupported("%s must be a tensor computed by the graph, got %r" % (what, value))
    return value


def _ints(value, what, n=None):
    """An int or a sequence of ints as a list; a single int is repeated n times."""
    if isinstance(value, (tuple, list)):
        result = [as_int(v, what) for v in value]
    else:
        result = [as_int(value, what)] * (n or 1)
    if n is not None and len(result) != n:
        raise Unsupported("%s must have %d values, got %r" % (what, n, value))
    return result


def _dims(value, what):
    """dim arguments: None, an int or a sequence of ints (registry type int[]?)."""
    if value is None:
        return None
    return _ints(value, what)


def _pool_stride(stride, n=2):
    # torch's stride=None (and []) means "the kernel size", which is the registry's default.
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        return None
    return _ints(stride, "stride", n)


def _output_size(cx, input, output_size, n=2):
    """adaptive pooling's output_size over n spatial dims; a None entry keeps the input's
    size."""
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * n
    if len(sizes) != n:
        raise Unsupported("output_size must have %d values, got %r" % (n, output_size))
    shape = cx.shape(input)
    return [shape[len(shape) - n + i] if s is None else as_int(s, "output_size")
            for i, s in enumerate(sizes)]


def _conv_padding(cx, weight, padding, dilation):
    spatial = len(dilation)
    if not isinstance(padding, str):
        return _ints(padding, "padding", spatial)
    if padding == "valid":
        return [0] * spatial
    if padding == "same":
        kernel = cx.shape(weight)[2:]
        result = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            if total % 2:
                raise Unsupported("padding='same' with kernel %r and dilation %r pads one side "
                                  "more than the other, which conv2d's symmetric padding cannot "
                                  "express" % (list(kernel), dilation))
            result.append(total // 2)
        return result
    raise Unsupported("unknown padding %r" % padding)


def _no_dtype(dtype):
    if dtype is not None:
        raise Unsupported("dtype=%r: a cast inside the op is not supported" % (dtype,))


# ** convolution, linear, normalisation **


def conv2d(cx, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if len(cx.shape(weight)) != 4:
        raise Unsupported("only 2-D convolution is supported (weight shape %r)"
                          % (list(cx.shape(weight)),))
    dilation = _ints(dilation, "dilation", 2)
    return cx.call("conv2d", [_tensor(input, "input"), _tensor(weight, "weight"), bias],
                   stride=_ints(stride, "stride", 2),
                   padding=_conv_padding(cx, weight, padding, dilation),
                   dilation=dilation, groups=as_int(groups, "groups"))


def _conv_nd(op, spatial):
    """conv1d / conv3d: the same as conv2d over `spatial` dims."""
    def convert(cx, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        if len(cx.shape(weight)) != spatial + 2:
            raise Unsupported("%s needs a %d-d weight, got shape %r"
                              % (op, spatial + 2, list(cx.shape(weight))))
        dilation = _ints(dilation, "dilation", spatial)
        return cx.call(op, [_tensor(input, "input"), _tensor(weight, "weight"), bias],
                       stride=_ints(stride, "stride", spatial),
                       padding=_conv_padding(cx, weight, padding, dilation),
                       dilation=dilation, groups=as_int(groups, "groups"))
    return convert


def _conv_transpose(op, spatial):
    """conv_transpose1d/2d/3d; torch takes groups before dilation here, and no string padding."""
    def convert(cx, input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                dilation=1):
        if len(cx.shape(weight)) != spatial + 2:
            raise Unsupported("%s needs a %d-d weight, got shape %r"
                              % (op, spatial + 2, list(cx.shape(weight))))
        return cx.call(op, [_tensor(input, "input"), _tensor(weight, "weight"), bias],
                       stride=_ints(stride, "stride", spatial),
                       padding=_ints(padding, "padding", spatial),
                       output_padding=_ints(output_padding, "output_padding", spatial),
                       groups=as_int(groups, "groups"),
                       dilation=_ints(dilation, "dilation", spatial))
    return convert


def linear(cx, input, weight, bias=None):
    return cx.call("linear", [_tensor(input, "input"), _tensor(weight, "weight"), bias])


def batch_norm(cx, input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    if training:
        raise Unsupported("batch_norm with training=True normalises with the batch's own "
                          "statistics; export the model in eval mode with running statistics")
    if running_mean is None or running_var is None:
        raise Unsupported("batch_norm without running statistics (track_running_stats=False)")
    return cx.call("batch_norm", [input, running_mean, running_var, weight, bias], eps=eps)


def layer_norm(cx, input, normalized_shape, weight=None, bias=None, eps=1e-05):
    # weight and bias follow the attribute normalized_shape, so they go by keyword.
    return cx.call("layer_norm", [input],
                   normalized_shape=_ints(normalized_shape, "normalized_shape"), weight=weight,
                   bias=bias, eps=eps)


def group_norm(cx, input, num_groups, weight=None, bias=None, eps=1e-05):
    # weight and bias follow the attribute num_groups, so they go by keyword.
    return cx.call("group_norm", [input], num_groups=as_int(num_groups, "num_groups"),
                   weight=weight, bias=bias, eps=eps)


def _instance_channels(cx, input, dim):
    """C, dim `dim` of the input, which must be the same in every run."""
    shapes = cx.shapes(input).values()
    channels = {shape[dim] if len(shape) > dim else None for shape in shapes}
    if len(channels) != 1 or None in channels or not isinstance(next(iter(channels)), int):
        raise Unsupported("instance_norm needs an (N, C, *) input with a fixed C, got shapes %r"
                          % sorted(list(s) for s in shapes))
    return channels.pop()


def _instance_norm(emit, input, channels, running_mean, running_var, weight, bias,
                   use_input_stats, eps):
    """Each (sample, channel) plane normalised by its own statistics is group_norm with one
    group per channel; with use_input_stats=False the running statistics normalise every plane
    alike, which is batch_norm."""
    if use_input_stats:
        return emit("group_norm", [input], num_groups=channels, weight=weight, bias=bias,
                    eps=eps)
    if running_mean is None or running_var is None:
        raise Unsupported("instance_norm with use_input_stats=False needs running statistics")
    return emit("batch_norm", [input, running_mean, running_var, weight, bias], eps=eps)


def instance_norm(cx, input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    return _instance_norm(cx.call, _tensor(input, "input"), _instance_channels(cx, input, 1),
                          running_mean, running_var, weight, bias, use_input_stats, eps)

def _softmax(op):
    def convert(cx, input, dim=None, _stacklevel=3, dtype=None):
        if dim is None:
            raise Unsupported("%s without dim (torch's implicit dim is deprecated)" % op)
        _no_dtype(dtype)
        return cx.call(op, [input], dim=as_int(dim, "dim"))
    return convert


# ** activations **


def _unary(op):
    def convert(cx, input, inplace=False):
        return cx.call(op, [input])
    return convert


def hardtanh(cx, input, min_val=-1.0, max_val=1.0, inplace=False):
    return cx.call("hardtanh", [input], min_val=float(min_val), max_val=float(max_val))


def leaky_relu(cx, input, negative_slope=0.01, inplace=False):
    return cx.call("leaky_relu", [input], negative_slope=float(negative_slope))


def elu(cx, input, alpha=1.0, inplace=False):
    return cx.call("elu", [input], alpha=float(alpha))


def gelu(cx, input, approximate="none"):
    return cx.call("gelu", [input], approximate=approximate)


def softplus(cx, input, beta=1, threshold=20):
    return cx.call("softplus", [input], beta=float(beta), threshold=float(threshold))


def clamp(cx, input, min=None, max=None):
    if isinstance(min, Ref) or isinstance(max, Ref):
        raise Unsupported("clamp with tensor bounds")
    return cx.call("clamp", [input], min=min, max=max)


def dropout(cx, input, p=0.5, training=True, inplace=False):
    if training:
        raise Unsupported("dropout with training=True is random (F.dropout's default is "
                          "training=True; pass training=self.training)")
    return cx.call("dropout", [input], p=float(p), training=False)


def stochastic_depth(cx, input, p, mode, training=True):
    # torchvision.ops.stochastic_depth returns its input unchanged when not training.
    if training and p != 0.0:
        raise Unsupported("stochastic_depth with training=True is random")
    return input


# ** pooling **


def max_pool2d(cx, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        raise Unsupported("max_pool2d with return_indices=True")
    return cx.call("max_pool2d", [input], kernel_size=_ints(kernel_size, "kernel_size", 2),
                   stride=_pool_stride(stride), padding=_ints(padding, "padding", 2),
                   dilation=_ints(dilation, "dilation", 2), ceil_mode=bool(ceil_mode))


def avg_pool2d(cx, input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return cx.call("avg_pool2d", [input], kernel_size=_ints(kernel_size, "kernel_size", 2),
                   stride=_pool_stride(stride), padding=_ints(padding, "padding", 2),
                   ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                   divisor_override=divisor_override)


def adaptive_avg_pool2d(cx, input, output_size):
    return cx.call("adaptive_avg_pool2d", [input],
                   output_size=_output_size(cx, input, output_size))


def adaptive_max_pool2d(cx, input, output_size, return_indices=False):
    if return_indices:
        raise Unsupported("adaptive_max_pool2d with return_indices=True")
    return cx.call("adaptive_max_pool2d", [input],
                   output_size=_output_size(cx, input, output_size))


def max_pool3d(cx, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        raise Unsupported("max_pool3d with return_indices=True")
    return cx.call("max_pool3d", [input], kernel_size=_ints(kernel_size, "kernel_size", 3),
                   stride=_pool_stride(stride, 3), padding=_ints(padding, "padding", 3),
                   dilation=_ints(dilation, "dilation", 3), ceil_mode=bool(ceil_mode))


def avg_pool3d(cx, input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return cx.call("avg_pool3d", [input], kernel_size=_ints(kernel_size, "kernel_size", 3),
                   stride=_pool_stride(stride, 3), padding=_ints(padding, "padding", 3),
                   ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                   divisor_override=divisor_override)


def adaptive_avg_pool3d(cx, input, output_size):
    return cx.call("adaptive_avg_pool3d", [input],
                   output_size=_output_size(cx, input, output_size, 3))


# ** padding **


def pad(cx, input, pad, mode="constant", value=None):
    return cx.call("pad", [input], pad=_ints(pad, "pad"), mode=mode,
                   value=None if value is None else float(value))


# ** resampling **


def _pair_floats(value, what):
    values = list(value) if isinstance(value, (tuple, list)) else [value] * 2
    if len(values) != 2:
        raise Unsupported("%s must have 2 values, got %r" % (what, value))
    return [float(v) for v in values]


def interpolate(cx, input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode not in ("nearest", "bilinear"):
        raise Unsupported("interpolate with mode=%r (graft has 'nearest' and 'bilinear')"
                          % (mode,))
    if antialias:
        raise Unsupported("interpolate with antialias=True")
    shape = cx.shape(_tensor(input, "input"))
    if len(shape) != 4:
        raise Unsupported("interpolate of a %d-d input (graft resizes (N, C, H, W))"
                          % len(shape))
    if scale_factor is not None and recompute_scale_factor:
        # torch then maps coordinates by the rounded size, as if `size` had been given.
        scales = _pair_floats(scale_factor, "scale_factor")
        size = [int(as_int(shape[2 + i], "input size") * s) for i, s in enumerate(scales)]
        scale_factor = None
    return cx.call("interpolate", [input],
                   size=None if size is None else _ints(size, "size", 2),
                   scale_factor=None if scale_factor is None
                   else _pair_floats(scale_factor, "scale_factor"),
                   mode=mode, align_corners=None if align_corners is None else bool(align_corners))


# ** arithmetic **


def _binary(op):
    def convert(cx, input, other):
        return cx.call(op, [input, other])
    return convert


def _binary_alpha(op):
    def convert(cx, input, other, alpha=1):
        return cx.call(op, [input, other], alpha=None if alpha == 1 else alpha)
    return convert


def div(cx, input, other, rounding_mode=None):
    return cx.call("div", [input, other], rounding_mode=rounding_mode)


def floordiv(cx, input, other):
    return cx.call("div", [input, other], rounding_mode="floor")


def pow_(cx, input, exponent):
    return cx.call("pow", [input, exponent])


def _reduction(op):
    def convert(cx, input, dim=None, keepdim=False, dtype=None):
        _no_dtype(dtype)
        return cx.call(op, [input], dim=_dims(dim, "dim"), keepdim=bool(keepdim))
    return convert


def amax(cx, input, dim=(), keepdim=False):
    return cx.call("amax", [input], dim=_dims(dim, "dim") or [], keepdim=bool(keepdim))


# ** shapes **


def flatten(cx, input, start_dim=0, end_dim=-1):
    return cx.call("flatten", [input], start_dim=as_int(start_dim, "start_dim"),
                   end_dim=as_int(end_dim, "end_dim"))


def reshape(cx, input, shape):
    # The recorded shapes say which sizes follow the symbols (builder.GraphBuilder.reshape).
    return cx.reshape(_tensor(input, "input"))


def permute(cx, input, dims):
    return cx.call("permute", [input], dims=_ints(dims, "dims"))


def transpose(cx, input, dim0, dim1):
    return cx.call("transpose", [input], dim0=as_int(dim0, "dim0"), dim1=as_int(dim1, "dim1"))


def unsqueeze(cx, input, dim):
    return cx.call("unsqueeze", [input], dim=as_int(dim, "dim"))


def squeeze(cx, input, dim=None):
    return cx.call("squeeze", [input], dim=None if dim is None else as_int(dim, "dim"))


def cat(cx, tensors, dim=0):
    return cx.call("cat", [[_tensor(t, "each of cat's tensors") for t in tensors]],
                   dim=as_int(dim, "dim"))


def _same_op(op):
    def convert(cx, input, memory_format=None):
        return cx.call(op, [input])
    return convert


# ** Tensor methods whose torch signature differs from the function's **


def method_view(cx, self, *shape):
    return reshape(cx, self, shape)


def method_permute(cx, self, *dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return permute(cx, self, dims)


def method_flatten(cx, self, start_dim=0, end_dim=-1):
    return flatten(cx, self, start_dim, end_dim)


def method_cast(cx, self, *args, **kwargs):
    # .float(), .to(torch.float32), .type_as(y), .detach(): the identity when the result is
    # float32 like the input; the exporter has checked the result's dtype already.
    if cx.dtype(self) != torch.float32:
        raise Unsupported("a cast from %s" % cx.dtype(self))
    return self


FUNCTIONS = {
    # torch.nn.functional
    F.conv2d: conv2d, F.linear: linear, F.batch_norm: batch_norm, F.layer_norm: layer_norm,
    F.softmax: _softmax("softmax"), F.log_softmax: _softmax("log_softmax"),
    F.relu: _unary("relu"), F.relu6: _unary("relu6"), F.hardtanh: hardtanh,
    F.leaky_relu: leaky_relu, F.elu: elu, F.hardswish: _unary("hardswish"),
    F.hardsigmoid: _unary("hardsigmoid"), F.silu: _unary("silu"), F.sigmoid: _unary("sigmoid"),
    F.gelu: gelu, F.tanh: _unary("tanh"), F.softplus: softplus, F.dropout: dropout,
    F.max_pool2d: max_pool2d, F.avg_pool2d: avg_pool2d, F.adaptive_avg_pool2d:
    adaptive_avg_pool2d, F.adaptive_max_pool2d: adaptive_max_pool2d,
    F.interpolate: interpolate,
    F.max_pool3d: max_pool3d, F.avg_pool3d: avg_pool3d,
    F.adaptive_avg_pool3d: adaptive_avg_pool3d, F.pad: pad,
    F.conv1d: _conv_nd("conv1d", 1), F.conv3d: _conv_nd("conv3d", 3),
    F.conv_transpose1d: _conv_transpose("conv_transpose1d", 1),
    F.conv_transpose2d: _conv_transpose("conv_transpose2d", 2),
    F.conv_transpose3d: _conv_transpose("conv_transpose3d", 3), F.group_norm: group_norm,
    F.instance_norm: instance_norm,
    # torch.*
    torch.conv2d: conv2d, torch.conv_transpose1d: _conv_transpose("conv_transpose1d", 1),
    torch.conv_transpose2d: _conv_transpose("conv_transpose2d", 2),
    torch.conv_transpose3d: _conv_transpose("conv_transpose3d", 3), torch.relu: _unary("relu"), torch.sigmoid: _unary("sigmoid"),
    torch.tanh: _unary("tanh"), torch.sqrt: _unary("sqrt"), torch.rsqrt: _unary("rsqrt"),
    torch.exp: _unary("exp"), torch.log: _unary("log"), torch.neg: _unary("neg"),
    torch.reciprocal: _unary("reciprocal"), torch.abs: _unary("abs"), torch.erf: _unary("erf"),
    torch.clamp: clamp, torch.clip: clamp, torch.softmax: _softmax("softmax"),
    torch.log_softmax: _softmax("log_softmax"),
    torch.add: _binary_alpha("add"), torch.sub: _binary_alpha("sub"), torch.mul: _binary("mul"),
    torch.div: div, torch.true_divide: _binary("div"), torch.pow: pow_,
    torch.maximum: _binary("maximum"), torch.minimum: _binary("minimum"),
    torch.matmul: _binary("matmul"), torch.bmm: _binary("matmul"), torch.mm: _binary("matmul"),
    torch.mean: _reduction("mean"), torch.sum: _reduction("sum"), torch.amax: amax,
    torch.flatten: flatten, torch.reshape: reshape, torch.permute: permute,
    torch.transpose: transpose, torch.unsqueeze: unsqueeze, torch.squeeze: squeeze,
    torch.cat: cat, torch.concat: cat,
    # Python operators, as fx records `a + b`, `x @ w`, `-x`
    operator.add: _binary("add"), operator.sub: _binary("sub"), operator.mul: _binary("mul"),
    operator.truediv: _binary("div"), operator.floordiv: floordiv, operator.pow: pow_,
    operator.matmul: _binary("matmul"), operator.neg: _unary("neg"),
}

try:  # torchvision's StochasticDepth calls this fx-wrapped function (efficientnet)
    from torchvision.ops.stochastic_depth import stochastic_depth as _tv_stochastic_depth
    FUNCTIONS[_tv_stochastic_depth] = stochastic_depth
except ImportError:  # pragma: no cover - torchvision is optional for user models
    pass

METHODS = {
    "relu": _unary("relu"), "sigmoid": _unary("sigmoid"), "tanh": _unary("tanh"),
    "sqrt": _unary("sqrt"), "rsqrt": _unary("rsqrt"), "exp": _unary("exp"),
    "log": _unary("log"), "neg": _unary("neg"), "reciprocal": _unary("reciprocal"),
    "abs": _unary("abs"), "erf": _unary("erf"), "clamp": clamp, "clip": clamp,
    "softmax": _softmax("softmax"), "log_softmax": _softmax("log_softmax"),
    "add": _binary_alpha("add"), "sub": _binary_alpha("sub"), "mul": _binary("mul"),
    "div": div, "pow": pow_, "matmul": _binary("matmul"), "bmm": _binary("matmul"),
    "maximum": _binary("maximum"), "minimum": _binary("minimum"),
    "mean": _reduction("mean"), "sum": _reduction("sum"), "amax": amax,
    "view": method_view, "reshape": method_view, "permute": method_permute,
    "transpose": transpose, "flatten": method_flatten, "unsqueeze": unsqueeze,
    "squeeze": squeeze, "contiguous": _same_op("contiguous"), "clone": _same_op("clone"),
    "float": method_cast, "to": method_cast, "type_as": method_cast, "detach": method_cast,
}

# Calls that return a Python value computed from shapes only; the exporter folds them into
# constants (and tracks which depend on the batch size).
SHAPE_QUERY_METHODS = {"size", "dim", "ndimension", "numel", "nelement"}
SHAPE_QUERY_ATTRS = {"shape", "ndim"}


# ** modules **


def module_conv2d(cx, m, input):
    if m.padding_mode != "zeros":
        raise Unsupported("Conv2d with padding_mode=%r" % m.padding_mode)
    return conv2d(cx, input, cx.param(m, "weight"), cx.param(m, "bias"), m.stride, m.padding,
                  m.dilation, m.groups)


def _module_conv_nd(op, spatial):
    def convert(cx, m, input):
        if m.padding_mode != "zeros":
            raise Unsupported("%s with padding_mode=%r" % (type(m).__name__, m.padding_mode))
        return _conv_nd(op, spatial)(cx, input, cx.param(m, "weight"), cx.param(m, "bias"),
                                     m.stride, m.padding, m.dilation, m.groups)
    return convert


def _module_conv_transpose(op, spatial):
    def convert(cx, m, input, output_size=None):
        if m.padding_mode != "zeros":
            raise Unsupported("%s with padding_mode=%r" % (type(m).__name__, m.padding_mode))
        if output_size is not None:
            raise Unsupported("%s called with output_size; give the module output_padding "
                              "instead" % type(m).__name__)
        return _conv_transpose(op, spatial)(cx, input, cx.param(m, "weight"),
                                            cx.param(m, "bias"), m.stride, m.padding,
                                            m.output_padding, m.groups, m.dilation)
    return convert


def module_batch_norm(cx, m, input):
    if m.training:
        raise Unsupported("BatchNorm in training mode; call model.eval() before exporting")
    if not m.track_running_stats or m.running_mean is None:
        raise Unsupported("BatchNorm with track_running_stats=False normalises with the "
                          "batch's own statistics")
    return batch_norm(cx, input, cx.param(m, "running_mean"), cx.param(m, "running_var"),
                      cx.param(m, "weight"), cx.param(m, "bias"), False, m.momentum, m.eps)


def module_layer_norm(cx, m, input):
    return layer_norm(cx, input, list(m.normalized_shape), cx.param(m, "weight"),
                      cx.param(m, "bias"), m.eps)


def module_group_norm(cx, m, input):
    return group_norm(cx, input, m.num_groups, cx.param(m, "weight"), cx.param(m, "bias"),
                      m.eps)


def module_instance_norm(cx, m, input):
    """InstanceNorm1d/2d/3d; an unbatched input (C, *) is normalised as a batch of one, as the
    module does."""
    if m.training and m.track_running_stats:
        raise Unsupported("%s with track_running_stats=True in training mode; call "
                          "model.eval() before exporting" % type(m).__name__)
    stats = (cx.param(m, "running_mean"), cx.param(m, "running_var"), cx.param(m, "weight"),
             cx.param(m, "bias"), not m.track_running_stats, m.eps)
    if len(cx.shape(_tensor(input, "input"))) != m._get_no_batch_dim():
        return _instance_norm(cx.call, input, _instance_channels(cx, input, 1), *stats)
    batched = cx.step("unsqueeze", [input], dim=0)
    normed = _instance_norm(cx.step, batched, _instance_channels(cx, input, 0), *stats)
    return cx.call("squeeze", [normed], dim=0)

def module_linear(cx, m, input):
    return linear(cx, input, cx.param(m, "weight"), cx.param(m, "bias"))


def module_dropout(cx, m, input):
    if m.training:
        raise Unsupported("Dropout in training mode; call model.eval() before exporting")
    return dropout(cx, input, m.p, False)


def _module_unary(op):
    def convert(cx, m, input):
        return cx.call(op, [input])
    return convert


MODULES = {
    nn.Conv2d: module_conv2d,
    nn.Conv1d: _module_conv_nd("conv1d", 1), nn.Conv3d: _module_conv_nd("conv3d", 3),
    nn.BatchNorm1d: module_batch_norm, nn.BatchNorm2d: module_batch_norm,
    nn.LayerNorm: module_layer_norm,
    nn.ConvTranspose1d: _module_conv_transpose("conv_transpose1d", 1),
    nn.ConvTranspose2d: _module_conv_transpose("conv_transpose2d", 2),
    nn.ConvTranspose3d: _module_conv_transpose("conv_transpose3d", 3),
    nn.GroupNorm: module_group_norm,
    nn.InstanceNorm1d: module_instance_norm, nn.InstanceNorm2d: module_instance_norm,
    nn.InstanceNorm3d: module_instance_norm,
    nn.Linear: module_linear,
    nn.Identity: lambda cx, m, input: input,
    nn.Dropout: module_dropout, nn.Dropout1d: module_dropout, nn.Dropout2d: module_dropout,
    nn.Dropout3d: module_dropout, nn.AlphaDropout: module_dropout,
    nn.Flatten: lambda cx, m, input: flatten(cx, input, m.start_dim, m.end_dim),
    nn.ReLU: _module_unary("relu"), nn.ReLU6: _module_unary("relu6"),
    nn.Hardtanh: lambda cx, m, input: hardtanh(cx, input, m.min_val, m.max_val),
    nn.LeakyReLU: lambda cx, m, input: leaky_relu(cx, input, m.negative_slope),
    nn.ELU: lambda cx, m, input: elu(cx, input, m.alpha),
    nn.Hardswish: _module_unary("hardswish"), nn.Hardsigmoid: _module_unary("hardsigmoid"),
    nn.SiLU: _module_unary("silu"), nn.Sigmoid: _module_unary("sigmoid"),
    nn.GELU: lambda cx, m, input: gelu(cx, input, m.approximate),
    nn.Tanh: _module_unary("tanh"),
    nn.Softplus: lambda cx, m, input: softplus(cx, input, m.beta, m.threshold),
    nn.Softmax: lambda cx, m, input: _softmax("softmax")(cx, input, m.dim),
    nn.LogSoftmax: lambda cx, m, input: _softmax("log_softmax")(cx, input, m.dim),
    nn.MaxPool2d: lambda cx, m, input: max_pool2d(cx, input, m.kernel_size, m.stride,
                                                  m.padding, m.dilation, m.ceil_mode,
                                                  m.return_indices),
    nn.AvgPool2d: lambda cx, m, input: avg_pool2d(cx, input, m.kernel_size, m.stride,
                                                  m.padding, m.ceil_mode, m.count_include_pad,
                                                  m.divisor_override),
    nn.AdaptiveAvgPool2d: lambda cx, m, input: adaptive_avg_pool2d(cx, input, m.output_size),
    nn.AdaptiveMaxPool2d: lambda cx, m, input: adaptive_max_pool2d(cx, input, m.output_size,
                                                                   m.return_indices),
    nn.MaxPool3d: lambda cx, m, input: max_pool3d(cx, input, m.kernel_size, m.stride,
                                                  m.padding, m.dilation, m.ceil_mode,
                                                  m.return_indices),
    nn.AvgPool3d: lambda cx, m, input: avg_pool3d(cx, input, m.kernel_size, m.stride,
                                                  m.padding, m.ceil_mode, m.count_include_pad,
                                                  m.divisor_override),
    nn.AdaptiveAvgPool3d: lambda cx, m, input: adaptive_avg_pool3d(cx, input, m.output_size),
    # ZeroPad2d and ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d.
    nn.modules.padding._ConstantPadNd:
        lambda cx, m, input: pad(cx, input, m.padding, "constant", m.value),
    nn.modules.padding._ReflectionPadNd:
        lambda cx, m, input: pad(cx, input, m.padding, "reflect"),
    nn.modules.padding._ReplicationPadNd:
        lambda cx, m, input: pad(cx, input, m.padding, "replicate"),
    # UpsamplingNearest2d and UpsamplingBilinear2d are Upsamples with a fixed mode.
    nn.Upsample: lambda cx, m, input: interpolate(cx, input, m.size, m.scale_factor, m.mode,
                                                  m.align_corners, m.recompute_scale_factor),
}


def module_converter(module):
    """The converter of a leaf module: its exact class, else the nearest base class that is a
    torch.nn class (ReLU6 is a Hardtanh, but has its own row)."""
    for cls in type(module).__mro__:
        if cls in MODULES:
            return MODULES[cls]
    return None
