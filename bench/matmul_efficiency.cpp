// matmul_efficiency: how fast graft's linear, linear_post and matmul steps run inside a model,
// compared with standalone oneDNN 2.x primitives of the same shapes, conv_efficiency's
// comparison for a transformer's matrix products. A linear step's twin is an inner_product
// with the same post-op chain (activation, residual sum, post-activation), every memory
// descriptor format_tag::any (oneDNN's own weight layout, as graft asks for a constant
// weight); a matmul step's twin is a matmul of the same (broadcast) shapes, its operands plain
// as the model hands them over, except a constant right operand, which gets format_tag::any.
// The three timings (seq, the bar; hot; cold) and the rounds are those of conv_efficiency
// (bench/step_efficiency.h). Steps of other ops (scaled_dot_product_attention among them) are
// not compared. The tool also prints the model's FLOPs per run, 2 * MACs of every conv, linear,
// matmul and attention step from the concrete shapes, which bench/transformer_bench.py divides
// by graft's latency and the host's FMA peak (bench/fma_peak.cpp). Never part of ctest.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/step_efficiency.h"
#include "engine/ops/matmul_shapes.h"
#include "runtime/dnnl_util.h"
#include "runtime/kernels/activation.h"

namespace graft::bench {
namespace {

int64_t numel(const Shape& s, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t n = 1;
  for (size_t i = from; i < s.size() && i < to; ++i) n *= s[i];
  return n;
}

std::string dims(const Shape& s) {
  std::string out;
  for (int64_t d : s) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

const Shape* shape_of(const Node& node, size_t input) {
  if (input >= node.inputs().size() || !node.input(input).is_node()) return nullptr;
  const TensorType* t = node.input(input).node->type();
  return t != nullptr ? &t->shape : nullptr;
}

/// 2 * MACs of a conv, linear, matmul or attention node from its concrete shapes; 0 for other
/// ops and for shapes that are not there.
double node_flops(const Node& node) {
  const Shape* a = shape_of(node, 0);
  const Shape* b = shape_of(node, 1);
  if (a == nullptr || b == nullptr || node.type() == nullptr || b->empty()) return 0;
  const Shape& y = node.type()->shape;
  if (node.is_op("conv2d") || node.is_op("conv2d_post")) return 2.0 * numel(y) * numel(*b, 1);
  if (node.is_op("linear") || node.is_op("linear_post")) return 2.0 * numel(y) * b->back();
  if (node.is_op("matmul")) return 2.0 * numel(y) * (*a)[a->size() - 1];
  if (node.is_op("scaled_dot_product_attention")) {
    const Shape* v = shape_of(node, 2);
    if (v == nullptr || a->size() < 2 || v->empty()) return 0;
    // q [..., L, E] @ k^T [..., E, S], then [..., L, S] @ v [..., S, Ev].
    const double l = static_cast<double>((*a)[a->size() - 2]);
    const double s = static_cast<double>((*b)[b->size() - 2]);
    return 2.0 * numel(*a, 0, a->size() - 2) * l * s * static_cast<double>(a->back() + v->back());
  }
  return 0;
}

std::optional<std::vector<runtime::EltwiseStep>> steps_of(const Node& node, const std::string& prefix) {
  return runtime::activation_steps(std::get<std::string>(node.attr(prefix + "activation")),
                                   std::get<double>(node.attr(prefix + "alpha")),
                                   std::get<double>(node.attr(prefix + "beta")));
}

/// The inner_product a linear / linear_post node runs on: [rows, k] x [n, k]^T, the post-op
/// chain runtime/kernels/linear.cpp builds; its row's shape text.
std::unique_ptr<Standalone> make_linear(const Node& node, std::string* shape) {
  using namespace dnnl;
  const Shape& x = *shape_of(node, 0);
  const Shape& w = *shape_of(node, 1);
  const int64_t rows = numel(x, 0, x.size() - 1), k = w[1], n = w[0];
  const bool has_bias = shape_of(node, 2) != nullptr;
  const bool has_residual = node.is_op("linear_post") && shape_of(node, 3) != nullptr;
  std::vector<runtime::EltwiseStep> act, post_act;
  std::string act_name;
  if (node.is_op("linear_post")) {
    auto a = steps_of(node, ""), p = steps_of(node, "post_");
    if (!a || !p) return nullptr;
    act = *a;
    post_act = *p;
    for (const char* prefix : {"", "post_"}) {
      const auto& name = std::get<std::string>(node.attr(std::string(prefix) + "activation"));
      if (name != "none") act_name += " " + name;
      if (*prefix == 0 && has_residual) act_name += " +res";
    }
  }
  *shape = std::to_string(rows) + "x" + std::to_string(k) + " -> " + std::to_string(n) + act_name;
  auto any = [](memory::dims d) { return memory::desc(d, memory::data_type::f32, memory::format_tag::any); };
  auto desc = has_bias ? inner_product_forward::desc(prop_kind::forward_inference, any({rows, k}),
                                                     any({n, k}), any({n}), any({rows, n}))
                       : inner_product_forward::desc(prop_kind::forward_inference, any({rows, k}),
                                                     any({n, k}), any({rows, n}));
  post_ops ops;
  runtime::append_post_ops(ops, act);
  if (has_residual) ops.append_sum(1.0f);
  if (!runtime::must_split_post_ops(act, has_residual, post_act)) runtime::append_post_ops(ops, post_act);
  primitive_attr attr = runtime::KernelContext::scratchpad_attr();  // user-managed, as graft's
  attr.set_post_ops(ops);
  auto out = std::make_unique<Standalone>();
  try {
    inner_product_forward::primitive_desc pd(desc, attr, out->eng);
    out->init(pd, inner_product_forward(pd), has_bias);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return out;
}

/// The matmul a matmul node runs on, after torch's 1-d promotions and batch broadcasting (as
/// the runtime's kernel); its row's shape text.
std::unique_ptr<Standalone> make_matmul(const Node& node, std::string* shape) {
  std::optional<MatmulShapes> shapes = promote_matmul(*shape_of(node, 0), *shape_of(node, 1));
  if (!shapes) return nullptr;
  const Shape& as = shapes->a;
  const Shape& bs = shapes->b;
  const Shape& out = shapes->out;
  *shape = dims(as) + " @ " + dims(bs);
  const bool constant_b = node.input(1).node->is(NodeKind::kGetAttr);
  auto result = std::make_unique<Standalone>();
  try {
    dnnl::matmul::desc desc(runtime::plain_md(as), constant_b ? runtime::any_md(bs) : runtime::plain_md(bs),
                            runtime::plain_md(out));
    dnnl::matmul::primitive_desc pd(desc, runtime::KernelContext::scratchpad_attr(), result->eng);
    result->init(pd, dnnl::matmul(pd), /*has_bias=*/false);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return result;
}

/// The model's FLOPs per run by op, over every step whose node the typed graph has.
std::map<std::string, double> model_flops(const CompiledModel& m) {
  std::map<std::string, double> by_op;
  for (const runtime::StepInfo& step : m.exe->steps()) {
    const Node* node = m.typed->find(step.name);
    const double f = node != nullptr ? node_flops(*node) : 0;
    if (f > 0) by_op[step.op] += f;
  }
  return by_op;
}

nlohmann::json flops_json(const std::map<std::string, double>& by_op, double* total) {
  *total = 0;
  for (const auto& [op, f] : by_op) *total += f;
  return {{"model_flops", *total}, {"model_flops_by_op", by_op}};
}

int run(const Flags& flags, bool flops_only) {
  std::optional<CompiledModel> m = compile_model(flags);
  if (!m) return 1;
  double total = 0;
  nlohmann::json extra = flops_json(model_flops(*m), &total);
  if (flops_only) {
    std::printf("%s\n", extra.dump().c_str());
    return 0;
  }
  std::vector<StepRow> rows;
  std::vector<std::string> skipped;
  for (size_t s = 0; s < m->exe->steps().size(); ++s) {
    const runtime::StepInfo& step = m->exe->steps()[s];
    const bool linear = step.op == "linear" || step.op == "linear_post";
    if (step.op == "scaled_dot_product_attention") skipped.push_back(step.name);
    if (!linear && step.op != "matmul") continue;
    const Node* node = m->typed->find(step.name);
    StepRow row{s, "", node != nullptr ? node_flops(*node) : 0, nullptr, nullptr, ""};
    if (node != nullptr && shape_of(*node, 0) != nullptr && shape_of(*node, 1) != nullptr) {
      row.alone = linear ? make_linear(*node, &row.shape) : make_matmul(*node, &row.shape);
    }
    if (!row.alone) {
      std::fprintf(stderr, "matmul_efficiency: no standalone primitive for '%s' (%s)\n", step.name.c_str(),
                   step.op.c_str());
      return 3;
    }
    rows.push_back(std::move(row));
  }
  std::vector<std::byte> scratchpad = share_scratchpad(rows);
  std::optional<ModelTimes> times = time_rounds(*m, rows, flags);
  if (!times) return 1;
  const double run_p50 = median(times->run_ms);
  extra["model_gflops"] = total / run_p50 / 1e6;
  extra["skipped_steps"] = skipped;
  char text[256];
  std::snprintf(text, sizeof text, "the model: %.2f GFLOP a run (conv, linear, matmul, attention), %.1f GFLOP/s "
                "over a whole profiled run%s\n",
                total / 1e9, total / run_p50 / 1e6,
                skipped.empty() ? "" : "; attention steps not compared");
  return report(flags, *m, rows, *times, {"matmul", "linear and matmul steps"}, extra, text);
}

}  // namespace
}  // namespace graft::bench

int main(int argc, char** argv) {
  graft::bench::Flags flags;
  bool flops_only = false;
  CLI::App app{"graft's linear and matmul steps inside a model vs standalone oneDNN primitives of the same shapes"};
  graft::bench::add_options(app, flags);
  app.add_flag("--flops-only", flops_only, "print the model's FLOPs per run as JSON, time nothing");
  CLI11_PARSE(app, argc, argv);
  return graft::bench::run_guarded("matmul_efficiency", [&] { return graft::bench::run(flags, flops_only); });
}
