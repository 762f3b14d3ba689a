// Building test graphs from the checked AST. Sema has bound every call to its schema, resolved
// every name to its declaration and shape-checked the graph, so this is a translation: one
// GraphBuilder walks a block's statements in order and adds a node per op, evaluating call
// arguments in the order they are written (as Python would), so node order follows the text.
#include "dsl/test_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "dsl/literal.h"
#include "dsl/sema_internal.h"
#include "engine/ir/half.h"
#include "engine/ops/shape_infer.h"

namespace graft::dsl {
namespace {

// ** values **

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t fnv1a(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

/// Writes `value` as one element of `dtype` at `out`.
void store(DType dtype, double value, std::byte* out) {
  auto put = [out](auto v) { std::memcpy(out, &v, sizeof v); };
  switch (dtype) {
    case DType::kFloat32:
      return put(static_cast<float>(value));
    case DType::kFloat64:
      return put(value);
    case DType::kFloat16:
      return put(float_to_half(static_cast<float>(value)));
    case DType::kBFloat16:
      return put(float_to_bfloat16(static_cast<float>(value)));
    case DType::kInt64:
      return put(static_cast<int64_t>(value));
    case DType::kInt32:
      return put(static_cast<int32_t>(value));
    case DType::kInt16:
      return put(static_cast<int16_t>(value));
    case DType::kInt8:
      return put(static_cast<int8_t>(value));
    case DType::kUInt8:
      return put(static_cast<uint8_t>(value));
    case DType::kBool:
      return put(static_cast<uint8_t>(value != 0));
  }
}

/// Whether `value` can be stored in `dtype` without changing it (beyond float rounding).
bool fits(DType dtype, double value) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kBFloat16:
      return true;
    case DType::kBool:
      return value == 0 || value == 1;
    case DType::kInt64:
      return value == std::floor(value) && std::fabs(value) < 9.2e18;
    case DType::kInt32:
      return value == std::floor(value) && value >= -2147483648.0 && value <= 2147483647.0;
    case DType::kInt16:
      return value == std::floor(value) && value >= -32768 && value <= 32767;
    case DType::kInt8:
      return value == std::floor(value) && value >= -128 && value <= 127;
    case DType::kUInt8:
      return value == std::floor(value) && value >= 0 && value <= 255;
  }
  return false;
}

/// A random element: floats uniform in [-1, 1) ([0.5, 1.5) when positive); integers in
/// [-8, 8) (u8 in [0, 8); [1, 8] when positive); bools either.
double random_value(DType dtype, bool positive, uint64_t& state) {
  double u = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
  if (is_floating(dtype)) return positive ? 0.5 + u : 2 * u - 1;
  if (dtype == DType::kBool) return u < 0.5 ? 0 : 1;
  if (positive) return 1 + std::floor(u * 8);
  return dtype == DType::kUInt8 ? std::floor(u * 8) : std::floor(u * 16) - 8;
}

std::optional<TensorType> type_of(const ast::TypeSpec& spec) {
  std::optional<DType> dtype = parse_dtype(spec.dtype->text);
  if (!dtype) return std::nullopt;
  TensorType type{*dtype, {}};
  for (const ast::Expr* d : spec.dims) {
    const auto* n = ast::dyn_cast<ast::NumberExpr>(d);
    if (n == nullptr || !n->is_int || n->int_value < 0) return std::nullopt;
    type.shape.push_back(n->int_value);
  }
  return type;
}

// ** the builder **

class GraphBuilder {
 public:
  GraphBuilder(uint64_t seed, DiagnosticEngine& diags) : seed_(seed), diags_(diags) {
    out_.graph = std::make_unique<Graph>();
  }

  bool add_inputs(const ast::GraphBlock& block) {
    for (const ast::Param* p : block.inputs) {
      std::optional<TensorType> type = p->type ? type_of(*p->type) : std::nullopt;
      if (!type)
        return fail(p->range,
                    "the input '" + std::string(p->name->text) + "' has no concrete type");
      values_[p] = Input::of(out_.graph->add_placeholder(p->name->text, *type));
    }
    return true;
  }

