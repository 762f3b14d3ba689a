#include "engine/ir/attr_table.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "engine/io/graph_printer.h"
#include "engine/ir/graph.h"
#include "engine/ops/op_registry.h"

using namespace graft;

namespace {

const OpSchema& op(const char* name) {
  const OpSchema* s = OpRegistry::get().find(name);
  REQUIRE(s != nullptr);
  return *s;
}

AttrList conv_attrs(int64_t stride) {
  AttrList attrs = Graph::default_attrs(op("conv2d"));
  attrs[static_cast<size_t>(op("conv2d").attr_index("stride"))] =
      std::vector<int64_t>{stride, stride};
  return attrs;
}

}  // namespace

TEST_CASE("an attribute table keeps one copy of each list", "[engine][attr]") {
  AttrTable table;
  const AttrList* a = table.intern(AttrList{int64_t{1}, std::vector<int64_t>{1, 1}});
  const AttrList* b = table.intern(AttrList{int64_t{1}, std::vector<int64_t>{1, 1}});
  const AttrList* c = table.intern(AttrList{int64_t{1}, std::vector<int64_t>{1, 2}});
  CHECK(a == b);
  CHECK(a != c);
  CHECK(*c == AttrList{int64_t{1}, std::vector<int64_t>{1, 2}});
  CHECK(table.size() == 2);
  CHECK(table.intern(AttrList{}) == &kNoAttrs);
  CHECK(table.size() == 2);

  SECTION("identical means the same kinds and bits") {
    CHECK(table.intern(AttrList{0.0}) != table.intern(AttrList{-0.0}));
    CHECK(table.intern(AttrList{int64_t{1}}) != table.intern(AttrList{1.0}));
    CHECK(table.intern(AttrList{true}) != table.intern(AttrList{int64_t{1}}));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK(table.intern(AttrList{nan}) == table.intern(AttrList{nan}));
    CHECK(table.intern(AttrList{std::string("a")}) != table.intern(AttrList{std::string("b")}));
    CHECK(table.intern(AttrList{std::monostate{}}) !=
          table.intern(AttrList{std::vector<double>{}}));
  }

  SECTION("an rvalue is taken over only when it is new") {
    AttrList known{int64_t{1}, std::vector<int64_t>{1, 1}};
    CHECK(table.intern(std::move(known)) == a);
    CHECK(known.size() == 2);  // NOLINT(bugprone-use-after-move): left as it was
    AttrList fresh{int64_t{7}};
    const AttrList* f = table.intern(std::move(fresh));
    CHECK(*f == AttrList{int64_t{7}});
  }

  SECTION("pointers stay valid while the table grows and moves") {
    std::vector<const AttrList*> lists;
    for (int64_t i = 0; i < 1000; ++i) lists.push_back(table.intern(AttrList{i, 0.5}));
    AttrTable moved = std::move(table);
    for (int64_t i = 0; i < 1000; ++i) {
      REQUIRE(moved.intern(AttrList{i, 0.5}) == lists[static_cast<size_t>(i)]);
      REQUIRE(*lists[static_cast<size_t>(i)] == AttrList{i, 0.5});
    }
    CHECK(moved.size() == 1002);
  }
}

TEST_CASE("nodes with identical attributes share one list; set_attr changes one node",
          "[engine][attr]") {
  Graph g;
  Node* x = g.add_placeholder("x", TensorType{DType::kFloat32, {1, 8, 8, 8}});
  Node* w = g.add_placeholder("w", TensorType{DType::kFloat32, {8, 8, 3, 3}});
  Node* a = g.add_call(op("conv2d"), {Input::of(x), Input::of(w), Input::none()}, conv_attrs(1));
  Node* b = g.add_call(op("conv2d"), {Input::of(a), Input::of(w), Input::none()}, conv_attrs(1));
  Node* c = g.add_call(op("conv2d"), {Input::of(b), Input::of(w), Input::none()}, conv_attrs(2));
  g.set_output({Input::of(c)});
  CHECK(&a->attrs() == &b->attrs());
  CHECK(&a->attrs() != &c->attrs());
  CHECK(x->attrs().empty());

  g.set_attr(b, "stride", std::vector<int64_t>{2, 2});
  CHECK(std::get<std::vector<int64_t>>(a->attr("stride")) == std::vector<int64_t>{1, 1});
  CHECK(std::get<std::vector<int64_t>>(b->attr("stride")) == std::vector<int64_t>{2, 2});
  CHECK(&b->attrs() == &c->attrs());  // now identical to c's

  // A clone interns into its own table, with the same values.
  std::unique_ptr<Graph> copy = g.clone();
  CHECK(format_graph_table(*copy) == format_graph_table(g));
  Node* b2 = copy->find(b->name());
  REQUIRE(b2 != nullptr);
  CHECK(&b2->attrs() != &b->attrs());
  CHECK(b2->attrs() == b->attrs());

  // Erasing a node leaves the list to the others that share it.
  g.replace_all_uses_with(c, b);
  g.erase(c);
  CHECK(std::get<std::vector<int64_t>>(b->attr("stride")) == std::vector<int64_t>{2, 2});
}

TEST_CASE("a detached call reads its own attributes or a list it is given", "[engine][attr]") {
  const OpSchema& leaky = op("leaky_relu");
  Graph g;
  Node* x = g.add_placeholder("x", TensorType{DType::kFloat32, {4}});
  DetachedCall call = Graph::make_detached_call(leaky, {Input::of(x)}, AttrList{0.25});
  CHECK(call->attrs() == AttrList{0.25});

  // Reset with a list swapped in: the caller gets the previous one back.
  AttrList next{0.5};
  Graph::reset_detached_call(call, leaky, {Input::of(x)}, next);
  CHECK(call->attrs() == AttrList{0.5});
  CHECK(next == AttrList{0.25});

  // Reset to read a graph's list in place; moving the handle keeps the node readable.
  const AttrList* shared = g.intern_attrs(AttrList{0.125});
  Graph::reset_detached_call(call, leaky, {Input::of(x)}, shared);
  CHECK(&call->attrs() == shared);
  DetachedCall moved = std::move(call);
  CHECK(&moved->attrs() == shared);
  Graph::reset_detached_call(moved, leaky, {Input::of(x)}, next);  // back to its own list
  CHECK(moved->attrs() == AttrList{0.25});
  CHECK(*shared == AttrList{0.125});
}
