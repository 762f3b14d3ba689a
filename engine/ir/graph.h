// The IR: a torch.fx-style Graph of Nodes in topological order.
//
// Node kinds are fx's: placeholder (a graph input), get_attr (a constant tensor), call_function
// (an op of the registry) and output (the one last node). Unlike fx, a call_function node
// stores its arguments *bound to the op schema*: `inputs()` are the tensor operands (a node, a
// scalar literal, or none), flattened, with a variadic operand last; `attrs()` has one value
// per schema attribute, defaults filled in. Binding happens once, in the loader, so the
// matcher and the runtime never re-parse Python call conventions (docs/decisions/ explains).
//
// The graph keeps every node's user list consistent through its mutation API; nodes are owned
// by the graph, their addresses are stable, and erased nodes are unlinked and marked dead until
// compact() drops them and renumbers ids.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "engine/ir/attr.h"
#include "engine/ir/attr_table.h"
#include "engine/ir/constants.h"
#include "engine/ir/shape.h"
#include "engine/ops/op_schema.h"
#include "engine/support/chunk_pool.h"
#include "engine/support/inline_vector.h"
#include "engine/support/name_index.h"
#include "engine/support/shared_string.h"
#include "engine/support/string_map.h"

namespace graft {

class Graph;
class Node;

using NodeId = uint32_t;

enum class NodeKind : uint8_t { kPlaceholder, kGetAttr, kCallFunction, kOutput };
const char* node_kind_name(NodeKind kind);  // "placeholder", "get_attr", …

/// One operand slot: a node, a scalar literal, or nothing (None for an optional operand).
struct Input {
  enum class Kind : uint8_t { kNone, kNode, kScalar };
  Node* node = nullptr;
  // `kind` sits in the scalar's tail padding: 24 bytes rather than 32 (a node keeps three
  // inline, and every pass over a big graph reads them).
  [[no_unique_address]] Scalar scalar;
  Kind kind = Kind::kNone;

  static Input none() { return {}; }
  static Input of(Node* n) { return {n, {}, Kind::kNode}; }
  static Input of(Scalar s) { return {nullptr, s, Kind::kScalar}; }
  bool is_node() const { return kind == Kind::kNode; }
  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_none() const { return kind == Kind::kNone; }
};
static_assert(sizeof(Input) == 3 * sizeof(void*), "Input's kind should fit the scalar's padding");

/// Per-node metadata (fx's node.meta): the inferred or declared type, and where a node came
/// from (the rule and source line that created it).
struct NodeMeta {
  const TensorType* type = nullptr;  // unique_type()'s copy; nullptr while unknown
  SharedString provenance;  // "fuse_conv_bn (std/fusion.rules:12)"; empty for original nodes

  void set_type(const TensorType& t) { type = unique_type(t); }
  void set_type(const std::optional<TensorType>& t) { type = t ? unique_type(*t) : nullptr; }
};

/// The names that get_attr nodes read, each held once by the graph: a model's get_attr nodes
/// often share a constant, and a node then holds one pointer rather than a string of its own.
/// Names stay until the graph goes (renaming constants is rare).
class TargetPool {
 public:
  const std::string* intern(std::string_view name);

 private:
  std::unordered_set<std::string, StringHash, std::equal_to<>> names_;
};

inline const std::string kNoTarget;  // a node without a target (while unnamed, say)

class Node {
 public:
  NodeId id() const { return id_; }
  NodeKind kind() const { return kind_; }
  bool is(NodeKind k) const { return kind_ == k; }
  const std::string& name() const { return name_; }
  /// placeholder: the input name; get_attr: the constant's name; call_function: the op name;
  /// output: "output".
  const std::string& target() const {
    const OpSchema* op = schema();
    if (op != nullptr) return op->name;
    return kind_ == NodeKind::kPlaceholder ? name_ : *target_;
  }
  /// The op schema; non-null exactly for call_function nodes.
  const OpSchema* schema() const {
    return kind_ == NodeKind::kCallFunction ? reads_.call.schema : nullptr;
  }
  bool is_op(std::string_view op_name) const;

  std::span<const Input> inputs() const { return inputs_.span(); }
  const Input& input(size_t i) const { return inputs_[i]; }
  /// The producer of input `i`, or nullptr when it is a scalar or None.
  Node* input_node(size_t i) const { return i < inputs_.size() ? inputs_[i].node : nullptr; }
  /// One value per schema attribute. Shared with the graph's other nodes that have identical
  /// attributes (AttrTable): `&a->attrs() == &b->attrs()` iff they are identical.
  const AttrList& attrs() const {
    return kind_ == NodeKind::kCallFunction ? *reads_.call.attrs : kNoAttrs;
  }
  /// The attribute named `name`; the name must be in the schema (a programmer error if not).
  const AttrValue& attr(std::string_view name) const;

