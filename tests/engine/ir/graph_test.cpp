#include "engine/ir/graph.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "engine/ir/verifier.h"
#include "engine/ops/op_registry.h"

using namespace graft;

namespace {

TensorType f32(Shape shape) { return {DType::kFloat32, std::move(shape)}; }

Node* call(Graph& g, const char* op, std::vector<Input> inputs, std::string_view name = {}) {
  const OpSchema* schema = OpRegistry::get().find(op);
  REQUIRE(schema != nullptr);
  return g.add_call(*schema, std::move(inputs), Graph::default_attrs(*schema), name);
}

bool lint(const Graph& g) {
  DiagnosticEngine diags;
  bool ok = verify_graph(g, diags);
  INFO(diags.render());
  return ok;
}

}  // namespace

TEST_CASE("graph keeps user lists consistent through replace and erase", "[engine][graph]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({2, 3}));
  Node* a = call(g, "relu", {Input::of(x)});
  Node* b = call(g, "add", {Input::of(a), Input::of(a)});
  g.set_output({Input::of(b)});
  CHECK(a->users().size() == 2);
  CHECK(a->num_distinct_users() == 1);
  CHECK(lint(g));

  g.set_insert_point(b);
  Node* c = call(g, "relu", {Input::of(x)});
  CHECK(Graph::is_before(c, b));
  CHECK(g.replace_all_uses_with(a, c) == 2);
  CHECK(a->users().empty());
  g.erase(a);
  CHECK(g.size() == 4);
  CHECK(lint(g));
  CHECK(g.find(a->name()) == nullptr);
  // An erased node's lists are released at once (new nodes reuse the memory); what identifies
  // it stays readable until compact().
  CHECK(a->is_dead());
  CHECK(a->inputs().empty());
  CHECK(x->users().size() == 1);  // a's use of x is gone, c's stays
  CHECK(a->name() == "relu");
  CHECK(a->target() == "relu");
}

TEST_CASE("graph names are unique and readable", "[engine][graph]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({1}));
  Node* r1 = call(g, "relu", {Input::of(x)});
  Node* r2 = call(g, "relu", {Input::of(r1)});
  Node* r3 = call(g, "relu", {Input::of(r2)}, "relu_1");
  CHECK(r1->name() == "relu");
  CHECK(r2->name() == "relu_1");
  CHECK(r3->name() == "relu_2");
}

TEST_CASE("fresh names skip a freed name once their stem is counted; others reuse it",
          "[engine][graph]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({1}));
  auto fresh = [&](Node* in, std::string_view hint) {
    Node* n = g.add_unnamed_call(*OpRegistry::get().find("relu"), {Input::of(in)}, {});
    g.name_fresh(n, hint);
    return n;
  };
  Node* a = fresh(x, "mul");  // the first of its stem: the hint itself
  Node* b = fresh(a, "mul");
  Node* c = fresh(b, "mul_7");  // a suffixed hint is tried as it is
  CHECK(a->name() == "mul");
  CHECK(b->name() == "mul_1");
  CHECK(c->name() == "mul_7");
  CHECK(fresh(c, "mul_7")->name() == "mul_2");
  // "mul" freed: a fresh name does not look for it again (one index probe per created node),
  // a rename or an added call does.
  Node* d = g.find("mul_2");
  g.set_output({Input::of(d)});
  g.replace_all_uses_with(b, a);
  g.erase(b);
  CHECK(g.find("mul_1") == nullptr);
  Node* e = fresh(d, "mul_1");  // a suffixed hint, free again: reused
  CHECK(e->name() == "mul_1");
  Node* f = fresh(e, "mul");
  CHECK(f->name() == "mul_3");
  CHECK(g.rename(f, "mul_1") == "mul_4");  // taken (e)
  CHECK(g.rename(f, "mul_3") == "mul_3");  // its own old name, free again: reused
  g.replace_all_uses_with(e, d);
  g.erase(e);
  Node* h = call(g, "relu", {Input::of(f)}, "mul_1");  // freed by e: an added call reuses it
  CHECK(h->name() == "mul_1");
  g.replace_all_uses_with(a, x);
  g.erase(a);                 // "mul" is free now
  Node* i = fresh(h, "mul");  // a fresh name does not look for it again
  CHECK(i->name() == "mul_5");
  CHECK(call(g, "relu", {Input::of(i)}, "mul")->name() == "mul");  // an added call does
  g.set_output({Input::of(g.find("mul"))});
  CHECK(lint(g));
}

