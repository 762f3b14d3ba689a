// The constants a rewrite has folded, indexed by content, so that a fold whose value equals an
// earlier one reads that constant instead of storing a copy (constant sharing, as ONNX
// Runtime's ConstantSharing and onnx-simplifier do): blocks that repeat one set of parameters
// fold to identical weights, and a million-node model would otherwise hold (and save) each.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "engine/ir/constants.h"
#include "engine/ir/graph.h"

namespace graft {

class SharedConstants {
 public:
  /// A stored constant with the same type, bytes and kind (buffer or not) as `value`, or nullptr.
  /// Its name and reference are current in `store` (a constant erased or replaced since is not
  /// offered).
  struct Stored {
    std::string name;       // the constant's name in the store
    ConstantRef ref;        // as stored
    std::string node_name;  // the first get_attr node's name, the stem of the others'
    Graph::FreshNameMemo node_names;
  };
  Stored* find(const ConstantStore& store, const ConstantTensor& value);
  /// Records that `value` was stored as `name` (`ref`) and read by the node `node_name`.
  void add(const ConstantTensor& value, std::string name, const ConstantRef& ref,
           std::string node_name);

 private:
  static uint64_t key_of(const ConstantTensor& value);
  std::unordered_multimap<uint64_t, Stored> by_content_;
};

}  // namespace graft
