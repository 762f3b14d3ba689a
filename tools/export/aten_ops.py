"""The ATen table: one row per ATen overload that make_fx records, saying which graft op it
becomes and how its arguments map (aten_rows.py describes a row). The ATen capture path
(aten_converter.py) looks every call up here by its overload name ("aten.relu.default").

Rows may name graft ops the registry does not have yet; PROPOSED gives their signatures (torch's
names, order and defaults), which the registry is to adopt. A model that needs one is refused
with the list of missing ops, and exports as soon as the op is in graft's registry (docs/ops.md),
without a change here. tests/models/aten_table_test.py checks every row against the ATen
schema, the registry and PROPOSED.

Ops that depend on no input (arange, zeros, a constant mask) are folded into constants before
the table is consulted (aten_converter.py); their rows are used only when a size is symbolic.
"""
import operator

import torch

from . import aten_convert as C
from .aten_rows import Const, Row, dtype_attr, first_output, identity, scalar, unsupported

# Graft ops the table emits that graft's registry does not have yet: signatures in torch's
# terms (PyTorch 1.13 torch.* / F.* / Tensor method names, parameter order and defaults).
PROPOSED = {
    "conv1d": "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
              "int[1] padding=0, int[1] dilation=1, int groups=1)",
    "conv3d": "conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
              "int[3] padding=0, int[3] dilation=1, int groups=1)",
    "conv_transpose1d": "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, "
                        "int[1] stride=1, int[1] padding=0, int[1] output_padding=0, "
                        "int groups=1, int[1] dilation=1)",
    "conv_transpose2d": "conv_transpose2d(Tensor input, Tensor weight, Tensor? bias=None, "
                        "int[2] stride=1, int[2] padding=0, int[2] output_padding=0, "
                        "int groups=1, int[2] dilation=1)",
    "conv_transpose3d": "conv_transpose3d(Tensor input, Tensor weight, Tensor? bias=None, "
                        "int[3] stride=1, int[3] padding=0, int[3] output_padding=0, "
                        "int groups=1, int[3] dilation=1)",
    "max_pool3d": "max_pool3d(Tensor input, int[3] kernel_size, int[3] stride=[], "
                  "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False)",
    "avg_pool3d": "avg_pool3d(Tensor input, int[3] kernel_size, int[3] stride=[], "
                  "int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, "
                  "int? divisor_override=None)",
    "adaptive_avg_pool3d": "adaptive_avg_pool3d(Tensor input, int[3] output_size)",
    "group_norm": "group_norm(Tensor input, int num_groups, Tensor? weight=None, "
                  "Tensor? bias=None, float eps=1e-05)",
    "embedding": "embedding(Tensor input, Tensor weight)",
    "slice": "slice(Tensor input, int dim=0, SymInt? start=None, SymInt? end=None, int step=1)",
    "slice_scatter": "slice_scatter(Tensor input, Tensor src, int dim=0, int? start=None, "
                     "int? end=None, int step=1)",
    "select_scatter": "select_scatter(Tensor input, Tensor src, int dim, int index)",
    "select": "select(Tensor input, int dim, int index)",
    "index_select": "index_select(Tensor input, int dim, Tensor index)",
    "index": "index(Tensor input, Tensor?[] indices)",
    "gather": "gather(Tensor input, int dim, Tensor index)",
    "expand": "expand(Tensor input, int[] size)",
    "expand_as": "expand_as(Tensor input, Tensor other)",
    "unflatten": "unflatten(Tensor input, int dim, SymInt[] sizes)",
    "roll": "roll(Tensor input, int[] shifts, int[] dims=[])",
    "flip": "flip(Tensor input, int[] dims)",
    "pad": "pad(Tensor input, int[] pad, str mode='constant', float? value=None)",
    "interpolate": "interpolate(Tensor input, int[]? size=None, float[]? scale_factor=None, "
                   "str mode='nearest', bool? align_corners=None)",
    "where": "where(Tensor condition, Tensor|Scalar input, Tensor|Scalar other)",
    "masked_fill": "masked_fill(Tensor input, Tensor mask, Scalar value)",
    "eq": "eq(Tensor input, Tensor|Scalar other)",
    "ne": "ne(Tensor input, Tensor|Scalar other)",
    "lt": "lt(Tensor input, Tensor|Scalar other)",
    "le": "le(Tensor input, Tensor|Scalar other)",
    "gt": "gt(Tensor input, Tensor|Scalar other)",
    "ge": "ge(Tensor input, Tensor|Scalar other)",
    "logical_not": "logical_not(Tensor input)",
    "logical_and": "logical_and(Tensor input, Tensor other)",
    "logical_or": "logical_or(Tensor input, Tensor other)",
    "cumsum": "cumsum(Tensor input, int dim)",
    "argmax": "argmax(Tensor input, int? dim=None, bool keepdim=False)",
    "argmin": "argmin(Tensor input, int? dim=None, bool keepdim=False)",
    "amin": "amin(Tensor input, int[] dim=[], bool keepdim=False)",
    "to": "to(Tensor input, str dtype)",
    "full_like": "full_like(Tensor input, Scalar fill_value, str? dtype=None)",
    "arange": "arange(SymScalar start, SymScalar end, Scalar step=1, str? dtype=None)",
}


