// Builds the replacement ops of one match into the graph: resolves operands and attributes
// from the match, places each op after the values it reads, infers its type, and folds ops
// whose operands are all constant into detached constants (materialised only where a graph op
// or a result reads them). What one match created is named once its roots are gone.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/match/matcher.h"
#include "engine/match/pattern.h"
#include "engine/rewrite/rewriter.h"
#include "engine/rewrite/shared_constants.h"
#include "engine/rewrite/type_memo.h"
#include "engine/support/diagnostics.h"

namespace graft {

class ReplacementBuilder {
 public:
  ReplacementBuilder(Graph& graph, const RuleSet& rules, const ConstantFolder& fold,
                     DiagnosticEngine& diags)
      : graph_(graph), rules_(rules), fold_(fold), diags_(diags) {}

  /// Starts a match: the previous match's folded values are no longer operands.
  void begin_match() { folded_count_ = 0; }

  /// Creates replacement op `op` of match `m`, or folds it into a constant when every operand
  /// is constant and folding is on. `final_name` is the name the op will have when it replaces
  /// a root ("" if it does not); `results` are the values of the ops before it. Appends the
  /// graph nodes it adds to `created`. nullopt after reporting an error at the op.
  std::optional<Input> build_op(const Match& m, const ReplOp& op, const std::string& final_name,
                                Node* first_root, const std::vector<Input>& results,
                                std::vector<Node*>* created);

  /// The value replacement value `v` stands for in `m`.
  static Input resolve(const Match& m, const ReplValue& v, const std::vector<Input>& results);

  /// `n`, or the get_attr of the folded value `n` stands for, added before `before` (named
  /// `name`) if no graph op reads it yet: a result that folded to a constant.
  Node* in_graph(Node* n, const std::string& name, Node* before, std::vector<Node*>* created);

  /// Names what the current match created unnamed, now that the nodes it replaced are gone.
  void name_unnamed();
  /// Forgets what the current match created unnamed (its nodes were erased).
  void forget_unnamed() {
    unnamed_calls_.clear();
    unnamed_constants_.clear();
  }

 private:
  /// A folded constant of the current match, not in the graph (yet); see fold().
  struct Folded {
    std::unique_ptr<Node> node;  // detached, typed
    ConstantTensor value;
    Node* materialized = nullptr;  // its get_attr once in the graph
  };

  /// What the builder remembers about one replacement op between matches: the last type it
  /// inferred for it, and the counter of its name hint.
  struct OpMemo {
    TypeMemo type{/*attrs_interned=*/true};  // its ops read graph-interned lists (attrs_of)
    Graph::FreshNameMemo name;
    // The op's attributes at the last match, as the graph's list, and the `$` variables' values
    // and matched op names they were made from (none for literal ones); see attrs_of. Unused
    // (null) for an op whose attributes read dims bound by `where`.
    const AttrList* attrs = nullptr;
    AttrList attrs_from;
    std::unique_ptr<PreparedFold> prepared;  // for the operands `type` remembers, or none
    uint64_t prepared_for = ~uint64_t{0};    // the generation of `type` it was prepared for
  };

  /// A root's replacement op, named once the root is gone (name_unnamed).
  struct UnnamedCall {
    Node* node;
    std::string_view hint;  // the op's name or its schema's, owned by the rules
    Graph::FreshNameMemo* name_memo;
  };

  /// A folded value's get_attr, with the constant name it was made for.
  struct UnnamedConstant {
    Node* node;
    std::string target;
    Folded* folded;
  };

  std::nullopt_t report(const Match& m, const ReplOp& op, const std::string& message);
  const AttrList* attrs_of(const Match& m, const ReplOp& op, OpMemo& memo);
  Node* place(const ReplOp& op, OpMemo& memo, const AttrList* attrs, const std::string& final_name,
              Node* first_root, std::vector<Node*>* created);
  std::optional<Input> fold(const Match& m, const ReplOp& op, OpMemo& memo, const AttrList& attrs);
  bool fold_value(const ReplOp& op, OpMemo& memo, const AttrList& attrs, const TensorType** type,
                  std::string* error);
  Node* materialize(Folded& f, std::string target, Node* before, std::vector<Node*>* created);
  Folded* folded_of(const Node* n);
  OpMemo& op_memo(uint32_t rule, const ReplOp& op);

  Graph& graph_;
  const RuleSet& rules_;
  const ConstantFolder& fold_;
  DiagnosticEngine& diags_;
  std::vector<std::vector<OpMemo>> op_memos_;  // by rule and replacement op, see op_memo
  std::deque<Folded> folded_;  // a deque: Folded* stay valid while it grows
  size_t folded_count_ = 0;    // the current match's entries; later ones are kept for reuse
  std::vector<const Node*> folded_nodes_;  // folded_[i].node, scanned by folded_of
  // Scratch kept across ops and matches: a fold copies the operands into its scratch node and
  // points it at the graph's copy of the attributes, so folding allocates no lists.
  std::vector<Input> op_inputs_;                      // build_op's operands
  AttrList op_attrs_;                                 // attrs_of's list
  DetachedCall fold_call_;                            // the detached op being folded
  std::vector<const ConstantTensor*> fold_operands_;  // its operands' values
  ConstantTensor fold_value_;  // the folded value, on its way to its Folded entry
  // What the current match created unnamed: root replacements with their op's name hint, and
  // get_attrs of folded values with the constant name each was made for.
  std::vector<UnnamedCall> unnamed_calls_;
  std::vector<UnnamedConstant> unnamed_constants_;
  SharedConstants shared_;  // the folded constants stored so far, by content
};

}  // namespace graft
