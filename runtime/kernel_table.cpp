// The kernel table: registry op name -> kernel builder (runtime/kernels/). It mirrors
// engine/ops/op_table.cpp; runtime_test checks that every registry op has a row here.
#include <map>

#include "runtime/executable.h"
#include "runtime/kernels/families.h"

namespace graft::runtime {
namespace {

const std::map<std::string, KernelBuilder, std::less<>>& table() {
  static const std::map<std::string, KernelBuilder, std::less<>> rows = {
      // ** convolution and matrix products **
      {"conv2d", build_conv2d},
      {"conv2d_post", build_conv2d},
      {"linear", build_linear},
      {"linear_post", build_linear},
      {"matmul", build_matmul},
      // ** normalization **
      {"batch_norm", build_batch_norm},
      {"layer_norm", build_layer_norm},
      // ** activations and elementwise math (eltwise) **
      {"relu", build_eltwise},
      {"relu6", build_eltwise},
      {"hardtanh", build_eltwise},
      {"leaky_relu", build_eltwise},
      {"elu", build_eltwise},
      {"hardswish", build_eltwise},
      {"hardsigmoid", build_eltwise},
      {"silu", build_eltwise},
      {"sigmoid", build_eltwise},
      {"gelu", build_eltwise},
      {"tanh", build_eltwise},
      {"softplus", build_eltwise},  // soft_relu between linear steps; small thresholds: fallback
      {"sqrt", build_eltwise},
      {"rsqrt", build_eltwise},
      {"exp", build_eltwise},
      {"log", build_eltwise},
      {"neg", build_eltwise},
      {"reciprocal", build_eltwise},
      {"abs", build_eltwise},
      {"clamp", build_eltwise},
      {"erf", build_fallback},  // no eltwise erf in oneDNN 2.6
      // ** binary elementwise (binary, or eltwise with a scalar) **
      {"add", build_binary},
      {"sub", build_binary},
      {"mul", build_binary},
      {"div", build_binary},
      {"pow", build_binary},
      {"maximum", build_binary},
      {"minimum", build_binary},
      // ** pooling **
      {"max_pool2d", build_pool2d},
      {"avg_pool2d", build_pool2d},
      {"adaptive_avg_pool2d", build_adaptive_pool2d},
      {"adaptive_max_pool2d", build_adaptive_pool2d},
      // ** reductions and softmax **
      {"mean", build_reduce},
      {"sum", build_reduce},
      {"amax", build_reduce},
      {"softmax", build_softmax},
      {"log_softmax", build_softmax},
      // ** data movement **
      {"cat", build_cat},
      {"flatten", build_view},
      {"reshape", build_view},
      {"squeeze", build_view},
      {"unsqueeze", build_view},
      {"permute", build_permute},
      {"transpose", build_permute},
      {"contiguous", build_alias},
      {"clone", build_alias},
      {"dropout", build_alias},
  };
  return rows;
}

}  // namespace

KernelBuilder find_kernel(std::string_view op) {
  auto it = table().find(op);
  return it == table().end() ? nullptr : it->second;
}

std::vector<std::string> kernel_op_names() {
  std::vector<std::string> names;
  for (const auto& [name, builder] : table()) names.push_back(name);
  return names;
}

std::vector<std::string> runtime_op_names() { return kernel_op_names(); }

}  // namespace graft::runtime