def _alpha(a):
    return None if a.alpha == 1 else scalar(a.alpha)


def _require_nodtype_attr(what):
    return {"dtype": (None, "a cast inside %s; cast the input first" % what)}


def _unary(op):
    return Row(op, ["self"])


def _binary(op):
    return Row(op, ["self", "other"])


def _comparison(op):
    return Row(op, ["self", "other"])


def _like(fill=None):
    attrs = {"dtype": ("dtype", dtype_attr)}
    attrs["fill_value"] = Const(fill) if fill is not None else ("fill_value", scalar)
    return Row("full_like", ["self"], attrs,
               drop=("layout", "device", "pin_memory", "memory_format"))


_RANDOM = unsupported("a random op: the graph would compute new random numbers on every run; "
                      "remove it from the inference path (model.eval() removes dropout)")
# F.instance_norm reaches ATen as a batch norm in training mode too, even in eval mode;
# aten_instance_norm.py has recomposed those it recognises before conversion.
_OUTPUT_OF_TRAINING = "normalises with the input's own statistics: batch norm in training " \
                      "mode (call model.eval() before exporting)"

ROWS = {
    # ** convolution, linear, matmul **
    "aten.convolution.default": Row(convert=C.convolution),
    "aten.linear.default": Row("linear", ["input", "weight", "bias"]),
    "aten.matmul.default": Row("matmul", ["self", "other"]),
    "aten.mm.default": Row("matmul", ["self", "mat2"]),
    "aten.bmm.default": Row("matmul", ["self", "mat2"]),
    "aten.addmm.default": Row(convert=C.addmm),
    "aten.baddbmm.default": Row(convert=C.baddbmm),
    # ** normalization **
    "aten.native_batch_norm.default": Row(outputs=first_output(Row(
        "batch_norm", ["input", "running_mean", "running_var", "weight", "bias"],
        {"eps": "eps"}, require={"training": (False, _OUTPUT_OF_TRAINING)},
        drop=("momentum",)), "the batch's mean and inverse standard deviation")),
    "aten.native_layer_norm.default": Row(outputs=first_output(Row(
        "layer_norm", ["input"], {"normalized_shape": "normalized_shape", "weight": "weight",
                                  "bias": "bias", "eps": "eps"}), "mean and rstd")),
    "aten.native_group_norm.default": Row(outputs=first_output(Row(
        "group_norm", ["input"], {"num_groups": "group", "weight": "weight", "bias": "bias",
                                  "eps": "eps"}, drop=("N", "C", "HxW")), "mean and rstd")),
    "aten._softmax.default": Row("softmax", ["self"], {"dim": "dim"},
                                 require={"half_to_float": (False, "half precision")}),
    "aten._log_softmax.default": Row("log_softmax", ["self"], {"dim": "dim"},
                                     require={"half_to_float": (False, "half precision")}),
    # ** activations **
    "aten.relu.default": _unary("relu"),
    "aten.hardtanh.default": Row(convert=C.hardtanh),
    "aten.leaky_relu.default": Row("leaky_relu", ["self"],
                                   {"negative_slope": ("negative_slope", float)}),
    "aten.elu.default": Row("elu", ["self"], {"alpha": ("alpha", float)},
                            require={"scale": (1, "scaled ELU (SELU)"),
                                     "input_scale": (1, "scaled ELU (SELU)")}),
    "aten.hardswish.default": _unary("hardswish"),
    "aten.hardsigmoid.default": _unary("hardsigmoid"),
    "aten.silu.default": _unary("silu"),
    "aten.sigmoid.default": _unary("sigmoid"),
    "aten.gelu.default": Row("gelu", ["self"], {"approximate": "approximate"}),
    "aten.tanh.default": _unary("tanh"),
    "aten.softplus.default": Row("softplus", ["self"], {"beta": ("beta", float),
                                                        "threshold": ("threshold", float)}),
    # ** elementwise math **
    "aten.sqrt.default": _unary("sqrt"),
    "aten.rsqrt.default": _unary("rsqrt"),
    "aten.exp.default": _unary("exp"),
    "aten.log.default": _unary("log"),
    "aten.neg.default": _unary("neg"),
    "aten.reciprocal.default": _unary("reciprocal"),
    "aten.abs.default": _unary("abs"),
    "aten.erf.default": _unary("erf"),
    "aten.clamp.default": Row("clamp", ["self"], {"min": ("min", scalar),
                                                  "max": ("max", scalar)}),
    "aten.clamp.Tensor": Row(convert=C.clamp_tensor),
    "aten.clamp_min.default": Row("clamp", ["self"], {"min": ("min", scalar)}),
    "aten.clamp_max.default": Row("clamp", ["self"], {"max": ("max", scalar)}),
    "aten.add.Tensor": Row("add", ["self", "other"], {"alpha": _alpha}, drop=("alpha",)),
    "aten.add.Scalar": Row("add", ["self", "other"], {"alpha": _alpha}, drop=("alpha",)),
    "aten.sub.Tensor": Row("sub", ["self", "other"], {"alpha": _alpha}, drop=("alpha",)),
    "aten.sub.Scalar": Row("sub", ["self", "other"], {"alpha": _alpha}, drop=("alpha",)),
    # rsub(self, other, alpha) = other - alpha * self
    "aten.rsub.Scalar": Row("sub", ["other", "self"], {"alpha": _alpha}, drop=("alpha",)),
    "aten.rsub.Tensor": Row("sub", ["other", "self"], {"alpha": _alpha}, drop=("alpha",)),
    "aten.mul.Tensor": _binary("mul"),
    "aten.mul.Scalar": _binary("mul"),
    "aten.div.Tensor": _binary("div"),
    "aten.div.Scalar": _binary("div"),
    "aten.div.Tensor_mode": Row("div", ["self", "other"], {"rounding_mode": "rounding_mode"}),
    "aten.pow.Tensor_Scalar": Row("pow", ["self", "exponent"]),
    "aten.pow.Tensor_Tensor": Row("pow", ["self", "exponent"]),
    "aten.pow.Scalar": Row("pow", ["self", "exponent"]),
    "aten.maximum.default": _binary("maximum"),
    "aten.minimum.default": _binary("minimum"),
    # ** comparisons and selection **
    "aten.eq.Scalar": _comparison("eq"), "aten.eq.Tensor": _comparison("eq"),
    "aten.ne.Scalar": _comparison("ne"), "aten.ne.Tensor": _comparison("ne"),
    "aten.lt.Scalar": _comparison("lt"), "aten.lt.Tensor": _comparison("lt"),
    "aten.le.Scalar": _comparison("le"), "aten.le.Tensor": _comparison("le"),
    "aten.gt.Scalar": _comparison("gt"), "aten.gt.Tensor": _comparison("gt"),
    "aten.ge.Scalar": _comparison("ge"), "aten.ge.Tensor": _comparison("ge"),
    "aten.logical_not.default": _unary("logical_not"),
    "aten.logical_and.default": _binary("logical_and"),
    "aten.logical_or.default": _binary("logical_or"),
    "aten.where.self": Row("where", ["condition", "self", "other"]),
    "aten.masked_fill.Scalar": Row("masked_fill", ["self", "mask"],
                                   {"value": ("value", scalar)}),
    "aten.masked_fill.Tensor": Row("where", ["mask", "value", "self"]),
    # ** pooling **
    "aten.max_pool2d_with_indices.default": Row(outputs=first_output(Row(
        "max_pool2d", ["self"], {"kernel_size": "kernel_size", "stride": "stride",
                                 "padding": "padding", "dilation": "dilation",
                                 "ceil_mode": "ceil_mode"}), "the indices")),
    "aten.max_pool3d_with_indices.default": Row(outputs=first_output(Row(
        "max_pool3d", ["self"], {"kernel_size": "kernel_size", "stride": "stride",
                                 "padding": "padding", "dilation": "dilation",
                                 "ceil_mode": "ceil_mode"}), "the indices")),
    "aten.avg_pool2d.default": Row("avg_pool2d", ["self"], {
        "kernel_size": "kernel_size", "stride": "stride", "padding": "padding",
        "ceil_mode": "ceil_mode", "count_include_pad": "count_include_pad",
        "divisor_override": "divisor_override"}),
    "aten.avg_pool3d.default": Row("avg_pool3d", ["self"], {
        "kernel_size": "kernel_size", "stride": "stride", "padding": "padding",
        "ceil_mode": "ceil_mode", "count_include_pad": "count_include_pad",
        "divisor_override": "divisor_override"}),
    "aten._adaptive_avg_pool2d.default": Row("adaptive_avg_pool2d", ["self"],
                                             {"output_size": "output_size"}),
    "aten._adaptive_avg_pool3d.default": Row("adaptive_avg_pool3d", ["self"],
                                             {"output_size": "output_size"}),
    "aten.adaptive_max_pool2d.default": Row(outputs=first_output(Row(
        "adaptive_max_pool2d", ["self"], {"output_size": "output_size"}), "the indices")),
    # ** reductions **
    "aten.mean.dim": Row("mean", ["self"], {"dim": "dim", "keepdim": "keepdim"},
                         require=_require_nodtype_attr("mean")),
    "aten.mean.default": Row("mean", ["self"], require=_require_nodtype_attr("mean")),
    "aten.sum.dim_IntList": Row("sum", ["self"], {"dim": "dim", "keepdim": "keepdim"},
                                require=_require_nodtype_attr("sum")),
    "aten.sum.default": Row("sum", ["self"], require=_require_nodtype_attr("sum")),
    "aten.amax.default": Row("amax", ["self"], {"dim": "dim", "keepdim": "keepdim"}),
    "aten.amin.default": Row("amin", ["self"], {"dim": "dim", "keepdim": "keepdim"}),
    "aten.max.default": Row("amax", ["self"]),
    "aten.min.default": Row("amin", ["self"]),
    "aten.max.dim": Row(outputs=C.max_dim_output("amax", "argmax")),
    "aten.min.dim": Row(outputs=C.max_dim_output("amin", "argmin")),
    "aten.argmax.default": Row("argmax", ["self"], {"dim": "dim", "keepdim": "keepdim"}),
    "aten.argmin.default": Row("argmin", ["self"], {"dim": "dim", "keepdim": "keepdim"}),
    "aten.linalg_vector_norm.default": Row(convert=C.vector_norm),
    "aten.var_mean.correction": Row(outputs=C.var_mean_output),
    "aten.cumsum.default": Row("cumsum", ["self"], {"dim": "dim"},
                               require=_require_nodtype_attr("cumsum")),
    # ** shapes and views **
    "aten.view.default": Row(convert=C.reshape),
    "aten._unsafe_view.default": Row(convert=C.reshape),
    "aten._reshape_alias.default": Row(convert=C.reshape),
    "aten.reshape.default": Row(convert=C.reshape),
    "aten.squeeze.default": Row(convert=C.squeeze_all),
    "aten.squeeze.dim": Row("squeeze", ["self"], {"dim": "dim"}),
    "aten.unsqueeze.default": Row("unsqueeze", ["self"], {"dim": "dim"}),
    "aten.permute.default": Row("permute", ["self"], {"dims": "dims"}),
    "aten.transpose.int": Row("transpose", ["self"], {"dim0": "dim0", "dim1": "dim1"}),
    "aten.t.default": Row(convert=C.transpose_2d),
    "aten.expand.default": Row(convert=C.expand),
    "aten.slice.Tensor": Row(convert=C.slice_),
    "aten.select.int": Row("select", ["self"], {"dim": "dim", "index": "index"}),
    # functionalize's form of writes into slices (x[:, :k] = y, x[0] = y)
    "aten.slice_scatter.default": Row("slice_scatter", ["self", "src"], {
        "dim": "dim", "start": "start", "end": "end", "step": "step"}),
    "aten.select_scatter.default": Row("select_scatter", ["self", "src"], {
        "dim": "dim", "index": "index"}),
    "aten.zero.default": Row(convert=C.fill_like),
    "aten.fill.Scalar": Row(convert=C.fill_like),
    "aten.fill.Tensor": Row(convert=C.fill_like),
    "aten.as_strided.default": Row(convert=C.as_strided),
    "aten.cat.default": Row(convert=C.cat),
    "aten.stack.default": Row(convert=C.stack),
    "aten.split.Tensor": Row(outputs=C.split_output(C.equal_sizes)),
    "aten.unsafe_split.Tensor": Row(outputs=C.split_output(C.equal_sizes)),
    "aten.split_with_sizes.default": Row(outputs=C.split_output(
        lambda a, total: a.ints("split_sizes"))),
    "aten.unsafe_split_with_sizes.default": Row(outputs=C.split_output(
        lambda a, total: a.ints("split_sizes"))),
    "aten.unbind.int": Row(outputs=C.unbind_output),
    "aten.roll.default": Row("roll", ["self"], {"shifts": "shifts", "dims": "dims"}),
    "aten.flip.default": Row("flip", ["self"], {"dims": "dims"}),
    "aten.constant_pad_nd.default": Row("pad", ["self"], {"pad": "pad", "mode": Const(
        "constant"), "value": ("value", float)}),
    "aten.reflection_pad1d.default": Row("pad", ["self"], {"pad": "padding",
                                                           "mode": Const("reflect")}),
    "aten.reflection_pad2d.default": Row("pad", ["self"], {"pad": "padding",
                                                           "mode": Const("reflect")}),
    "aten.replication_pad1d.default": Row("pad", ["self"], {"pad": "padding",
                                                            "mode": Const("replicate")}),
    "aten.replication_pad2d.default": Row("pad", ["self"], {"pad": "padding",
                                                            "mode": Const("replicate")}),
    "aten.reflection_pad3d.default": Row("pad", ["self"], {"pad": "padding",
                                                           "mode": Const("reflect")}),
    "aten.replication_pad3d.default": Row("pad", ["self"], {"pad": "padding",
                                                            "mode": Const("replicate")}),
    # ** resampling **
    "aten.upsample_bilinear2d.vec": Row("interpolate", ["input"], {
        "size": lambda a: None if a.scale_factors else a.output_size,
        "scale_factor": "scale_factors", "mode": Const("bilinear"),
        "align_corners": "align_corners"}, drop=("output_size",)),
    "aten.upsample_nearest2d.vec": Row("interpolate", ["input"], {
        "size": lambda a: None if a.scale_factors else a.output_size,
        "scale_factor": "scale_factors", "mode": Const("nearest")}, drop=("output_size",)),
    "aten.upsample_bilinear2d.default": Row("interpolate", ["self"], {
        "size": lambda a: None if a.scales_h is not None else a.output_size,
        "scale_factor": lambda a: None if a.scales_h is None else [a.scales_h, a.scales_w],
        "mode": Const("bilinear"), "align_corners": "align_corners"},
        drop=("output_size", "scales_h", "scales_w")),
    "aten.upsample_nearest2d.default": Row("interpolate", ["self"], {
        "size": lambda a: None if a.scales_h is not None else a.output_size,
        "scale_factor": lambda a: None if a.scales_h is None else [a.scales_h, a.scales_w],
        "mode": Const("nearest")}, drop=("output_size", "scales_h", "scales_w")),
    # ** indexing **
    "aten.embedding.default": Row("embedding", ["indices", "weight"],
                                  drop=("padding_idx", "scale_grad_by_freq", "sparse")),
    "aten.index_select.default": Row("index_select", ["self"], {"dim": "dim",
                                                                "index": "index"}),
    "aten.index.Tensor": Row(convert=C.index),
    "aten.gather.default": Row("gather", ["self"], {"dim": "dim", "index": "index"},
                               drop=("sparse_grad",)),
    # ** no-ops in a functional inference graph **
    "aten.clone.default": identity("self"),
    "aten.alias.default": identity("self"),
    "aten.detach.default": identity("self"),
    "aten.lift_fresh_copy.default": identity("self"),
    "aten.contiguous.default": identity("self"),
    "aten._to_copy.default": Row(convert=C.to_copy),
    # ** factories (folded into constants unless a size is symbolic) **
    "aten.arange.default": Row("arange", [], {"start": Const(0), "end": ("end", scalar),
                                              "dtype": ("dtype", dtype_attr)},
                               drop=("layout", "device", "pin_memory")),
    "aten.arange.start": Row("arange", [], {"start": ("start", scalar),
                                            "end": ("end", scalar), "dtype": ("dtype", dtype_attr)},
                             drop=("layout", "device", "pin_memory")),
    "aten.arange.start_step": Row("arange", [], {
        "start": ("start", scalar), "end": ("end", scalar), "step": ("step", scalar),
        "dtype": ("dtype", dtype_attr)}, drop=("layout", "device", "pin_memory")),
    "aten.zeros.default": Row(convert=C.full(0)),
    "aten.ones.default": Row(convert=C.full(1)),
    "aten.full.default": Row(convert=C.full()),
    "aten.empty.memory_format": Row(convert=C.full(0)),
    "aten.new_zeros.default": Row(convert=C.full(0)),
    "aten.new_ones.default": Row(convert=C.full(1)),
    "aten.new_full.default": Row(convert=C.full()),
    "aten.new_empty.default": Row(convert=C.full(0)),
    "aten.zeros_like.default": _like(0),
    "aten.ones_like.default": _like(1),
    "aten.full_like.default": _like(),
    # ** refused with a reason **
    "aten._local_scalar_dense.default": unsupported(
        "reads a tensor's value into Python (x.item(), int(x), float(x), or a tensor in an "
        "`if`): the capture fixed the result to the example input's value. Compute it with "
        "tensor ops (torch.where instead of an `if`)"),
    "aten.bernoulli.p": _RANDOM, "aten.bernoulli.default": _RANDOM,
    "aten.rand.default": _RANDOM, "aten.randn.default": _RANDOM,
    "aten.rand_like.default": _RANDOM, "aten.randn_like.default": _RANDOM,
    "aten.native_dropout.default": _RANDOM,
    "aten.copy_.default": unsupported(
        "the model writes into one of its inputs or buffers (an in-place op on it); graft "
        "models have no state: compute a new tensor instead"),
}