TEST_CASE("a fresh-name memo gives the names name_fresh gives without one", "[engine][graph]") {
  // Two graphs through the same creations and erasures, one naming with a memo per hint.
  Graph plain, memoized;
  std::map<std::string, Graph::FreshNameMemo> memos;
  struct Side {
    Graph& g;
    std::vector<Node*> nodes;
  } sides[2] = {{plain, {}}, {memoized, {}}};
  for (Side& s : sides) s.nodes.push_back(s.g.add_placeholder("x", f32({1})));
  const char* hints[] = {"mul", "add", "mul", "mul_7", "mul", "add", "mul_7", "mul", "scale"};
  for (int round = 0; round < 3; ++round) {
    for (const char* hint : hints) {
      for (Side& s : sides) {
        Node* n =
            s.g.add_unnamed_call(*OpRegistry::get().find("relu"), {Input::of(s.nodes.back())}, {});
        if (&s.g == &plain) {
          s.g.name_fresh(n, hint);
        } else {
          s.g.name_fresh(n, hint, memos[hint]);
        }
        s.nodes.push_back(n);
      }
    }
    for (size_t i = 0; i < sides[0].nodes.size(); ++i) {
      CHECK(sides[0].nodes[i]->name() == sides[1].nodes[i]->name());
    }
    // Free the names of the last round but its first node, as a rewrite's erasures do.
    for (Side& s : sides) {
      size_t keep = s.nodes.size() - std::size(hints);
      while (s.nodes.size() > keep + 1) {
        s.g.erase(s.nodes.back());
        s.nodes.pop_back();
      }
    }
  }
  CHECK(memos["mul"].counter != nullptr);
  CHECK(memos["mul_7"].counter == nullptr);  // a suffixed hint is tried as it is, every time
  CHECK(plain.find("mul_5") != nullptr);
}

TEST_CASE("graph order stays consistent under many insertions at one point", "[engine][graph]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({1}));
  Node* last = call(g, "relu", {Input::of(x)});
  g.set_output({Input::of(last)});
  g.set_insert_point(last);
  // Repeated insertion before the same node exhausts the gaps and forces a renumbering.
  Node* prev = x;
  for (int i = 0; i < 100; ++i) prev = call(g, "relu", {Input::of(prev)});
  g.replace_input(last, 0, Input::of(prev));
  CHECK(lint(g));
  Node* before = nullptr;
  for (Node* n : g.nodes()) {
    if (before) CHECK(Graph::is_before(before, n));
    before = n;
  }
}

TEST_CASE("sort_in_order puts nodes in graph order, also after insertions and moves", "[engine][graph]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({1}));
  Node* tail = call(g, "relu", {Input::of(x)});
  g.set_output({Input::of(tail)});
  // Nodes inserted before `tail` again and again (positions between older ones, and past a
  // renumbering), then one moved to the front: creation order is not graph order.
  g.set_insert_point(tail);
  std::vector<Node*> made;
  for (int i = 0; i < 60; ++i) made.push_back(call(g, "relu", {Input::of(x)}));
  g.set_insert_point(made[10]);
  for (int i = 0; i < 60; ++i) made.push_back(call(g, "relu", {Input::of(x)}));
  g.set_insert_point(nullptr);
  g.move_before(made.back(), made.front());
  made.push_back(tail);
  std::vector<Node*> expected;
  for (Node* n : g.nodes()) {
    if (std::find(made.begin(), made.end(), n) != made.end()) expected.push_back(n);
  }
  std::vector<Node*> sorted(made.rbegin(), made.rend());
  Graph::sort_in_order(sorted);
  CHECK(sorted == expected);
}

