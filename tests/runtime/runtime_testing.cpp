// Runtime test helpers.
#include "tests/runtime/runtime_testing.h"

#include <cstring>

#include <catch2/catch.hpp>

#include "tests/runtime/test_ops.h"

namespace graft::testing {

Node* GraphBuilder::input(const std::string& name, Shape shape, DType dtype) {
  return graph_->add_placeholder(name, TensorType{dtype, std::move(shape)});
}

Node* GraphBuilder::int_constant(const std::string& name, Shape shape,
                                 const std::vector<int64_t>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(int64_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  graph_->constants().set(name, ConstantTensor::owned(DType::kInt64, shape, std::move(bytes)));
  Node* n = graph_->add_get_attr(name, name);
  n->meta().set_type(TensorType{DType::kInt64, std::move(shape)});
  return n;
}

Node* GraphBuilder::constant(const std::string& name, Shape shape, uint64_t seed, float lo,
                             float hi) {
  eval::Tensor t = eval::Tensor::random(shape, seed, lo, hi);
  std::vector<float> values(t.f32(), t.f32() + t.numel());
  graph_->constants().set(name, ConstantTensor::from_floats(shape, values));
  Node* n = graph_->add_get_attr(name, name);
  n->meta().set_type(TensorType{DType::kFloat32, std::move(shape)});
  return n;
}

Node* GraphBuilder::call(const std::string& op, std::vector<Input> inputs,
                         const std::map<std::string, AttrValue>& attrs) {
  const OpSchema* schema = runtime_test_schema(op);
  REQUIRE(schema != nullptr);
  std::vector<AttrValue> values = Graph::default_attrs(*schema);
  for (const auto& [name, value] : attrs) {
    int index = schema->attr_index(name);
    INFO(op << " has no attribute " << name);
    REQUIRE(index >= 0);
    std::string error;
    auto coerced = coerce_attr(schema->attrs[static_cast<size_t>(index)], value, &error);
    INFO(op << "." << name << ": " << error);
    REQUIRE(coerced.has_value());
    values[static_cast<size_t>(index)] = *coerced;
  }
  while (inputs.size() < schema->operands.size() && !schema->has_variadic()) {
    inputs.push_back(Input::none());  // trailing optional operands
  }
  return graph_->add_call(*schema, std::move(inputs), std::move(values));
}

void GraphBuilder::output(const std::vector<Node*>& outputs) {
  std::vector<Input> inputs;
  for (Node* n : outputs) inputs.push_back(Input::of(n));
  graph_->set_output(std::move(inputs));
}

std::vector<eval::Tensor> random_inputs(const Graph& graph, uint64_t seed, float lo, float hi,
                                       int64_t int_bound) {
  std::vector<eval::Tensor> inputs;
  for (Node* p : graph.placeholders()) {
    const TensorType& t = *p->type();
    inputs.push_back(t.dtype == DType::kFloat32
                         ? eval::Tensor::random(t.shape, seed++, lo, hi)
                         : eval::Tensor::random_of(t.dtype, t.shape, seed++, int_bound));
  }
  return inputs;
}

std::string check_against_reference(const Graph& graph, const std::vector<eval::Tensor>& inputs,
                                    const runtime::CompileOptions& options, double rtol,
                                    double atol, std::unique_ptr<runtime::Executable>* exe_out) {
  DiagnosticEngine diags;
  std::unique_ptr<runtime::Executable> exe = runtime::compile(graph, options, diags);
  if (!exe) return "compile failed:\n" + diags.render();
  auto got = exe->run(inputs, diags);
  if (!got) return "run failed:\n" + diags.render();
  auto want = eval::run_reference(graph, inputs, diags);
  if (!want) return "reference failed:\n" + diags.render();
  std::string report;
  for (size_t i = 0; i < want->size(); ++i) {
    if (!eval::allclose((*got)[i], (*want)[i], rtol, atol)) {
      report += "output " + std::to_string(i) + ": got " + eval::tensor_summary((*got)[i]) +
                "\n  want " + eval::tensor_summary((*want)[i]) + "\n  max |diff| " +
                std::to_string(eval::max_abs_diff((*got)[i], (*want)[i])) + "\n";
    }
  }
  if (!report.empty()) report += exe->dump();
  if (exe_out) *exe_out = std::move(exe);
  return report;
}

std::string check_all_modes(const Graph& graph, const std::vector<eval::Tensor>& inputs,
                            double rtol, double atol) {
  // "plain" also runs ops on constants through their kernels, which "blocked" folds at compile
  // time.
  struct Mode {
    const char* name;
    bool blocked, in_place, reuse, fold;
  };
  for (Mode m : {Mode{"blocked", true, true, true, true}, Mode{"plain", false, true, true, false},
                 Mode{"no reuse", true, false, false, true}}) {
    runtime::CompileOptions options;
    options.blocked_layouts = m.blocked;
    options.in_place = m.in_place;
    options.reuse_memory = m.reuse;
    options.fold_constants = m.fold;
    std::string r = check_against_reference(graph, inputs, options, rtol, atol);
    if (!r.empty()) return std::string(m.name) + ": " + r;
  }
  return "";
}

}  // namespace graft::testing