  bool add_body(const ast::Block& body) {
    for (const ast::Stmt* s : body.stmts) {
      if (const auto* def = ast::dyn_cast<ast::ParamDefStmt>(s)) {
        if (!add_param(*def)) return false;
        continue;
      }
      const auto* assign = ast::dyn_cast<ast::AssignStmt>(s);
      if (assign == nullptr) return fail(s->range, "unexpected statement in a test graph");
      std::optional<Input> v = value(assign->value, assign->target->text);
      if (!v) return false;
      values_[assign] = *v;
    }
    std::vector<Input> results;
    for (const ast::Expr* e : body.ret->values) {
      std::optional<Input> v = value(e, {});
      if (!v) return false;
      if (!v->is_node()) return fail(e->range, "a test graph must return tensors");
      results.push_back(*v);
    }
    out_.graph->set_output(std::move(results));
    return true;
  }

  TestGraph finish() { return std::move(out_); }

 private:
  bool fail(SourceRange range, std::string message) {
    diags_.error(DiagLocation::at(range), std::move(message));
    return false;
  }

  bool add_param(const ast::ParamDefStmt& def) {
    std::string name(def.target->text);
    std::optional<TensorType> type = type_of(*def.type);
    std::optional<int64_t> count = type ? element_count(type->shape) : std::nullopt;
    if (!count) return fail(def.type->range, "the param '" + name + "' has no concrete type");
    size_t esize = dtype_size(type->dtype);
    std::vector<std::byte> bytes(static_cast<size_t>(*count) * esize);
    if (def.init == nullptr) {
      uint64_t state = seed_ ^ fnv1a(name);
      for (int64_t i = 0; i < *count; ++i)
        store(type->dtype, random_value(type->dtype, def.positive, state), &bytes[i * esize]);
      out_.random_constants.insert(name);
    } else {
      std::vector<const ast::NumberExpr*> items;
      if (const auto* n = ast::dyn_cast<ast::NumberExpr>(def.init)) {
        items.assign(static_cast<size_t>(*count), n);
      } else if (const auto* list = ast::dyn_cast<ast::ListExpr>(def.init)) {
        for (const ast::Expr* item : list->items)
          items.push_back(ast::dyn_cast<ast::NumberExpr>(item));
      }
      if (items.size() != static_cast<size_t>(*count))
        return fail(def.init->range, "the values of '" + name + "' do not fit its shape");
      for (size_t i = 0; i < items.size(); ++i) {
        if (items[i] == nullptr || !fits(type->dtype, items[i]->float_value)) {
          return fail(
              items[i] ? items[i]->range : def.init->range,
              "the value does not fit the param's dtype " + std::string(dtype_name(type->dtype)));
        }
        store(type->dtype, items[i]->float_value, &bytes[i * esize]);
      }
    }
    ConstantTensor tensor = ConstantTensor::owned(type->dtype, type->shape, std::move(bytes));
    tensor.buffer = def.buffer;
    out_.graph->constants().set(name, std::move(tensor));
    values_[&def] = Input::of(out_.graph->add_get_attr(name, name));
    return true;
  }

  /// The value of `e`: a node (ops are added), a scalar literal or None.
  std::optional<Input> value(const ast::Expr* e, std::string_view name) {
    switch (e->kind) {
      case ast::NodeKind::kName: {
        const auto* n = static_cast<const ast::NameExpr*>(e);
        auto it = values_.find(n->decl);
        if (it == values_.end()) break;
        return it->second;
      }
      case ast::NodeKind::kNumber: {
        const auto* n = static_cast<const ast::NumberExpr*>(e);
        return Input::of(Scalar{n->float_value, n->is_int});
      }
      case ast::NodeKind::kNone:
        return Input::none();
      case ast::NodeKind::kCall:
        return call(*static_cast<const ast::CallExpr*>(e), name);
      case ast::NodeKind::kBinary: {
        const auto* b = static_cast<const ast::BinaryExpr*>(e);
        if (b->schema == nullptr) break;
        std::optional<Input> lhs = value(b->lhs, {});
        std::optional<Input> rhs = lhs ? value(b->rhs, {}) : std::nullopt;
        if (!rhs) return std::nullopt;
        return add_op(*b->schema, {*lhs, *rhs}, Graph::default_attrs(*b->schema), name, e->range);
      }
      case ast::NodeKind::kUnary: {
        const auto* u = static_cast<const ast::UnaryExpr*>(e);
        if (u->schema == nullptr) break;
        std::optional<Input> operand = value(u->operand, {});
        if (!operand) return std::nullopt;
        std::vector<Input> inputs{*operand};
        inputs.resize(u->schema->operands.size());
        return add_op(*u->schema, inputs, Graph::default_attrs(*u->schema), name, e->range);
      }
      default:
        break;
    }
    fail(e->range, "this expression cannot be part of a test graph");
    return std::nullopt;
  }

