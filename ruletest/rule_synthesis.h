// Graphs synthesised from a rule's pattern, for `rewrite verify`: the pattern becomes the body of
// a test graph (docs/rules.md §10) whose parameters are graph inputs or, when the rule's `where`
// asks for const(...), random `param` constants; shapes, attribute values and scalar operands are
// chosen to fit the ops' schemas and the rule's conditions. This file's external interface is
// synthesize_graph; the verifier (rule_verifier.h) builds, rewrites and runs the result.
//
// The choices are heuristics, not a constraint solver: a graph that does not type-check or that
// the rule does not match is reported as such, and the verifier counts it as not instantiated.
#pragma once

#include <optional>
#include <string>

#include "dsl/rule_file_set.h"
#include "engine/ir/dtype.h"

namespace graft::ruletest {

struct SynthesizedGraph {
  /// `graph(x: f32[2, 4, 6, 6]) { w = param f32[…] … return y }`: the pattern as a test graph.
  std::string text;
  /// The name of the node of the pattern's first returned value (where the rule anchors).
  std::string anchor;
  /// The dtype of the graph's inputs (and float constants): a variant other than float32
  /// tries the rule on integer or half tensors, and one whose ops do not compute in that
  /// dtype is not an instance of the rule.
  DType dtype = DType::kFloat32;
};

/// The dims a graph's shapes are made of: the variant's own, or (for a counterexample, once a
/// variant failed) the smallest ones, from dims of 1 to 2 channels of 3 × 3 (what a 3 × 3
/// convolution without padding needs).
enum class ShapeSize { kVariant, kOnes, kTwos, kSmallSpatial };

/// The smaller sizes in the order a counterexample tries them, smallest first.
inline constexpr ShapeSize kSmallShapeSizes[] = {ShapeSize::kOnes, ShapeSize::kTwos,
                                                 ShapeSize::kSmallSpatial};

/// The `variant`-th graph of `rule`'s pattern: variant 0 takes the first choice everywhere
/// (first alternative, optional operands present, the first candidate shape and attribute
/// values); later variants take other alternatives, leave optional operands out, and change
/// shapes, strides, paddings, groups and eps. `size` other than kVariant keeps every choice
/// of the variant (extra batch dim and dtype included) but its shapes. Returns nullopt
/// and sets `why` when the pattern has a form the synthesiser cannot instantiate (or a chosen
/// shape fails an op's shape function).
std::optional<SynthesizedGraph> synthesize_graph(const dsl::CheckedRule& rule, int variant,
                                                 std::string* why,
                                                 ShapeSize size = ShapeSize::kVariant);

/// How many graphs are worth trying for `rule`: at least `base`, and enough to see every
/// alternative of its largest `(a | b)` or op class once (at most 32).
int variants_worth_trying(const dsl::CheckedRule& rule, int base);

}  // namespace graft::ruletest