TEST_CASE("erase_dead_nodes removes unused chains and compact renumbers", "[engine][graph]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({1}));
  Node* a = call(g, "relu", {Input::of(x)});
  call(g, "relu", {Input::of(a)});
  g.set_output({Input::of(x)});
  CHECK(g.erase_dead_nodes() == 2);
  g.compact();
  CHECK(g.size() == 2);
  CHECK(g.id_bound() == 2);
  CHECK(lint(g));
  // The dropped nodes' storage is reused, fresh: no name, users or inputs of the old ones.
  Node* b = call(g, "sigmoid", {Input::of(x)});
  Node* c = call(g, "relu", {Input::of(b)});
  g.set_output({Input::of(c)});
  CHECK(b->id() == 2);
  CHECK(c->id() == 3);
  CHECK(b->name() == "sigmoid");
  CHECK(b->users().size() == 1);
  CHECK(c->users().size() == 1);
  CHECK(g.find("relu") == c);  // the dropped nodes' names are free again
  CHECK(lint(g));
}

TEST_CASE("clone is deep and lints clean", "[engine][graph]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({1}));
  Node* a = call(g, "relu", {Input::of(x)});
  g.set_output({Input::of(a)});
  std::unique_ptr<Graph> copy = g.clone();
  CHECK(copy->size() == g.size());
  CHECK(copy->find("relu") != a);
  CHECK(copy->find("relu")->input_node(0) == copy->find("x"));
  CHECK(lint(*copy));
}

TEST_CASE("a get_attr node reads its constant through renames, replacements and clones",
          "[engine][graph]") {
  Graph g;
  g.constants().set("conv.weight", ConstantTensor::from_floats({2}, {1, 2}));
  Node* w = g.add_get_attr("conv_weight", "conv.weight");
  REQUIRE(g.constant(*w) != nullptr);
  CHECK(g.constant(*w)->f32()[1] == 2);
  g.constants().set("conv.weight", ConstantTensor::from_floats({2}, {3, 4}));  // replaced
  CHECK(g.constant(*w)->f32()[1] == 4);
  CHECK(g.rename_constant(w, "fused.weight") == "fused.weight");
  REQUIRE(g.constant(*w) != nullptr);
  CHECK(g.constant(*w)->f32()[1] == 4);
  CHECK(g.constants().find("conv.weight") == nullptr);
  // The old name, stored again for another tensor, is not what the node reads.
  g.constants().set("conv.weight", ConstantTensor::from_floats({1}, {9}));
  CHECK(g.constant(*w)->numel() == 2);
  std::unique_ptr<Graph> copy = g.clone();
  const ConstantTensor* copied = copy->constant(*copy->find("conv_weight"));
  REQUIRE(copied != nullptr);
  CHECK(copied->f32()[1] == 4);
  g.constants().erase("fused.weight");
  CHECK(g.constant(*w) == nullptr);
  CHECK(copy->constant(*copy->find("conv_weight")) == copied);  // the copy is independent
}

TEST_CASE("verifier reports a use before its definition", "[engine][graph]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({1}));
  Node* a = call(g, "relu", {Input::of(x)});
  Node* b = call(g, "relu", {Input::of(a)});
  g.set_output({Input::of(b)});
  g.move_before(b, a);
  DiagnosticEngine diags;
  CHECK_FALSE(verify_graph(g, diags));
  CHECK(diags.render().find("node 'relu_1': input 0 'relu' is not defined before its use") !=
        std::string::npos);
}

TEST_CASE("verifier reports a typed node whose op rejects its inputs", "[engine][graph]") {
  // A node typed once (as a rewrite's replacement is) whose operand then changed shape: the
  // recorded type cannot be checked against an inference that fails, and the graph is wrong.
  Graph g;
  Node* x = g.add_placeholder("x", f32({2, 3}));
  Node* y = g.add_placeholder("y", f32({2, 3}));
  Node* z = g.add_placeholder("z", f32({4, 5}));
  Node* sum = call(g, "add", {Input::of(x), Input::of(y)}, "sum");
  sum->meta().set_type(f32({2, 3}));
  g.set_output({Input::of(sum)});
  CHECK(lint(g));
  g.replace_input(sum, 1, Input::of(z));
  DiagnosticEngine diags;
  CHECK_FALSE(verify_graph(g, diags));
  CHECK_THAT(diags.render(), Catch::Contains("node 'sum': add rejects its inputs"));
}

