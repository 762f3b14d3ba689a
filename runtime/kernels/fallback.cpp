// The plain-layout fallback: a LoopKernel running the op's reference kernel. Used for what
// oneDNN 2.6 has no primitive for (erf, pow of tensors, uneven adaptive pooling, torch's
// clipped averaging divisor with ceil_mode, divisor_override, broadcast dividends) and for the
// ops that pick or write elements by position on any dtype (slice, select, expand, flip,
// roll, embedding, index_select, slice_scatter, select_scatter). It is single-threaded, but
// these ops are rare or cheap in the models graft targets. Bad data found at run time (an
// index out of range) is a KernelRunError.
#include <cstdint>
#include <cstring>

#include "eval/reference.h"
#include "runtime/kernels/families.h"

namespace graft::runtime {

using eval::RefOperand;
using eval::Tensor;
using eval::has_reference;
using eval::reference_op;

std::optional<KernelPlan> build_fallback(KernelContext& ctx) {
  if (!ctx.node().schema() || !has_reference(*ctx.node().schema())) return ctx.not_implemented("no kernel for op '" + ctx.op() + "'");
  KernelPlan plan = make_plan(ctx);
  std::vector<Operand> operands = ctx.operands();
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].is_tensor()) plan.src_mds[i] = plain_md(operands[i].shape(), operands[i].type.dtype);
  }
  plan.dst_md = plain_md(ctx.out().shape, ctx.out().dtype);
  plan.impl = "fallback loop";
  {
    // Dry run on zeros (and the constants' values) so that an unsupported case, or a
    // constant index out of range, is a compile-time diagnostic, never a failure inside run().
    std::vector<Tensor> zeros(operands.size());
    std::vector<RefOperand> refs(operands.size());
    for (size_t i = 0; i < operands.size(); ++i) {
      if (operands[i].is_tensor()) {
        const ConstantTensor* c = operands[i].constant;
        const bool aligned =
            c && reinterpret_cast<uintptr_t>(c->data) % dtype_size(c->dtype()) == 0;
        // The kernels only read their operands: the const_cast never leads to a write.
        zeros[i] = aligned ? Tensor::borrow(c->dtype(), c->shape(), const_cast<std::byte*>(c->data))
                           : Tensor::zeros(operands[i].type.dtype, operands[i].shape());
        refs[i].tensor = &zeros[i];
      } else if (operands[i].is_scalar()) {
        refs[i].scalar = operands[i].scalar;
      }
    }
    Tensor out = Tensor::zeros(ctx.out().dtype, ctx.out().shape);
    std::string error;
    if (!reference_op(ctx.node(), refs, out, &error)) return ctx.not_implemented(error);
  }
  const Node* node = &ctx.node();  // owned by the Executable's graph, which outlives the kernel
  TensorType out_type = ctx.out();
  plan.kernel = std::make_unique<LoopKernel>([node, operands, out_type](const KernelMemories& m) {
    std::vector<Tensor> tensors(operands.size());
    std::vector<RefOperand> refs(operands.size());
    for (size_t i = 0; i < operands.size(); ++i) {
      if (operands[i].is_tensor()) {
        tensors[i] = Tensor::borrow(operands[i].type.dtype, operands[i].shape(),
                                    m.srcs[i].get_data_handle());
        refs[i].tensor = &tensors[i];
      } else if (operands[i].is_scalar()) {
        refs[i].scalar = operands[i].scalar;
      }
    }
    Tensor out = Tensor::borrow(out_type.dtype, out_type.shape, m.dst.get_data_handle());
    std::string error;
    // The compiler checked the op and the shapes on a dry run: what fails here is the data
    // (an index out of range).
    if (!reference_op(*node, refs, out, &error)) {
      throw KernelRunError("node '" + node->name() + "' (" + node->target() + "): " + error);
    }
  });
  return plan;
}

}  // namespace graft::runtime
