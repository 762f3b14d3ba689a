// model.json is strict JSON: a key given twice in any object and a NUL byte anywhere are
// errors at their line:col, where nlohmann alone keeps the last key and stops at a NUL. The
// strict parser itself (engine/io/strict_json.h) is also checked directly: pointers, offsets, keys
// with escapes, large objects.
#include <catch2/catch.hpp>

#include <string>

#include "engine/io/model_json.h"
#include "engine/io/strict_json.h"

using namespace graft;

namespace {

const std::string kHead = "{\"format\": \"graft.model\", \"version\": 1,\n";
const std::string kInput =
    R"({"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2], "dtype": "float32"}})";
const std::string kOutput =
    R"({"name": "output", "op": "output", "target": "output", "args": [[{"node": "r"}]]})";

/// A model: placeholder x, `node` (named r), output; `extra` goes before "nodes".
std::string model(const std::string& node, const std::string& extra = "") {
  return kHead + extra + " \"nodes\": [\n" + kInput + ",\n" + node + ",\n" + kOutput + "]}";
}

const std::string kRelu = R"({"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "x"}]})";

std::string rejected(const std::string& text) {
  DiagnosticEngine diags;
  std::optional<Model> m = load_model_from_string(text, "model.json", ".", diags);
  CHECK_FALSE(m.has_value());
  return diags.render();
}

}  // namespace

TEST_CASE("the strict model fixture loads", "[engine][model_json]") {
  DiagnosticEngine diags;
  CHECK(load_model_from_string(model(kRelu), "model.json", ".", diags));
  CHECK(diags.render() == "");
}

TEST_CASE("a key given twice in a node is rejected at the second, naming the first",
          "[engine][model_json][bad]") {
  // Without the check the second "target" won silently: the node ran sigmoid, while the file
  // read top-down says relu.
  std::string node =
      R"({"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "x"}], "target": "sigmoid"})";
  CHECK(rejected(model(node)) ==
        "model.json:4:81: error: duplicate key 'target' in /nodes/1 (first given at 4:38)\n");
}

TEST_CASE("a key given twice is rejected in every object of a model", "[engine][model_json][bad]") {
  // top level
  CHECK(rejected(model(kRelu, R"("version": 1, )")) ==
        "model.json:2:1: error: duplicate key 'version' in the top-level object (first given at "
        "1:27)\n");
  // kwargs
  CHECK_THAT(rejected(model(R"({"name": "r", "op": "call_function", "target": "leaky_relu", "args": [{"node": "x"}], "kwargs": {"negative_slope": 0.1, "negative_slope": 0.2}})")),
             Catch::Contains("duplicate key 'negative_slope' in /nodes/1/kwargs"));
  // meta
  CHECK_THAT(rejected(model(R"({"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "x"}], "meta": {"dtype": "float32", "dtype": "int64"}})")),
             Catch::Contains("duplicate key 'dtype' in /nodes/1/meta"));
  // a node reference inside a list
  CHECK_THAT(rejected(model(R"({"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "x", "node": "output"}]})")),
             Catch::Contains("duplicate key 'node' in /nodes/1/args/0"));
  // inline tensors and metadata
  std::string t = R"({"dtype": "float32", "shape": [1], "data": [1]})";
  CHECK_THAT(rejected(model(kRelu, R"("tensors": {"w": )" + t + R"(, "w": )" + t + "}, ")),
             Catch::Contains("duplicate key 'w' in /tensors"));
  CHECK_THAT(rejected(model(kRelu, R"("metadata": {"a": "1", "a": "2"}, )")),
             Catch::Contains("duplicate key 'a' in /metadata"));
}

TEST_CASE("a NUL byte anywhere in model.json is rejected at its line:col",
          "[engine][model_json][bad]") {
  // nlohmann ends the input at a NUL, so before this check anything after one was ignored.
  std::string text = model(kRelu);
  CHECK(rejected(text + std::string(1, '\0') + "garbage") ==
        "model.json:5:84: error: invalid JSON: a NUL byte, which JSON text cannot contain\n");
  CHECK(rejected(kHead + std::string(1, '\0') + text.substr(kHead.size())) ==
        "model.json:2:1: error: invalid JSON: a NUL byte, which JSON text cannot contain\n");
}

TEST_CASE("the strict parser reports where and what", "[engine][json]") {
  JsonError e;
  CHECK_FALSE(parse_strict_json(R"({"a": [1, {"b": 2, "c": 3, "b": 4}]})", &e));
  CHECK(e.kind == JsonError::Kind::kDuplicateKey);
  CHECK(e.key == "b");
  CHECK(e.object_pointer == "/a/1");
  CHECK(e.offset == 27);
  CHECK(e.first_offset == 11);

  // Keys with escapes are compared by their value: "\u0061" is "a".
  CHECK_FALSE(parse_strict_json(R"({"a": 1, "\u0061": 2})", &e));
  CHECK(e.kind == JsonError::Kind::kDuplicateKey);
  CHECK(e.offset == 9);
  CHECK(e.first_offset == 1);
  // Escaped quotes and backslashes do not confuse the located opening quote.
  CHECK_FALSE(parse_strict_json(R"({"q\"\\": 1, "q\"\\": 2})", &e));
  CHECK(e.offset == 13);

  // Equal keys in different objects are fine, and so are large objects of distinct keys.
  std::string big = "{";
  for (int i = 0; i < 1000; ++i) big += (i ? ",\"k" : "\"k") + std::to_string(i) + "\": {\"x\": 1}";
  std::map<std::string, size_t> keys;
  std::optional<nlohmann::json> ok = parse_strict_json(big + "}", &e, &keys);
  REQUIRE(ok);
  CHECK(ok->size() == 1000);
  CHECK(keys.at("k0") == 1);
  // ... and the 1001st key repeating the 500th is found in the big object.
  CHECK_FALSE(parse_strict_json(big + ", \"k500\": 0}", &e));
  CHECK(e.key == "k500");
  CHECK(e.object_pointer == "");

  CHECK_FALSE(parse_strict_json("{} x", &e));
  CHECK(e.kind == JsonError::Kind::kSyntax);
  CHECK(e.reason ==
        "syntax error while parsing value - invalid literal; last read: '{} x'; expected end of "
        "input");
  CHECK(e.offset == 3);
}
