// Test helper: calling shape functions from text (see infer_testing.h).
#include "tests/engine/ops/infer_testing.h"

#include <cctype>

#include <catch2/catch.hpp>

#include "engine/ir/graph.h"
#include "engine/ops/op_registry.h"

namespace graft::testing {

TensorType parse_type(const std::string& text) {
  size_t open = text.find('[');
  INFO("type text: " << text);
  REQUIRE((open != std::string::npos && text.back() == ']'));
  std::optional<DType> dtype = parse_dtype(text.substr(0, open));
  REQUIRE(dtype.has_value());
  TensorType type{*dtype, {}};
  std::string body = text.substr(open + 1, text.size() - open - 2);
  size_t pos = 0;
  while (pos < body.size()) {
    size_t comma = body.find(',', pos);
    if (comma == std::string::npos) comma = body.size();
    std::string item = body.substr(pos, comma - pos);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    REQUIRE(!item.empty());
    if (item == "?") {
      type.shape.push_back(unknown_dim());
    } else if (std::isdigit(static_cast<unsigned char>(item[0]))) {
      type.shape.push_back(std::stoll(item));
    } else {
      type.shape.push_back(dim_symbol(item));
    }
    pos = comma + 1;
  }
  return type;
}

Arg::Arg(const char* type_text) : type(parse_type(type_text)) {}

std::string InferResult::str() const {
  return type ? type_to_string(*type) : "error: " + error;
}

InferResult infer(const std::string& op, const std::vector<Arg>& args,
                  const std::vector<std::pair<std::string, AttrValue>>& attrs) {
  const OpSchema* schema = OpRegistry::get().find(op);
  INFO("op " << op);
  REQUIRE(schema != nullptr);
  InferInputs in;
  in.schema = schema;
  std::vector<AttrValue> attr_values = Graph::default_attrs(*schema);
  for (const auto& [name, value] : attrs) {
    int index = schema->attr_index(name);
    INFO("attribute " << name);
    REQUIRE(index >= 0);
    std::string error;
    std::optional<AttrValue> coerced =
        coerce_attr(schema->attrs[static_cast<size_t>(index)], value, &error);
    INFO(error);
    REQUIRE(coerced.has_value());
    attr_values[static_cast<size_t>(index)] = *coerced;
  }
  in.attrs = attr_values;
  in.variadic_begin = schema->has_variadic() ? schema->operands.size() - 1 : args.size();
  for (const Arg& arg : args) {
    in.operand_types.push_back(arg.type ? &*arg.type : nullptr);
    in.scalars.push_back(arg.scalar);
  }
  // Absent trailing optional operands are None, as the binder leaves them.
  while (!schema->has_variadic() && in.operand_types.size() < schema->operands.size()) {
    in.operand_types.push_back(nullptr);
    in.scalars.emplace_back();
  }
  InferResult result;
  result.type = schema->infer(in, &result.error);
  // As infer_node_type does: a result no machine could hold is an error.
  if (result.type && !within_size_limit(*result.type)) {
    result.error = "the result " + size_limit_message(*result.type);
    result.type.reset();
  }
  return result;
}

}  // namespace graft::testing
