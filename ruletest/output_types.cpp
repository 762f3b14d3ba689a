// See output_types.h.
#include "ruletest/output_types.h"

#include <fmt/format.h>

namespace graft::ruletest {

std::optional<std::string> changed_output_type(const Graph& before, const Graph& after) {
  const Node* out_before = before.output();
  const Node* out_after = after.output();
  if (out_before == nullptr || out_after == nullptr) return std::nullopt;
  if (out_before->inputs().size() != out_after->inputs().size()) {
    return fmt::format("{} outputs before, {} after", out_before->inputs().size(),
                       out_after->inputs().size());
  }
  auto type_of = [](const Input& in) -> std::string {
    if (!in.is_node()) return "a literal";
    const TensorType* t = in.node->type();
    return t != nullptr ? type_to_string(*t) : "of unknown type";
  };
  for (size_t i = 0; i < out_before->inputs().size(); ++i) {
    std::string was = type_of(out_before->input(i));
    std::string is = type_of(out_after->input(i));
    if (was != is) return fmt::format("output {} was {}, is {}", i, was, is);
  }
  return std::nullopt;
}

}  // namespace graft::ruletest