  /// One entry per use: a user that reads this node twice appears twice.
  std::span<Node* const> users() const { return users_.span(); }
  /// Number of distinct user nodes (fx's len(node.users)).
  size_t num_distinct_users() const;

  NodeMeta& meta() { return meta_; }
  const NodeMeta& meta() const { return meta_; }
  /// The node's type (uniqued: equal types are the same object); nullptr while unknown.
  const TensorType* type() const { return meta_.type; }

  Node* next() const { return next_; }
  Node* prev() const { return prev_; }
  bool is_dead() const { return dead_; }
  /// Position in the graph's order; a < b iff a comes first. Stable between mutations only.
  uint64_t order() const { return order_; }

 private:
  friend class Graph;
  // What labelling, matching and the driver read for every node they visit comes first: on a
  // big graph each visit is a cache miss. Up to three operands are kept in the node itself
  // (conv2d(x, w, b)), so reading them is no second miss, and creating the node no malloc.
  NodeId id_ = 0;
  NodeKind kind_ = NodeKind::kCallFunction;
  bool dead_ = false;
  // What a call reads and what a get_attr reads never meet in one node: they share the bytes
  // (a million-node graph holds a million of them). Which one is set follows kind_.
  struct CallFacts {
    const OpSchema* schema;
    const AttrList* attrs;  // in the graph's AttrTable (or a DetachedCall's own)
  };
  union CallOrConstant {
    CallFacts call;        // call_function, and the kinds that read neither
    ConstantRef constant;  // get_attr: where its tensor was when the node was made or renamed
    CallOrConstant() : call{nullptr, &kNoAttrs} {}
  } reads_;
  uint64_t order_ = 0;
  PointerList<Node> users_;  // two inline: most values have one or two users
  InlineVector<Input, 3> inputs_;
  Node* prev_ = nullptr;
  Node* next_ = nullptr;
  std::string name_;
  // get_attr: the constant's name, in its graph's TargetPool; output: "output". A call's
  // target is its schema's name and a placeholder's its own name.
  const std::string* target_ = &kNoTarget;
  NodeMeta meta_;
};

/// A detached call_function node (Graph::make_detached_call) with the attribute list it reads:
/// a graph's nodes read theirs from the graph's AttrTable, a node outside every graph from here.
class DetachedCall {
 public:
  DetachedCall() = default;
  Node* get() const { return node_.get(); }
  Node& operator*() const { return *node_; }
  Node* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }

 private:
  friend class Graph;
  std::unique_ptr<Node> node_;
  std::unique_ptr<AttrList> attrs_;  // its own list, if it has one; on the heap, so a move keeps
                                     // the node's pointer to it valid
};

/// Iterates the live nodes of a graph in order.
class NodeRange {
 public:
  class iterator {
   public:
    explicit iterator(Node* n) : n_(n) {}
    Node* operator*() const { return n_; }
    iterator& operator++() {
      n_ = n_->next();
      return *this;
    }
    bool operator==(const iterator& o) const { return n_ == o.n_; }

   private:
    Node* n_;
  };
  NodeRange(Node* first) : first_(first) {}
  iterator begin() const { return iterator(first_); }
  iterator end() const { return iterator(nullptr); }

 private:
  Node* first_;
};

class Graph {
 public:
  Graph() = default;
  // Nodes point at each other; a copy would have to remap every pointer. Use clone().
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;

  /// A deep copy sharing constant tensor bytes. `mapping`, if given, receives old id -> new node.
  std::unique_ptr<Graph> clone(std::vector<Node*>* mapping = nullptr) const;

