#include "engine/io/graph_printer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/ops/op_registry.h"

using namespace graft;

namespace {

TensorType f32(Shape shape) { return {DType::kFloat32, std::move(shape)}; }

Node* call(Graph& g, const char* op, std::vector<Input> inputs, std::string_view name = {}) {
  const OpSchema* schema = OpRegistry::get().find(op);
  REQUIRE(schema != nullptr);
  return g.add_call(*schema, std::move(inputs), Graph::default_attrs(*schema), name);
}

// x -> conv2d(stride 2, padding 1, no bias) -> relu -> relu * 0.5 -> add -> cat -> output.
struct ConvGraph {
  Graph g;
  Node *x, *w, *conv, *relu, *mul, *add, *cat;

  ConvGraph() {
    g.constants().set("conv1.weight", ConstantTensor::from_floats({4, 3, 3, 3},
                                                                  std::vector<float>(108, 0.5f)));
    x = g.add_placeholder("x", f32({dim_symbol("N"), 3, 8, 8}));
    w = g.add_get_attr("conv1_weight", "conv1.weight");
    conv = call(g, "conv2d", {Input::of(x), Input::of(w), Input::none()}, "conv1");
    g.set_attr(conv, "stride", std::vector<int64_t>{2, 2});
    g.set_attr(conv, "padding", std::vector<int64_t>{1, 1});
    conv->meta().set_type(f32({dim_symbol("N"), 4, 4, 4}));
    relu = call(g, "relu", {Input::of(conv)});
    mul = call(g, "mul", {Input::of(relu), Input::of(Scalar{0.5, false})});
    add = call(g, "add", {Input::of(relu), Input::of(mul)});
    cat = call(g, "cat", {Input::of(relu), Input::of(add)});
    g.set_attr(cat, "dim", int64_t{1});
    g.set_output({Input::of(cat), Input::of(add)});
  }
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The DOT statement declaring node `id` ("n3"), or "" if there is none.
std::string dot_node_line(const std::string& dot, const std::string& id) {
  for (const std::string& line : lines_of(dot)) {
    if (line.rfind("  " + id + " [", 0) == 0) return line;
  }
  return "";
}

// Every quote in `line` that is not escaped by a backslash.
size_t unescaped_quotes(const std::string& line) {
  size_t n = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == '"') {
      ++n;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("graph table prints fx's print_tabular columns with torch-convention args",
          "[engine][printer]") {
  ConvGraph cg;
  // Non-default conv kwargs, a None bias, a scalar operand, a variadic cat, two outputs, and
  // a type column that is empty for untyped nodes.
  const std::string expected = R"(opcode         name          target        args                     kwargs                             type
-------------  ------------  ------------  -----------------------  ---------------------------------  -------------------
placeholder    x             x             ()                       {}                                 float32[N, 3, 8, 8]
get_attr       conv1_weight  conv1.weight  ()                       {}                                 float32[4, 3, 3, 3]
call_function  conv1         conv2d        (x, conv1_weight, None)  {stride: [2, 2], padding: [1, 1]}  float32[N, 4, 4, 4]
call_function  relu          relu          (conv1,)                 {}
call_function  mul           mul           (relu, 0.5)              {}
call_function  add           add           (relu, mul)              {}
call_function  cat           cat           ([relu, add],)           {dim: 1}
output         output        output        ((cat, add),)            {}
)";
  CHECK(format_graph_table(cg.g) == expected);
}

TEST_CASE("graph table drops the type column when no node has a type", "[engine][printer]") {
  Graph g;
  Node* x = g.add_placeholder("input", std::nullopt);
  Node* r = call(g, "relu", {Input::of(x)});
  g.set_output({Input::of(r)});
  CHECK(format_graph_table(g) ==
        "opcode         name    target  args      kwargs\n"
        "-------------  ------  ------  --------  ------\n"
        "placeholder    input   input   ()        {}\n"
        "call_function  relu    relu    (input,)  {}\n"
        "output         output  output  (relu,)   {}\n");
}

TEST_CASE("graph table of an empty graph is the header alone", "[engine][printer]") {
  Graph g;
  CHECK(format_graph_table(g) ==
        "opcode  name  target  args  kwargs\n"
        "------  ----  ------  ----  ------\n");
}

TEST_CASE("node calls render operands positionally and changed attributes as keywords",
          "[engine][printer]") {
  ConvGraph cg;
  CHECK(format_node_call(*cg.conv) ==
        "conv2d(x, conv1_weight, None, stride=[2, 2], padding=[1, 1])");
  CHECK(format_node_call(*cg.relu) == "relu(conv1)");
  CHECK(format_node_call(*cg.mul) == "mul(relu, 0.5)");
  CHECK(format_node_call(*cg.add) == "add(relu, mul)");
  CHECK(format_node_call(*cg.cat) == "cat([relu, add], dim=1)");
  CHECK(format_node_call(*cg.x) == "placeholder(x)");
  CHECK(format_node_call(*cg.w) == "get_attr(conv1.weight)");
  CHECK(format_node_call(*cg.g.output()) == "output(cat, add)");
  CHECK(format_node_args(*cg.conv) == "(x, conv1_weight, None)");
  CHECK(format_node_kwargs(*cg.conv) == "{stride: [2, 2], padding: [1, 1]}");
  CHECK(format_node_kwargs(*cg.x) == "{}");
}

TEST_CASE("node args drop trailing Nones after the first optional operand", "[engine][printer]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({2, 3, 4, 4}));
  Node* m = g.add_placeholder("m", f32({3}));
  Node* v = g.add_placeholder("v", f32({3}));
  Node* b = g.add_placeholder("b", f32({3}));
  Node* bn = call(g, "batch_norm",
                  {Input::of(x), Input::of(m), Input::of(v), Input::none(), Input::none()});
  CHECK(format_node_args(*bn) == "(x, m, v)");
  // A None before a present operand stays: it is positional.
  Node* bn2 = call(g, "batch_norm",
                   {Input::of(x), Input::of(m), Input::of(v), Input::none(), Input::of(b)});
  g.set_attr(bn2, "eps", 0.001);
  CHECK(format_node_call(*bn2) == "batch_norm(x, m, v, None, b, eps=0.001)");
  // Only the first optional operand is always kept (conv's or linear's None bias).
  Node* bn3 = call(g, "batch_norm",
                   {Input::of(x), Input::none(), Input::none(), Input::none(), Input::none()});
  CHECK(format_node_args(*bn3) == "(x, None)");
  Node* lin = call(g, "linear", {Input::of(x), Input::of(m), Input::of(b)});
  CHECK(format_node_args(*lin) == "(x, m, b)");
  // A one-element tuple keeps its comma; a single output is fx's `(relu,)`.
  Node* r = call(g, "relu", {Input::of(lin)});
  g.set_output({Input::of(r)});
  CHECK(format_node_args(*g.output()) == "(relu,)");
  CHECK(format_node_call(*g.output()) == "output(relu)");
}

TEST_CASE("node kwargs compare attributes with their defaults after coercion",
          "[engine][printer]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({1, 3, 8, 8}));
  Node* w = g.add_placeholder("w", f32({4, 3, 3, 3}));
  Node* conv = call(g, "conv2d", {Input::of(x), Input::of(w), Input::none()});
  // `int[2] stride=1` stores [1, 1]; an uncoerced 1 is still the default, 2 is not.
  g.set_attr(conv, "stride", int64_t{1});
  CHECK(format_node_kwargs(*conv) == "{}");
  g.set_attr(conv, "stride", int64_t{2});
  CHECK(format_node_kwargs(*conv) == "{stride: 2}");
  g.set_attr(conv, "groups", int64_t{1});
  CHECK(format_node_kwargs(*conv) == "{stride: 2}");
  // An attribute without a default is always shown.
  Node* reshape = call(g, "reshape", {Input::of(conv)});
  g.set_attr(reshape, "shape", std::vector<int64_t>{1, -1});
  CHECK(format_node_call(*reshape) == "reshape(conv2d, shape=[1, -1])");
  // Scalar operands keep int and float apart.
  Node* add = call(g, "add", {Input::of(reshape), Input::of(Scalar{1, true})});
  g.set_attr(add, "alpha", 2.5);
  CHECK(format_node_call(*add) == "add(reshape, 1, alpha=2.5)");
}

TEST_CASE("dot output declares every node and one edge per input use", "[engine][printer]") {
  ConvGraph cg;
  std::string dot = graph_to_dot(cg.g, {});
  REQUIRE(dot.rfind("digraph graft {\n", 0) == 0);
  CHECK(dot.substr(dot.size() - 2) == "}\n");
  CHECK(count(dot, "{") == count(dot, "}"));

  // DOT ids are graph positions; each node's label starts with its name.
  std::vector<Node*> order;
  for (Node* n : cg.g.nodes()) order.push_back(n);
  REQUIRE(order.size() == 8);
  for (size_t i = 0; i < order.size(); ++i) {
    std::string line = dot_node_line(dot, "n" + std::to_string(i));
    INFO(line);
    CHECK(line.find("[label=\"" + order[i]->name()) != std::string::npos);
  }
  CHECK(dot_node_line(dot, "n8").empty());
  CHECK(dot_node_line(dot, "n0").find("shape=ellipse") != std::string::npos);
  CHECK(dot_node_line(dot, "n1").find("shape=note") != std::string::npos);
  CHECK(dot_node_line(dot, "n2").find("style=\"rounded\"") != std::string::npos);
  CHECK(dot_node_line(dot, "n7").find("shape=doublecircle") != std::string::npos);
  CHECK(dot_node_line(dot, "n2").find("stride=[2, 2], padding=[1, 1]") != std::string::npos);
  CHECK(dot_node_line(dot, "n4").find("other=0.5") != std::string::npos);

  std::vector<std::string> edges;
  for (const std::string& line : lines_of(dot)) {
    if (line.find(" -> ") != std::string::npos) edges.push_back(line);
  }
  const std::vector<std::string> expected = {
      "  n0 -> n2 [label=\"input\"];",      "  n1 -> n2 [label=\"weight\"];",
      "  n2 -> n3;",                        "  n3 -> n4 [label=\"input\"];",
      "  n3 -> n5 [label=\"input\"];",      "  n4 -> n5 [label=\"other\"];",
      "  n3 -> n6 [label=\"tensors[0]\"];", "  n5 -> n6 [label=\"tensors[1]\"];",
      "  n6 -> n7 [label=\"0\"];",          "  n5 -> n7 [label=\"1\"];",
  };
  CHECK(edges == expected);
  // No highlight: no legend.
  CHECK(dot.find("legend") == std::string::npos);
}

TEST_CASE("dot output fills only highlighted nodes with the highlight colour",
          "[engine][printer]") {
  ConvGraph cg;
  DotOptions opts;
  opts.highlight = {cg.conv, cg.w};
  std::string dot = graph_to_dot(cg.g, opts);
  std::string legend = dot_node_line(dot, "legend");
  REQUIRE(!legend.empty());
  size_t at = legend.find("fillcolor=\"");
  REQUIRE(at != std::string::npos);
  std::string colour = legend.substr(at, legend.find('"', at + 11) + 1 - at);
  INFO(colour);
  for (const std::string& line : lines_of(dot)) {
    bool highlighted = line.rfind("  n1 [", 0) == 0 || line.rfind("  n2 [", 0) == 0 ||
                       line.rfind("  legend [", 0) == 0;
    INFO(line);
    CHECK((line.find(colour) != std::string::npos) == highlighted);
  }
  // The highlight replaces get_attr's grey fill rather than adding to it.
  CHECK(count(dot_node_line(dot, "n1"), "fillcolor") == 1);
  // Without highlights the colour appears nowhere.
  CHECK(graph_to_dot(cg.g, {}).find(colour) == std::string::npos);
}

TEST_CASE("dot output escapes quotes, backslashes and newlines", "[engine][printer]") {
  Graph g;
  Node* x = g.add_placeholder("in\"put\\x", f32({2}));
  Node* w = g.add_get_attr("layer1.0.conv.weight", "layer1.0.conv.weight");
  Node* a = call(g, "add", {Input::of(x), Input::of(w)});
  a->meta().provenance = SharedString("fuse \"a\" (std/fusion.rules:3)\nsecond line");
  g.set_output({Input::of(a)});
  DotOptions opts;
  opts.title = "before \"rewrite\"";
  std::string dot = graph_to_dot(g, opts);
  CHECK(dot.find("label=\"in\\\"put\\\\x\\nfloat32[2]\"") != std::string::npos);
  CHECK(dot.find("label=\"layer1.0.conv.weight\"") != std::string::npos);
  // A newline in user text shows as `\n` (DOT's `\\n`), as on a terminal, not as a break.
  CHECK(dot.find("tooltip=\"fuse \\\"a\\\" (std/fusion.rules:3)\\\\nsecond line\"") !=
        std::string::npos);
  CHECK(dot.find("label=\"before \\\"rewrite\\\"\";") != std::string::npos);
  // The provenance newline is escaped, so every statement is one line with balanced quotes.
  for (const std::string& line : lines_of(dot)) {
    INFO(line);
    CHECK(unescaped_quotes(line) % 2 == 0);
    bool brace = line == "digraph graft {" || line == "}";
    CHECK((brace || line.back() == ';'));
  }
  // Tooltips only where there is provenance.
  CHECK(count(dot, "tooltip=") == 1);
}

TEST_CASE("dot output is deterministic and can omit types", "[engine][printer]") {
  ConvGraph cg;
  std::string dot = graph_to_dot(cg.g, {});
  CHECK(graph_to_dot(cg.g, {}) == dot);
  std::unique_ptr<Graph> copy = cg.g.clone();
  CHECK(graph_to_dot(*copy, {}) == dot);
  CHECK(dot.find("float32[N, 4, 4, 4]") != std::string::npos);
  DotOptions opts;
  opts.show_types = false;
  std::string untyped = graph_to_dot(cg.g, opts);
  CHECK(untyped.find("float32") == std::string::npos);
  CHECK(untyped.find("label=\"") != std::string::npos);
}

TEST_CASE("print and dot spell out control characters and invalid UTF-8 in user text",
          "[engine][printer][terminal_text]") {
  using namespace std::string_literals;
  Graph g;
  // A name with a colour escape, one with \r, \n and NUL, a symbol and a target with invalid
  // UTF-8, and a string attribute with a clear-screen escape.
  Node* x = g.add_placeholder("\x1b[31mx", f32({dim_symbol("N\x1b[0m"), 3}));
  Node* w = g.add_get_attr("w\r\n\0w"s, "weights.\xff");
  Node* a = call(g, "add", {Input::of(x), Input::of(w)}, "sum\x9b");
  Node* gelu = call(g, "gelu", {Input::of(a)}, "caf\xc3\xa9");
  g.set_attr(gelu, "approximate", std::string("\x1b[2J"));
  g.set_output({Input::of(gelu)});
  auto has_raw_control = [](const std::string& text) {
    return std::any_of(text.begin(), text.end(), [](char c) {
      unsigned char u = static_cast<unsigned char>(c);
      return (u < 0x20 && c != '\n') || u == 0x7f || u == 0xff || u == 0x9b;
    });
  };
  std::string table = format_graph_table(g);
  INFO(table);
  CHECK_FALSE(has_raw_control(table));
  CHECK(table ==
        "opcode         name        target        args                   kwargs                  "
        "type\n"
        "-------------  ----------  ------------  ---------------------  ----------------------  "
        "------------------\n"
        "placeholder    \\e[31mx     \\e[31mx       ()                     {}                      "
        "float32[N\\e[0m, 3]\n"
        "get_attr       w\\r\\n\\x00w  weights.\\xff  ()                     {}\n"
        "call_function  sum\\x9b     add           (\\e[31mx, w\\r\\n\\x00w)  {}\n"
        "call_function  caf\xc3\xa9        gelu          (sum\\x9b,)             "
        "{approximate: '\\e[2J'}\n"
        "output         output      output        (caf\xc3\xa9,)                {}\n");
  CHECK(format_node_call(*gelu) == "gelu(sum\\x9b, approximate='\\e[2J')");
  std::string dot = graph_to_dot(g, {});
  INFO(dot);
  CHECK_FALSE(has_raw_control(dot));
  // The escapes reach the label as text: DOT's backslash before each of their backslashes.
  CHECK(dot.find("label=\"\\\\e[31mx\\nfloat32[N\\\\e[0m, 3]\"") != std::string::npos);
  CHECK(dot.find("label=\"w\\\\r\\\\n\\\\x00w\\nweights.\\\\xff\"") != std::string::npos);
  CHECK(dot.find("approximate='\\\\e[2J'") != std::string::npos);
}
