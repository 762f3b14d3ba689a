// add, sub, mul, div, pow, maximum, minimum. Two tensors use oneDNN's binary primitive, which
// broadcasts its second source (src1) to the first (src0, whose shape must be the result's); a
// tensor and a scalar become one eltwise step (linear or pow). Cases oneDNN cannot express
// (both operands broadcast, a broadcast dividend, pow of two tensors) run the plain fallback.
#include "eval/node_formula.h"
#include "runtime/kernels/activation.h"
#include "runtime/kernels/families.h"

namespace graft::runtime {
namespace {

using dnnl::algorithm;

/// `shape` with leading 1s up to `rank` (torch aligns broadcast dims from the right).
Shape pad_rank(const Shape& shape, size_t rank) {
  Shape padded(rank - shape.size(), 1);
  padded.insert(padded.end(), shape.begin(), shape.end());
  return padded;
}

/// tensor (op) scalar, or scalar (op) tensor, as eltwise steps; nullopt when it needs the
/// fallback.
std::optional<std::vector<EltwiseStep>> scalar_steps(Formula op, double alpha, double s,
                                                     bool scalar_first) {
  using enum Formula;
  auto f = [](double v) { return static_cast<float>(v); };
  using Steps = std::vector<EltwiseStep>;
  if (!scalar_first) {
    if (op == kAdd) return Steps{{algorithm::eltwise_linear, 1, f(alpha * s)}};
    if (op == kSub) return Steps{{algorithm::eltwise_linear, 1, f(-alpha * s)}};
    if (op == kMul) return Steps{{algorithm::eltwise_linear, f(s), 0}};
    if (op == kDiv) return Steps{{algorithm::eltwise_linear, f(1.0 / s), 0}};
    if (op == kPow) return Steps{{algorithm::eltwise_pow, 1, f(s)}};
    return std::nullopt;
  }
  if (op == kAdd) return Steps{{algorithm::eltwise_linear, f(alpha), f(s)}};
  if (op == kSub) return Steps{{algorithm::eltwise_linear, f(-alpha), f(s)}};
  if (op == kMul) return Steps{{algorithm::eltwise_linear, f(s), 0}};
  if (op == kDiv) return Steps{{algorithm::eltwise_pow, f(s), -1}};
  return std::nullopt;  // pow(scalar, tensor)
}

std::optional<algorithm> binary_alg(Formula op) {
  using enum Formula;
  if (op == kAdd) return algorithm::binary_add;
  if (op == kSub) return algorithm::binary_sub;
  if (op == kMul) return algorithm::binary_mul;
  if (op == kDiv) return algorithm::binary_div;
  if (op == kMaximum) return algorithm::binary_max;
  if (op == kMinimum) return algorithm::binary_min;
  return std::nullopt;
}

}  // namespace

std::optional<KernelPlan> build_binary(KernelContext& ctx) {
  const Operand& a = ctx.operand(0);
  const Operand& b = ctx.operand(1);
  std::string error;
  std::optional<eval::NodeFormula> formula =
      eval::node_formula(*ctx.node().schema(), ctx.node().attrs(), &error);
  if (!formula) return ctx.fail(error);
  const Formula op = formula->op;
  const double alpha = formula->params.alpha;  // add's and sub's; 1 for the others
  // oneDNN 2.6 has no floor/trunc eltwise: a rounding div runs the reference loop.
  if (op == Formula::kDivTrunc || op == Formula::kDivFloor) return build_fallback(ctx);
  if (a.is_tensor() != b.is_tensor()) {
    const bool scalar_first = !a.is_tensor();
    auto steps = scalar_steps(op, alpha, scalar_first ? a.scalar : b.scalar, scalar_first);
    if (!steps) return build_fallback(ctx);
    return build_eltwise_steps(ctx, *steps, scalar_first ? 1 : 0);
  }
  if (!a.is_tensor()) return ctx.not_implemented("two scalar operands");
  std::optional<algorithm> alg = binary_alg(op);
  const Shape& out = ctx.out().shape;
  // src0 must have the result's shape; swap for the commutative ops (and for sub, negating
  // afterwards) when only the second operand does.
  int i0 = 0;
  bool negate = false;
  if (a.shape() != out) {
    if (b.shape() != out || op == Formula::kDiv) alg.reset();
    i0 = 1;
    negate = op == Formula::kSub;
  }
  if (!alg) return build_fallback(ctx);
  const int i1 = 1 - i0;
  const Operand& src1 = ctx.operand(static_cast<size_t>(i1));

  md_t src0_md = ctx.pass_through_md(static_cast<size_t>(i0));
  // A full-size src1 is read in src0's layout (the compiler reorders it if needed, e.g. a
  // plain residual against a blocked conv output); a broadcast one stays plain.
  md_t src1_md = src1.shape() == out ? src0_md : plain_md(pad_rank(src1.shape(), out.size()));
  dnnl::primitive_attr attr = KernelContext::scratchpad_attr();
  if (alpha != 1) attr.set_scales(i0 == 0 ? DNNL_ARG_SRC_1 : DNNL_ARG_SRC_0, 0,
                                  {static_cast<float>(alpha)});
  if (negate) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, algorithm::eltwise_linear, -1.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  dnnl::binary::desc desc(*alg, src0_md, src1_md, src0_md);
  dnnl::binary::primitive_desc pd(desc, attr, ctx.engine());

  KernelPlan plan = make_plan(ctx);
  plan.src_mds[static_cast<size_t>(i0)] = pd.src_desc(0);
  plan.src_mds[static_cast<size_t>(i1)] = pd.src_desc(1);
  plan.dst_md = pd.dst_desc();
  plan.inplace_src = i0;
  set_single_primitive(plan, pd, dnnl::binary(pd),
                       {{DNNL_ARG_SRC_0, ArgSource::src(i0)},
                        {DNNL_ARG_SRC_1, ArgSource::src(i1)},
                        {DNNL_ARG_DST, ArgSource::dst()}},
                       "binary");
  return plan;
}

}  // namespace graft::runtime