  // ** construction ** New nodes go at the insertion point: before `insert_before_` when set,
  // otherwise before the output node (or at the end when there is none).
  Node* add_placeholder(std::string_view name, std::optional<TensorType> type);
  /// A get_attr node reading constant `target`, typed as the constant (untyped while the store
  /// has none by that name).
  Node* add_get_attr(std::string_view name, std::string_view target);
  /// Adds a call_function node. `inputs` and `attrs` must already be bound to the schema
  /// (engine/io/model_load_call.cpp binds Python-convention calls for the loader). `name_hint` is
  /// made unique ("conv2d" -> "conv2d_3").
  Node* add_call(const OpSchema& schema, const std::vector<Input>& inputs,
                 std::vector<AttrValue> attrs, std::string_view name_hint = {});
  /// As add_call and add_get_attr, but the node has no name (find() does not see it) until
  /// rename() gives it one, and the get_attr reads no constant until set_constant(). The
  /// rewrite driver names what a rewrite creates once the nodes it replaces are gone, so that
  /// a replacement takes the replaced node's name, and a folded weight its constant's, at once
  /// rather than after a temporary one: on a large graph each name is a few cache misses.
  /// `attrs` is copied only when the graph has no identical list yet (AttrTable).
  Node* add_unnamed_call(const OpSchema& schema, const std::vector<Input>& inputs,
                         const AttrList& attrs);
  Node* add_unnamed_get_attr(const TensorType* type);
  /// Creates or replaces the output node, always last.
  Node* set_output(const std::vector<Input>& outputs);
  /// The graph's copy of `attrs` (AttrTable::intern), for add_interned_call: a caller that
  /// creates many nodes with the same attributes interns them once.
  const AttrList* intern_attrs(const AttrList& attrs) { return attr_lists_.intern(attrs); }
  /// As add_unnamed_call, with attributes from intern_attrs() of this graph.
  Node* add_interned_call(const OpSchema& schema, const std::vector<Input>& inputs,
                          const AttrList* attrs);
  /// Attributes for `schema` with every default filled in (a starting point for add_call).
  static std::vector<AttrValue> default_attrs(const OpSchema& schema);

  /// A call_function node outside every graph: no name, not in any order, and not registered
  /// as a user of its inputs (graph nodes or other detached nodes). Scratch for evaluating
  /// constant expressions without touching a graph (the rewrite driver's folding).
  static DetachedCall make_detached_call(const OpSchema& schema, const std::vector<Input>& inputs,
                                         AttrList attrs);
  /// A detached get_attr node of type `type` (unique_type()'s) standing for a constant not
  /// (yet) in a graph.
  static std::unique_ptr<Node> make_detached_constant(const TensorType* type);
  /// Turn a detached call or constant (from the two above, or an empty DetachedCall) into
  /// another one, reusing its storage: the rewrite driver folds a handful of ops per match,
  /// millions per run. `attrs` is swapped in: the caller gets back the call's own previous
  /// list (which it last read unless the overload below pointed it elsewhere since), to refill
  /// without allocating. A reset call keeps its previous type until the caller infers one.
  static void reset_detached_call(DetachedCall& call, const OpSchema& schema,
                                  const std::vector<Input>& inputs, AttrList& attrs);
  /// As above, but the node reads `*attrs` where it is (a list a graph interned, say), which
  /// must stay unchanged while the node is used.
  static void reset_detached_call(DetachedCall& call, const OpSchema& schema,
                                  const std::vector<Input>& inputs, const AttrList* attrs);
  static void reset_detached_constant(Node& node, const TensorType* type);

  void set_insert_point(Node* before) { insert_before_ = before; }
  Node* insert_point() const { return insert_before_; }

  // ** mutation ** All keep user lists consistent.
  void replace_input(Node* user, size_t index, Input value);
  void set_attr(Node* node, std::string_view name, AttrValue value);
  /// Points every use of `old_node` at `replacement`; returns the number of uses moved.
  size_t replace_all_uses_with(Node* old_node, Node* replacement);
  /// Unlinks `node`, which must have no users, and drops its uses of its inputs. The node's
  /// operand and user lists are released at once (its attribute list stays in the graph's table);
  /// its kind, name, target and meta stay readable until compact().
  void erase(Node* node);
  /// Erases every node without users that is not the output or a placeholder, transitively.
  size_t erase_dead_nodes();
  /// Moves `node` to just before `position`.
  void move_before(Node* node, Node* position);
  /// Renames `node` to `name` if no live node has it, else to its stem's next free suffix
  /// (`relu` -> `relu_1`, `conv_1` -> `conv_2`); returns the name given (the node's own,
  /// valid until it is renamed again or compact()).
  const std::string& rename(Node* node, std::string_view name);
  /// Points get_attr `node` at the store's constant `target`, which must exist; its type stays.
  void set_constant(Node* node, std::string_view target);
  /// The same with the store's current reference to `target` in hand (no lookup).
  void set_constant(Node* node, std::string_view target, const ConstantRef& ref);
  /// Renames get_attr `node`'s constant (and its entry in the store) to a unique name derived
  /// from `target`; returns the name given. For constants only this node reads.
  std::string rename_constant(Node* node, std::string_view target);
  /// Drops dead nodes from storage and renumbers ids densely in graph order.
  void compact();

