// Graph mutation with consistent user lists and O(1) order comparison.
//
// Order keys: every node carries a 64-bit `order_`; nodes appended get gaps of kOrderGap so that
// an insertion between two nodes usually takes the midpoint. When no gap is left the whole
// list is renumbered (LLVM's instruction ordering does the same); that is O(n) but rare.
#include "engine/ir/graph.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <functional>

#include "engine/support/check.h"

namespace graft {
namespace {

/// `name` without a numeric suffix, so that "conv_1" grows to "conv_2", not "conv_1_1" (fx does
/// the same).
std::string_view name_stem(std::string_view name) {
  size_t underscore = name.rfind('_');
  if (underscore != std::string_view::npos && underscore + 1 < name.size() &&
      name.find_first_not_of("0123456789", underscore + 1) == std::string_view::npos) {
    return name.substr(0, underscore);
  }
  return name;
}

/// Sets `out` to "stem_n", in place (no temporary strings: one per node a rewrite creates),
/// and with one copy into `out` where a short stem fits the stack buffer.
void set_suffixed(std::string& out, std::string_view stem, uint32_t n) {
  char buffer[64];
  constexpr size_t kDigits = 11;  // '_' and a uint32's 10 digits
  if (stem.size() > sizeof buffer - kDigits) {
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    out.assign(stem);
    out.push_back('_');
    out.append(digits, end);
    return;
  }
  std::memcpy(buffer, stem.data(), stem.size());
  buffer[stem.size()] = '_';
  auto [end, ec] = std::to_chars(buffer + stem.size() + 1, buffer + sizeof buffer, n);
  out.assign(buffer, end);
}

constexpr uint64_t kOrderGap = uint64_t{1} << 20;

}  // namespace

const char* node_kind_name(NodeKind kind) {
  switch (kind) {
    case NodeKind::kPlaceholder:
      return "placeholder";
    case NodeKind::kGetAttr:
      return "get_attr";
    case NodeKind::kCallFunction:
      return "call_function";
    case NodeKind::kOutput:
      return "output";
  }
  return "?";
}

bool Node::is_op(std::string_view op_name) const {
  const OpSchema* op = schema();
  return op != nullptr && op->name == op_name;
}

const AttrValue& Node::attr(std::string_view name) const {
  const OpSchema* op = schema();
  GRAFT_CHECK(op != nullptr) << "attr() on non-call node " << name_;
  int index = op->attr_index(std::string(name));
  GRAFT_CHECK(index >= 0) << "op " << op->name << " has no attribute " << name;
  return (*reads_.call.attrs)[static_cast<size_t>(index)];
}

size_t Node::num_distinct_users() const {
  if (users_.size() <= 1) return users_.size();
  std::vector<Node*> distinct(users_.begin(), users_.end());
  std::sort(distinct.begin(), distinct.end());
  return static_cast<size_t>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
}

// ** construction **

const std::string* TargetPool::intern(std::string_view name) {
  auto it = names_.find(name);
  if (it == names_.end()) it = names_.emplace(name).first;
  return &*it;  // a node-based set: the element stays where it is
}

Node* Graph::create(NodeKind kind, std::string_view name, const std::string* target) {
  Node* node = create_unnamed(kind, target);
  give_name(node, name, false);
  return node;
}

Node* Graph::create_unnamed(NodeKind kind, const std::string* target) {
  Node* node = pool_.acquire();
  node->id_ = static_cast<NodeId>(storage_.size());
  node->kind_ = kind;
  node->target_ = target;
  if (kind == NodeKind::kGetAttr) node->reads_.constant = {};
  storage_.push_back(node);
  ++live_count_;
  return node;
}

Node* Graph::add_placeholder(std::string_view name, std::optional<TensorType> type) {
  Node* node = create(NodeKind::kPlaceholder, name, &kNoTarget);  // target(): its name
  node->meta_.set_type(type);
  link_before(node, insert_before_ ? insert_before_ : output_);
  return node;
}

Node* Graph::add_get_attr(std::string_view name, std::string_view target) {
  Node* node = create(NodeKind::kGetAttr, name, &kNoTarget);
  point_at_constant(node, target);
  if (const ConstantTensor* t = constant(*node)) node->meta_.type = &t->type();  // uniqued
  link_before(node, insert_before_ ? insert_before_ : output_);
  return node;
}

Node* Graph::add_unnamed_get_attr(const TensorType* type) {
  GRAFT_DCHECK(type == nullptr || is_unique_type(type)) << "a type not uniqued";
  Node* node = create_unnamed(NodeKind::kGetAttr, &kNoTarget);
  node->meta_.type = type;
  link_before(node, insert_before_ ? insert_before_ : output_);
  return node;
}

Node* Graph::add_call(const OpSchema& schema, const std::vector<Input>& inputs,
                      std::vector<AttrValue> attrs, std::string_view name_hint) {
  Node* node = add_interned_call(schema, inputs, attr_lists_.intern(std::move(attrs)));
  give_name(node, name_hint.empty() ? std::string_view(schema.name) : name_hint, false);
  return node;
}

Node* Graph::add_unnamed_call(const OpSchema& schema, const std::vector<Input>& inputs,
                              const AttrList& attrs) {
  return add_interned_call(schema, inputs, attr_lists_.intern(attrs));
}

Node* Graph::add_interned_call(const OpSchema& schema, const std::vector<Input>& inputs,
                               const AttrList* attrs) {
  GRAFT_CHECK(attrs->size() == schema.attrs.size())
      << schema.name << ": " << attrs->size() << " attrs given, schema has " << schema.attrs.size();
  Node* node =
      create_unnamed(NodeKind::kCallFunction, &kNoTarget);  // target(): the schema's name
  node->reads_.call = {&schema, attrs};
  node->inputs_.assign(inputs);
  for (const Input& in : node->inputs_) {
    if (in.is_node()) add_use(in.node, node);
  }
  link_before(node, insert_before_ ? insert_before_ : output_);
  return node;
}

Node* Graph::set_output(const std::vector<Input>& outputs) {
  if (output_ != nullptr) {
    for (const Input& in : output_->inputs_) {
      if (in.is_node()) remove_use(in.node, output_);
    }
    output_->inputs_.assign(outputs);
    for (const Input& in : output_->inputs_) {
      if (in.is_node()) add_use(in.node, output_);
    }
    return output_;
  }
  static const std::string kOutputTarget = "output";
  Node* node = create(NodeKind::kOutput, "output", &kOutputTarget);
  node->inputs_.assign(outputs);
  for (const Input& in : node->inputs_) {
    if (in.is_node()) add_use(in.node, node);
  }
  link_before(node, nullptr);
  output_ = node;
  return node;
}

std::vector<AttrValue> Graph::default_attrs(const OpSchema& schema) {
  std::vector<AttrValue> attrs;
  attrs.reserve(schema.attrs.size());
  for (const AttrSpec& spec : schema.attrs) attrs.push_back(spec.default_value);
  return attrs;
}

DetachedCall Graph::make_detached_call(const OpSchema& schema, const std::vector<Input>& inputs,
                                       AttrList attrs) {
  DetachedCall call;
  reset_detached_call(call, schema, inputs, attrs);
  return call;
}

void Graph::reset_detached_call(DetachedCall& call, const OpSchema& schema,
                                const std::vector<Input>& inputs, AttrList& attrs) {
  if (call.attrs_ == nullptr) call.attrs_ = std::make_unique<AttrList>();
  call.attrs_->swap(attrs);
  reset_detached_call(call, schema, inputs, call.attrs_.get());
}

void Graph::reset_detached_call(DetachedCall& call, const OpSchema& schema,
                                const std::vector<Input>& inputs, const AttrList* attrs) {
  GRAFT_CHECK(attrs->size() == schema.attrs.size()) << schema.name << ": attrs not bound";
  if (call.node_ == nullptr) call.node_ = std::make_unique<Node>();
  Node& node = *call.node_;
  GRAFT_CHECK(node.prev_ == nullptr && node.next_ == nullptr) << "reset of a graph node";
  node.kind_ = NodeKind::kCallFunction;
  node.reads_.call = {&schema, attrs};
  node.inputs_.assign(inputs);
}

std::unique_ptr<Node> Graph::make_detached_constant(const TensorType* type) {
  auto node = std::make_unique<Node>();
  reset_detached_constant(*node, type);
  return node;
}

void Graph::reset_detached_constant(Node& node, const TensorType* type) {
  GRAFT_DCHECK(type == nullptr || is_unique_type(type)) << "a type not uniqued";
  GRAFT_CHECK(node.prev_ == nullptr && node.next_ == nullptr) << "reset of a graph node";
  node.kind_ = NodeKind::kGetAttr;
  node.reads_.constant = {};
  node.inputs_.assign({});
  node.meta_.type = type;
}

// ** list maintenance **

void Graph::link_before(Node* node, Node* position) {
  if (position == nullptr) {
    node->prev_ = last_;
    node->next_ = nullptr;
    if (last_) last_->next_ = node;
    else first_ = node;
    last_ = node;
  } else {
    node->next_ = position;
    node->prev_ = position->prev_;
    if (position->prev_) position->prev_->next_ = node;
    else first_ = node;
    position->prev_ = node;
  }
  assign_order(node);
}

void Graph::unlink(Node* node) {
  if (node->prev_) node->prev_->next_ = node->next_;
  else first_ = node->next_;
  if (node->next_) node->next_->prev_ = node->prev_;
  else last_ = node->prev_;
  node->prev_ = node->next_ = nullptr;
}

void Graph::assign_order(Node* node) {
  uint64_t lo = node->prev_ ? node->prev_->order_ : 0;
  if (node->next_ == nullptr) {
    node->order_ = lo + kOrderGap;
    return;
  }
  uint64_t hi = node->next_->order_;
  if (hi - lo >= 2) {
    node->order_ = lo + (hi - lo) / 2;
  } else {
    renumber();
  }
}

void Graph::renumber() {
  uint64_t order = 0;
  for (Node* n = first_; n != nullptr; n = n->next_) n->order_ = (order += kOrderGap);
}

void Graph::add_use(Node* producer, Node* user) { producer->users_.push_back(user); }

void Graph::remove_use(Node* producer, Node* user) {
  PointerList<Node>& users = producer->users_;
  auto it = std::find(users.begin(), users.end(), user);
  GRAFT_CHECK(it != users.end()) << user->name_ << " is not a user of " << producer->name_;
  users.erase_at(static_cast<size_t>(it - users.begin()));
}

// ** mutation **

void Graph::replace_input(Node* user, size_t index, Input value) {
  GRAFT_CHECK(index < user->inputs_.size()) << "input " << index << " of " << user->name_;
  Input& slot = user->inputs_[index];
  if (slot.is_node()) remove_use(slot.node, user);
  slot = value;
  if (slot.is_node()) add_use(slot.node, user);
}

void Graph::set_attr(Node* node, std::string_view name, AttrValue value) {
  const OpSchema* op = node->schema();
  GRAFT_CHECK(op != nullptr) << "set_attr on " << node->name_;
  int index = op->attr_index(std::string(name));
  GRAFT_CHECK(index >= 0) << op->name << " has no attribute " << name;
  AttrList attrs = *node->reads_.call.attrs;
  attrs[static_cast<size_t>(index)] = std::move(value);
  node->reads_.call.attrs = attr_lists_.intern(std::move(attrs));
}

size_t Graph::replace_all_uses_with(Node* old_node, Node* replacement) {
  GRAFT_CHECK(old_node != replacement) << "replacing " << old_node->name_ << " with itself";
  PointerList<Node> users = std::move(old_node->users_);  // leaves old_node's list empty
  size_t moved = 0;
  for (Node* user : users) {
    // A user appears once per use; rewrite one matching slot per entry.
    for (Input& in : user->inputs_) {
      if (in.is_node() && in.node == old_node) {
        in.node = replacement;
        replacement->users_.push_back(user);
        ++moved;
        break;
      }
    }
  }
  return moved;
}

void Graph::erase(Node* node) {
  GRAFT_CHECK(!node->dead_) << "erasing dead node " << node->name_;
  GRAFT_CHECK(node->users_.empty()) << "erasing " << node->name_ << " which still has "
                                    << node->users_.size() << " users";
  for (const Input& in : node->inputs_) {
    if (in.is_node()) remove_use(in.node, node);
  }
  if (node->kind_ == NodeKind::kGetAttr) constants_.add_readers(node->reads_.constant, -1);
  // Release the lists now rather than at compact(): a rewrite erases several nodes and then
  // creates a few, which reuse this memory while it is still in cache. On a large graph, new
  // nodes otherwise land on fresh pages (a page fault and a zeroed page each).
  node->inputs_.release();
  node->users_.release();
  if (node->kind_ == NodeKind::kCallFunction) node->reads_.call.attrs = &kNoAttrs;
  if (insert_before_ == node) insert_before_ = node->next_;
  unlink(node);
  if (output_ == node) output_ = nullptr;
  // The name stays in by_name_, mapped to the dead node, until it is reused, the index is
  // full (make_name_room) or compact(): erasing from a large hash map is a few cache misses,
  // and rewrites erase a lot.
  node->dead_ = true;
  --live_count_;
}

size_t Graph::erase_dead_nodes() {
  size_t erased = 0;
  // Walk backwards so a chain of dead nodes goes in one pass.
  for (Node* n = last_; n != nullptr;) {
    Node* prev = n->prev_;
    if (n->users_.empty() && n->kind_ != NodeKind::kOutput &&
        n->kind_ != NodeKind::kPlaceholder) {
      erase(n);
      ++erased;
    }
    n = prev;
  }
  return erased;
}

void Graph::move_before(Node* node, Node* position) {
  if (node == position || node->next_ == position) return;
  unlink(node);
  link_before(node, position);
}

const std::string& Graph::rename(Node* node, std::string_view name) {
  if (node->name_ == name) return node->name_;
  std::string copy;  // only when `name` is a view of the node's own name, about to change
  const char* own = node->name_.data();
  if (!std::less<>{}(name.data(), own) &&
      std::less<>{}(name.data(), own + node->name_.size() + 1)) {
    copy = name;
    name = copy;
  }
  if (!node->name_.empty()) by_name_.erase(node->name_);  // an unnamed node is not indexed
  node->name_.clear();
  give_name(node, name, false);
  return node->name_;
}

void Graph::set_constant(Node* node, std::string_view target) {
  GRAFT_CHECK(node->kind_ == NodeKind::kGetAttr) << "set_constant on " << node->name_;
  point_at_constant(node, target);
  GRAFT_CHECK(node->reads_.constant.stamp != 0) << "set_constant: no constant named " << target;
}

void Graph::set_constant(Node* node, std::string_view target, const ConstantRef& ref) {
  GRAFT_CHECK(node->kind_ == NodeKind::kGetAttr) << "set_constant on " << node->name_;
  GRAFT_CHECK(constants_.is_current(ref) && constants_.entries_[ref.slot].key == target)
      << "set_constant: not the store's current reference to " << target;
  point_at_constant(node, target, ref);
}

void Graph::point_at_constant(Node* node, std::string_view target) {
  point_at_constant(node, target, constants_.ref_of(target));
}

void Graph::point_at_constant(Node* node, std::string_view target, const ConstantRef& ref) {
  constants_.add_readers(node->reads_.constant, -1);
  if (*node->target_ != target) node->target_ = targets_.intern(target);
  node->reads_.constant = ref;
  constants_.add_readers(node->reads_.constant, 1);
}

std::string Graph::rename_constant(Node* node, std::string_view target) {
  GRAFT_CHECK(node->kind_ == NodeKind::kGetAttr) << "rename_constant on " << node->name_;
  if (*node->target_ == target) return *node->target_;
  std::string fresh = constants_.unique_name(std::string(target));
  if (const ConstantTensor* t = constants_.find(*node->target_)) {
    ConstantTensor copy = *t;
    constants_.erase(*node->target_);
    constants_.set(fresh, std::move(copy));
  }
  point_at_constant(node, fresh);
  return fresh;
}

void Graph::compact() {
  std::vector<Node*> live;
  live.reserve(live_count_);
  for (Node* n = first_; n != nullptr; n = n->next_) live.push_back(n);
  by_name_.erase_if([](const Node* n) { return n->dead_; });
  for (Node* n : storage_) {
    if (n->dead_) pool_.release(n);  // frees its name, lists and meta now; the slot is reused
  }
  storage_ = std::move(live);
  for (size_t i = 0; i < storage_.size(); ++i) storage_[i]->id_ = static_cast<NodeId>(i);
  renumber();
}

// ** queries **

std::vector<Node*> Graph::placeholders() const {
  std::vector<Node*> result;
  for (Node* n : nodes()) {
    if (n->kind_ == NodeKind::kPlaceholder) result.push_back(n);
  }
  return result;
}

Node* Graph::find(std::string_view name) const {
  Node* n = by_name_.find(name);
  return n == nullptr || n->dead_ ? nullptr : n;
}

void Graph::sort_in_order(std::vector<Node*>& nodes) {
  std::vector<std::pair<uint64_t, Node*>> keyed;
  keyed.reserve(nodes.size());
  for (Node* n : nodes) keyed.push_back({n->order_, n});
  std::sort(keyed.begin(), keyed.end());  // orders are distinct among live nodes
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = keyed[i].second;
}

void Graph::name_fresh(Node* node, std::string_view hint) { give_name(node, hint, true); }

void Graph::name_fresh(Node* node, std::string_view hint, FreshNameMemo& memo) {
  if (memo.counter == nullptr) {
    give_name(node, hint, true);
    // Once the hint (a stem itself: "mul", not "mul_3") has a counter, give_name would go
    // straight to it; the memo lets the next call do so without looking it up.
    if (!hint.empty() && name_stem(hint).size() == hint.size()) {
      auto it = name_counters_.find(hint);
      if (it != name_counters_.end()) memo = {it->first, &it->second};
    }
    return;
  }
  GRAFT_CHECK(node->name_.empty()) << "naming " << node->name_ << " again";
  make_name_room();
  give_suffixed_name(node, memo.stem, *memo.counter);
}

void Graph::give_suffixed_name(Node* node, std::string_view stem, uint32_t& counter) {
  auto taken = [](const Node* n) { return !n->dead_; };  // a dead node's name is free
  do {
    set_suffixed(node->name_, stem, ++counter);
  } while (!by_name_.insert_unless_taken(node, taken));
}

void Graph::make_name_room() {
  // A full index drops the names of erased nodes before it grows: a rewrite of a large graph
  // erases most of what it replaces, and the index would otherwise double over their names.
  by_name_.make_room([](const Node* n) { return n->dead_; });
}

void Graph::give_name(Node* node, std::string_view base, bool fresh) {
  GRAFT_CHECK(node->name_.empty()) << "naming " << node->name_ << " again";
  if (base.empty()) base = "node";
  auto taken = [](const Node* n) { return !n->dead_; };  // a dead node's name is free
  make_name_room();
  std::string_view stem = name_stem(base);
  // The name itself when free; a fresh name skips that probe once its stem has a counter.
  auto it = name_counters_.end();
  bool try_base = !fresh || stem.size() != base.size();
  if (!try_base) {
    it = name_counters_.find(stem);
    try_base = it == name_counters_.end();
  }
  if (try_base) {
    node->name_ = base;
    if (by_name_.insert_unless_taken(node, taken)) return;
    it = name_counters_.find(stem);
  }
  if (it == name_counters_.end()) it = name_counters_.emplace(std::string(stem), 0).first;
  give_suffixed_name(node, stem, it->second);
}

std::unique_ptr<Graph> Graph::clone(std::vector<Node*>* mapping) const {
  auto copy = std::make_unique<Graph>();
  copy->constants_ = constants_;
  std::vector<Node*> map(storage_.size(), nullptr);
  for (Node* n : nodes()) {
    std::vector<Input> inputs(n->inputs_.begin(), n->inputs_.end());
    for (Input& in : inputs) {
      if (in.is_node()) in.node = map[in.node->id_];
    }
    Node* c = nullptr;
    switch (n->kind_) {
      case NodeKind::kPlaceholder:
        c = copy->add_placeholder(n->name_, std::nullopt);  // meta_ is copied below
        break;
      case NodeKind::kGetAttr:
        c = copy->add_get_attr(n->name_, *n->target_);
        break;
      case NodeKind::kCallFunction:
        c = copy->add_call(*n->schema(), std::move(inputs), n->attrs(), n->name_);
        break;
      case NodeKind::kOutput:
        c = copy->set_output(std::move(inputs));
        break;
    }
    c->meta_ = n->meta_;
    map[n->id_] = c;
  }
  if (mapping) *mapping = std::move(map);
  return copy;
}

}  // namespace graft
