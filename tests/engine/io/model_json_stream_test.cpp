// The loader reads model.json in one pass, node by node, and reports only at the end. These
// cases check what that order could change and must not: top-level keys after the nodes, a
// JSON error after bad nodes, messages that depend on later nodes (a name defined further on,
// an output node that is not the last), and the error count past the diagnostics' limit.
#include <catch2/catch.hpp>

#include <string>

#include "engine/io/model_json.h"
#include "engine/support/mapped_file.h"
#include "tests/testing/test_paths.h"

using namespace graft;

namespace {

const std::string kInput = R"({"name": "x", "op": "placeholder", "target": "x", )"
                           R"("meta": {"shape": [2], "dtype": "float32"}})";
const std::string kOutput =
    R"({"name": "output", "op": "output", "target": "output", "args": [[{"node": "r"}]]})";

std::string relu(const std::string& name, const std::string& input) {
  return R"({"name": ")" + name + R"(", "op": "call_function", "target": "relu", )" +
         R"("args": [{"node": ")" + input + R"("}]})";
}

std::string model(const std::string& nodes) {
  return R"({"format": "graft.model", "version": 1, "nodes": [)" + nodes + "]}";
}

std::string diagnostics(const std::string& text, int max_errors = 20) {
  DiagnosticEngine diags(nullptr, max_errors);
  std::optional<Model> m = load_model_from_string(text, "model.json", ".", diags);
  CHECK(m.has_value() == !diags.has_errors());
  return diags.render();
}

}  // namespace

TEST_CASE("top-level keys after the nodes apply to them as if they came first",
          "[engine][model_json]") {
  std::string nodes = R"("nodes": [)" + kInput + "," +
                      R"({"name": "c", "op": "get_attr", "target": "t"},)" +
                      R"({"name": "r", "op": "call_function", "target": "add", )" +
                      R"("args": [{"node": "x"}, {"node": "c"}]},)" + kOutput + "]";
  std::string tensors = R"("tensors": {"t": {"dtype": "float32", "shape": [2], "data": [1, 2]}})";
  std::string head = R"("format": "graft.model", "version": 1)";
  DiagnosticEngine diags;
  std::string head_first = "{" + head + ", " + tensors + ", " + nodes + "}";
  std::string nodes_first = "{" + nodes + ", " + tensors + ", " + head + "}";
  std::optional<Model> first = load_model_from_string(head_first, "m.json", ".", diags);
  std::optional<Model> last = load_model_from_string(nodes_first, "m.json", ".", diags);
  CHECK(diags.render() == "");
  REQUIRE(first);
  REQUIRE(last);
  CHECK(model_to_json_text(*last, "") == model_to_json_text(*first, ""));

  // A wrong format after the nodes: the nodes mean nothing, and are not reported.
  CHECK(diagnostics("{" + nodes + R"(, "format": "onnx", "version": 1})") ==
        "model.json: /format: error: unsupported format \"onnx\": expected \"graft.model\"\n");
}

TEST_CASE("a JSON error after bad nodes is reported alone", "[engine][model_json][bad]") {
  std::string text = model(kInput + "," + relu("r", "nowhere") + "," + kOutput);
  text.back() = ',';  // "]," and the end of the text
  CHECK(diagnostics(text) ==
        "model.json:1:314: error: invalid JSON: syntax error while parsing object key - unexpected "
        "end of input; expected string literal\n");
}