# Ops whose value does not depend on any input, or only on an input's shape: the converter
# folds them into constants when their arguments and shape are the same in every run.
FACTORIES = {
    "aten.arange.default", "aten.arange.start", "aten.arange.start_step",
    "aten.zeros.default", "aten.ones.default", "aten.full.default", "aten.empty.memory_format",
    "aten.scalar_tensor.default", "aten.lift_fresh_copy.default",
}
SHAPE_ONLY = {
    "aten.zeros_like.default", "aten.ones_like.default", "aten.full_like.default",
    "aten.empty_like.default", "aten.new_zeros.default", "aten.new_ones.default",
    "aten.new_full.default", "aten.new_empty.default",
}
RANDOM = {name for name, row in ROWS.items() if row is _RANDOM}
# Ops whose folded 0-d float operand of the result's dtype is written as a number: the same
# value and result type (a 0-d tensor does not promote), and the spelling rules match
# (HF GPT-2's `w / torch.full([], d ** 0.5)`, `torch.where(causal, w, full([], finfo.min))`).
# The positions where graft's op takes a number.
SCALAR_CONSTANT_OPERANDS = {"aten.add.Tensor": (1,), "aten.sub.Tensor": (1,),
                            "aten.mul.Tensor": (1,), "aten.div.Tensor": (1,),
                            "aten.where.self": (1, 2)}

# Composite ops that make_fx would otherwise keep whole but that graft has no op for: they
# are decomposed into ops the table has (torch._decomp's decompositions; norm becomes
# linalg_vector_norm, std becomes var, var becomes mean, sub, mul, sum and div).
DECOMPOSE = [
    torch.ops.aten.norm.Scalar,
    torch.ops.aten.norm.ScalarOpt_dim,
    torch.ops.aten.std.correction,
    torch.ops.aten.var.correction,
]

GETITEM = operator.getitem
