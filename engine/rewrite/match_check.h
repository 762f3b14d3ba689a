// Whether the driver may apply a match the matcher found: no interior value of the pattern is
// used outside the match, and no value the replacement reads is computed from a value it
// replaces (rewriting would create a cycle). It only reads the graph, so `--explain` asks the
// same question of a const graph.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/match/matcher.h"
#include "engine/match/pattern.h"

namespace graft {

/// The few nodes of one match: a linear scan beats a tree or hash set at this size.
class NodeSet {
 public:
  explicit NodeSet(const std::vector<Node*>& nodes) : nodes_(nodes) {}
  bool contains(const Node* n) const {
    return std::find(nodes_.begin(), nodes_.end(), n) != nodes_.end();
  }

 private:
  const std::vector<Node*>& nodes_;
};

/// Empty when match `m` of `rule` may be applied to the graph as it is now; otherwise why not
/// ("interior value 'a' is also used by 'b', outside the match (…)").
std::string why_declined(const Rule& rule, const Match& m);

}  // namespace graft