TEST_CASE("messages that depend on later nodes name them", "[engine][model_json][bad]") {
  SECTION("a name declared only by a later node that fails") {
    std::string text = model(kInput + "," + relu("r", "later") + "," +
                             R"({"name": "later", "target": "relu"},)" + kOutput);
    CHECK(diagnostics(text) ==
          "model.json: /nodes/1/args/0: error: reference to node 'later', which is defined later "
          "(at /nodes/2): nodes must be in topological order, and a cycle has none\n"
          "model.json: /nodes/2/op: error: expected one of placeholder, get_attr, call_function, "
          "output\n");
  }
  SECTION("a node's reference to itself") {
    CHECK(diagnostics(model(kInput + "," + relu("r", "r") + "," + kOutput)) ==
          "model.json: /nodes/1/args/0: error: reference to node 'r', which is defined later (at "
          "/nodes/1): nodes must be in topological order, and a cycle has none\n");
  }
  SECTION("an output node that is not the last, and a reference to it") {
    std::string early =
        R"({"name": "out0", "op": "output", "target": "output", "args": [[{"node": "x"}]]})";
    CHECK(diagnostics(model(kInput + "," + early + "," + relu("r", "out0") + "," + kOutput)) ==
          "model.json: /nodes/1: error: the output node must be the last node (found at index 1 "
          "of 4)\n"
          "model.json: /nodes/2/args/0: error: reference to node 'out0', which is defined later "
          "(at /nodes/1): nodes must be in topological order, and a cycle has none\n");
  }
  SECTION("an undefined name is suggested from the names defined before the reference") {
    CHECK(diagnostics(model(kInput + "," + relu("r", "xx") + "," + relu("xy", "x") + "," +
                            kOutput)) ==
          "model.json: /nodes/1/args/0: error: reference to undefined node 'xx' (did you mean "
          "'x'?)\n");
  }
}

TEST_CASE("errors past the diagnostics' limit are counted", "[engine][model_json][bad]") {
  std::string nodes = kInput;
  for (int i = 0; i < 5; ++i) nodes += "," + relu("r" + std::to_string(i), "missing");
  std::string rendered = diagnostics(model(nodes + "," + kOutput), 3);
  CHECK_THAT(rendered, Catch::EndsWith("fatal: too many errors (6), stopping after 3\n"));
  CHECK_THAT(rendered, Catch::StartsWith("model.json: /nodes/1/args/0: error: reference to "
                                         "undefined node 'missing'\n"));
}

TEST_CASE("a model file read through its mapping reports and loads as its text does",
          "[engine][model_json]") {
  // More text than the mapping hands back at a time, twice over, one node a line: the pages
  // handed back are read again for a diagnostic's line:col, and for the nodes' second reading
  // when a top-level key follows them.
  std::string nodes = kInput;
  std::string last = "x";
  for (int i = 0; nodes.size() < 2 * MappedFile::kReleaseStep + 4096; ++i) {
    std::string name = "r" + std::to_string(i);
    nodes += ",\n" + relu(name, last);
    last = name;
  }
  std::string output = R"({"name": "output", "op": "output", "target": "output", "args": [[{"node": ")" +
                       last + R"("}]]})";
  std::string dir = testing::make_temp_dir("model-json-mapped");
  auto from_file = [&](const std::string& text, std::string* rendered) {
    testing::write_file(dir + "/model.json", text);
    DiagnosticEngine diags;
    std::optional<Model> m = load_model(dir + "/model.json", diags);
    *rendered = diags.render();
    return m;
  };
  auto from_text = [&](const std::string& text, std::string* rendered) {
    DiagnosticEngine diags;
    std::optional<Model> m = load_model_from_string(text, dir + "/model.json", dir, diags);
    *rendered = diags.render();
    return m;
  };
  std::string file_said, text_said;
  SECTION("a bad last node") {
    std::string bad = R"({"name": "y", "op": "call_function", "target": "relu", "args": [{"node": ")" +
                      last + R"("}], "target": "sigmoid"})";
    std::string text = model(nodes + ",\n" + bad + ",\n" + output);
    CHECK_FALSE(from_file(text, &file_said));
    CHECK_FALSE(from_text(text, &text_said));
    CHECK_THAT(file_said, Catch::Contains("duplicate key 'target' in /nodes/"));
    CHECK(file_said == text_said);
  }
  SECTION("a key after the nodes") {
    std::string text = R"({"format": "graft.model", "nodes": [)" + nodes + ",\n" + output +
                       R"(], "version": 1, "metadata": {"after": "nodes"}})";
    std::optional<Model> mapped = from_file(text, &file_said);
    std::optional<Model> read = from_text(text, &text_said);
    REQUIRE(mapped);
    REQUIRE(read);
    CHECK(file_said == text_said);
    CHECK(mapped->graph->size() == read->graph->size());
    CHECK(mapped->graph->find(last) != nullptr);
    CHECK(mapped->metadata == read->metadata);
  }
}