  std::optional<Input> call(const ast::CallExpr& c, std::string_view name) {
    if (c.bound.size() != 1) {
      fail(c.callee_range, "a test graph calls exactly one op");
      return std::nullopt;
    }
    const ast::BoundCall& bound = c.bound[0];
    const OpSchema& schema = *bound.schema;
    // Operands in written order, so nested ops appear in the graph as they appear in the text.
    std::map<const ast::Arg*, std::vector<Input>> given;
    for (const ast::Arg* a : c.args) {
      if (std::find(bound.operands.begin(), bound.operands.end(), a) == bound.operands.end())
        continue;
      std::vector<Input>& items = given[a];
      if (const auto* list = ast::dyn_cast<ast::ListExpr>(a->value)) {
        for (const ast::Expr* item : list->items) {
          std::optional<Input> v = value(item, {});
          if (!v) return std::nullopt;
          items.push_back(*v);
        }
      } else {
        std::optional<Input> v = value(a->value, {});
        if (!v) return std::nullopt;
        items.push_back(*v);
      }
    }
    std::vector<Input> inputs;
    for (size_t i = 0; i < schema.operands.size(); ++i) {
      const ast::Arg* a = i < bound.operands.size() ? bound.operands[i] : nullptr;
      if (a == nullptr) {
        if (!schema.operands[i].variadic) inputs.push_back(Input::none());
        continue;
      }
      const std::vector<Input>& items = given.at(a);
      inputs.insert(inputs.end(), items.begin(), items.end());
    }
    std::vector<AttrValue> attrs = Graph::default_attrs(schema);
    for (size_t i = 0; i < schema.attrs.size(); ++i) {
      const ast::Arg* a = i < bound.attrs.size() ? bound.attrs[i] : nullptr;
      if (a == nullptr) continue;
      std::optional<AttrValue> literal = literal_value(a->value);
      std::string err;
      std::optional<AttrValue> v =
          literal ? coerce_attr(schema.attrs[i], *literal, &err) : std::nullopt;
      if (!v) {
        fail(a->value->range, "bad value for '" + schema.attrs[i].name + "' of '" + schema.name +
                                  "'" + (err.empty() ? "" : ": " + err));
        return std::nullopt;
      }
      attrs[i] = std::move(*v);
    }
    return add_op(schema, std::move(inputs), std::move(attrs), name, c.range);
  }

  std::optional<Input> add_op(const OpSchema& schema, std::vector<Input> inputs,
                              std::vector<AttrValue> attrs, std::string_view name,
                              SourceRange range) {
    Node* node = out_.graph->add_call(schema, std::move(inputs), std::move(attrs), name);
    std::string err;
    std::optional<TensorType> type = infer_node_type(*node, &err);
    if (!type) {
      fail(range, "'" + schema.name + "' rejects its inputs: " + err);
      return std::nullopt;
    }
    node->meta().set_type(*type);
    return Input::of(node);
  }

  uint64_t seed_;
  DiagnosticEngine& diags_;
  TestGraph out_;
  std::map<const ast::Node*, Input> values_;  // Param, AssignStmt or ParamDefStmt -> its value
};

}  // namespace

uint64_t rule_test_seed(std::string_view name, uint64_t base) {
  uint64_t state = fnv1a(name) ^ (base * 0x9e3779b97f4a7c15ULL);
  return splitmix64(state);
}

std::optional<TestGraph> build_test_graph(const ast::TestDecl& test, uint64_t seed,
                                          DiagnosticEngine& diags) {
  GraphBuilder builder(seed, diags);
  if (!builder.add_inputs(*test.graph) || !builder.add_body(*test.graph->body)) return std::nullopt;
  return builder.finish();
}

std::optional<TestGraph> build_expected_graph(const ast::TestDecl& test,
                                              const ast::GraphBlock& expected, uint64_t seed,
                                              DiagnosticEngine& diags) {
  GraphBuilder builder(seed, diags);
  if (!builder.add_inputs(*test.graph) || !builder.add_body(*expected.body)) return std::nullopt;
  return builder.finish();
}

}  // namespace graft::dsl