TEST_CASE("unnamed nodes are invisible to find until renamed, and take a dead node's name",
          "[engine][graph]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({4}));
  Node* old = call(g, "relu", {Input::of(x)}, "act");
  g.set_output({Input::of(old)});
  const OpSchema* sigmoid = OpRegistry::get().find("sigmoid");
  REQUIRE(sigmoid != nullptr);
  Node* fresh = g.add_unnamed_call(*sigmoid, {Input::of(x)}, Graph::default_attrs(*sigmoid));
  CHECK(fresh->name().empty());
  CHECK(x->users().size() == 2);
  CHECK(g.find("") == nullptr);
  g.replace_all_uses_with(old, fresh);
  g.erase(old);
  CHECK(g.rename(fresh, "act") == "act");  // the dead node's name is free
  CHECK(g.find("act") == fresh);

  Node* c = g.add_unnamed_get_attr(unique_type(f32({4})));
  CHECK(c->name().empty());
  {
    DiagnosticEngine diags;
    CHECK_FALSE(verify_graph(g, diags));
    CHECK_THAT(diags.render(), Catch::Contains("an unnamed get_attr node: has no name"));
  }
  CHECK(c->target().empty());
  CHECK(g.constant(*c) == nullptr);
  g.constants().set("scale", ConstantTensor::from_floats({4}, {1, 2, 3, 4}));
  g.set_constant(c, "scale");
  CHECK(c->target() == "scale");
  REQUIRE(g.constant(*c) != nullptr);
  CHECK(g.constant(*c)->f32()[3] == 4);
  g.rename(c, "scale");
  Node* y = call(g, "mul", {Input::of(fresh), Input::of(c)}, "y");
  g.set_output({Input::of(y)});
  CHECK(g.find("scale") == c);
  CHECK(lint(g));
}

TEST_CASE("the graph counts the get_attr nodes reading each constant", "[engine][graph]") {
  Graph g;
  g.constants().set("w", ConstantTensor::from_floats({2}, {1, 2}));
  g.constants().set("unused", ConstantTensor::from_floats({1}, {3}));
  CHECK(g.constants().readers("w") == 0);
  Node* a = g.add_get_attr("a", "w");
  Node* b = g.add_get_attr("b", "w");
  CHECK(g.constants().readers("w") == 2);
  CHECK(g.constants().readers("unused") == 0);
  CHECK(g.constants().readers("missing") == 0);
  g.erase(a);
  CHECK(g.constants().readers("w") == 1);
  // Re-targeting moves the count.
  g.set_constant(b, "unused");
  CHECK(g.constants().readers("w") == 0);
  CHECK(g.constants().readers("unused") == 1);
  CHECK(g.rename_constant(b, "kept") == "kept");
  CHECK(g.constants().readers("kept") == 1);
  // Replacing the tensor keeps the count; a clone counts its own nodes.
  g.constants().set("kept", ConstantTensor::from_floats({1}, {4}));
  CHECK(g.constants().readers("kept") == 1);
  std::unique_ptr<Graph> copy = g.clone();
  CHECK(copy->constants().readers("kept") == 1);
  CHECK(copy->constants().readers("w") == 0);
  // A constant erased and stored again does not count the node that read the old one.
  g.constants().erase("kept");
  g.constants().set("kept", ConstantTensor::from_floats({1}, {5}));
  CHECK(g.constants().readers("kept") == 0);
  g.erase(b);  // its reference is stale: nothing to take back
  CHECK(g.constants().readers("kept") == 0);
  CHECK(copy->constants().readers("kept") == 1);
}
