// TypeMemo: the last type inferred for one replacement op, and what it was inferred from.
//
// A rule applied all over a model builds the same ops from operands of the same few types:
// the conv-bn fold infers the types of ten ops (nine folded, one conv) at every block, and a
// block almost always has the previous block's shapes. Shape functions are pure in the
// operands' types, their scalar literals and the attributes (engine/ops/op_schema.h: InferFn), so
// when all of those equal the last inference's, so does the result, and the driver takes it
// instead of inferring again (which allocates the shape vectors of every intermediate step).
// Types are uniqued (unique_type), so the operand types are compared by address.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/graph.h"

namespace graft {

class TypeMemo {
 public:
  TypeMemo() = default;
  /// `attrs_interned`: every attribute list the memo is given is one graph's interned list
  /// (Graph::intern_attrs), which stays alive and unchanged while the memo is used; as
  /// identical lists are then one list, they are compared by address (the rewrite driver).
  explicit TypeMemo(bool attrs_interned) : attrs_interned_(attrs_interned) {}

  /// Sets `*type` to the type of call node `node` (unique_type()'s copy) and returns true;
  /// returns false with `*error` set when shape inference rejects the node. A successful
  /// inference is remembered for the next call.
  bool infer(const Node& node, const TensorType** type, std::string* error);
  /// How many calls the memo answered without inferring.
  size_t hits() const { return hits_; }
  /// True if a call of `schema` on `inputs` with `attrs` is what the last inference was for;
  /// its type is then result().
  bool same_as_last(const OpSchema& schema, std::span<const Input> inputs,
                    const std::vector<AttrValue>& attrs) const;
  const TensorType* result() const { return result_; }
  /// Changes whenever the memo remembers another inference (or forgets one): what a caller
  /// derived from the last one (a prepared fold) is stale once this differs.
  uint64_t generation() const { return generation_; }

 private:
  struct Operand {
    Input::Kind kind = Input::Kind::kNone;
    const TensorType* type = nullptr;  // a node operand's type
    Scalar scalar;                   // a literal
  };
  bool same_as_last(const Node& node) const;
  void remember(const Node& node, const TensorType* result);

  bool valid_ = false;
  const OpSchema* schema_ = nullptr;
  std::vector<Operand> operands_;
  bool attrs_interned_ = false;
  const AttrList* interned_attrs_ = nullptr;  // the last list, when attrs_interned_
  std::vector<AttrValue> attrs_;              // a copy of it, otherwise
  const TensorType* result_ = nullptr;
  size_t hits_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace graft