  // ** queries **
  NodeRange nodes() const { return NodeRange(first_); }
  Node* first() const { return first_; }
  Node* last() const { return last_; }
  Node* output() const { return output_; }
  std::vector<Node*> placeholders() const;
  Node* find(std::string_view name) const;
  /// Starts fetching what find(name) reads first, for a caller that looks up many names and
  /// has work to do between knowing a name and looking it up.
  void prefetch_name(std::string_view name) const { by_name_.prefetch(name); }
  /// Node by id (including dead nodes until compact()); nullptr when out of range.
  Node* node(NodeId id) const { return id < storage_.size() ? storage_[id] : nullptr; }
  /// One past the largest id handed out: the size for NodeId-indexed side tables.
  size_t id_bound() const { return storage_.size(); }
  size_t size() const { return live_count_; }
  bool empty() const { return live_count_ == 0; }
  /// True if `a` comes before `b` in graph order (O(1)).
  static bool is_before(const Node* a, const Node* b) { return a->order_ < b->order_; }
  /// Sorts `nodes` (live nodes of one graph) into graph order. Reads each node's position once
  /// and sorts the positions: sorting with is_before reads two nodes per comparison, and on a
  /// million-node graph each read is a cache miss.
  static void sort_in_order(std::vector<Node*>& nodes);
  /// Names `node`, created unnamed, after `hint`: `hint` itself the first time its stem is
  /// seen (when free), else the stem with its next free suffix ("mul" -> "mul_7"). Unlike
  /// rename(), a name an erased node left free is not looked for again: fresh names are the
  /// rewrite driver's, one per created node, and cost one index probe each.
  void name_fresh(Node* node, std::string_view hint);
  /// What name_fresh learns about a hint for the next call with the same hint: the counter of
  /// its stem, once it has one. A caller naming many nodes after one hint (the rewrite driver:
  /// one per replacement op) keeps one memo per hint, and its later calls neither parse nor
  /// look up the stem. A memo belongs to one graph and stays valid while the graph lives.
  struct FreshNameMemo {
    std::string_view stem;  // the counter's key, owned by the graph
    uint32_t* counter = nullptr;
  };
  void name_fresh(Node* node, std::string_view hint, FreshNameMemo& memo);

  /// The tensor get_attr `node` reads; nullptr when the store has none by its target. Prefer
  /// this to constants().find(node.target()): the node remembers where its tensor is (and falls
  /// back to the lookup by name when that constant has been erased or stored again since).
  const ConstantTensor* constant(const Node& node) const {
    return constants_.find(*node.target_, node.reads_.constant);
  }

  ConstantStore& constants() { return constants_; }
  const ConstantStore& constants() const { return constants_; }

 private:
  Node* create(NodeKind kind, std::string_view name, const std::string* target);
  /// Names and indexes an unnamed node: `base` when free ("node" when empty), else its stem's
  /// next free suffix. `fresh` (name_fresh) skips trying `base` once its stem has a counter.
  void give_name(Node* node, std::string_view base, bool fresh);
  /// Room in the name index for one more name, dropping erased nodes' names when it is full.
  void make_name_room();
  /// Names and indexes `node` "stem_N" with the next N after `counter` that is free.
  void give_suffixed_name(Node* node, std::string_view stem, uint32_t& counter);
  Node* create_unnamed(NodeKind kind, const std::string* target);
  /// Makes get_attr `node` read constant `target` (by name, and by reference when the store
  /// has it), moving its count from the constant it read before.
  void point_at_constant(Node* node, std::string_view target);
  void point_at_constant(Node* node, std::string_view target, const ConstantRef& ref);
  void link_before(Node* node, Node* position);  // position nullptr = append
  void unlink(Node* node);
  void assign_order(Node* node);
  void renumber();
  void add_use(Node* producer, Node* user);
  void remove_use(Node* producer, Node* user);

  ChunkPool<Node> pool_;        // owns the nodes, live and dead
  std::vector<Node*> storage_;  // by id
  NameIndex<Node>
      by_name_;  // dead nodes stay until their name is reused, make_name_room() or compact()
  StringMap<uint32_t> name_counters_;  // the last suffix given per name stem (give_name)
  Node* first_ = nullptr;
  Node* last_ = nullptr;
  Node* output_ = nullptr;
  Node* insert_before_ = nullptr;
  size_t live_count_ = 0;
  ConstantStore constants_;
  AttrTable attr_lists_;  // what the nodes' attrs_ point at
  TargetPool targets_;    // what get_attr nodes' target_ point at
};

}  // namespace graft
