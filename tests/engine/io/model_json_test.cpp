// model.json: loading the bundled example, canonical round trips, and one test per kind of bad
// input (docs/model-format.md, "Loading: what is checked"): each asserts the JSON path and
// the message, and that nothing is loaded.
#include "engine/io/model_json.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <regex>

#include "engine/io/json_limits.h"
#include "engine/io/json_values.h"
#include "engine/io/safetensors.h"
#include "engine/ir/verifier.h"
#include "engine/support/content_hash.h"
#include "tests/testing/test_paths.h"

using namespace graft;
using graft::testing::make_temp_dir;
using graft::testing::read_file;
using graft::testing::source_path;
using graft::testing::write_file;

namespace {

const char* const kExample = "examples/models/tiny_cnn/model.json";

/// A minimal valid model around `nodes` (a JSON array body) with optional extra top-level keys.
std::string model_text(const std::string& nodes, const std::string& extra = "") {
  return R"({"format": "graft.model", "version": 1, )" + extra + R"("nodes": [)" + nodes + "]}";
}

const std::string kInput =
    R"({"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": ["N", 3, 8, 8], "dtype": "float32"}})";
const std::string kOutputX = R"({"name": "output", "op": "output", "target": "output", "args": [[{"node": "x"}]]})";

struct Loaded {
  std::optional<Model> model;
  std::string diagnostics;
};

Loaded load_text(const std::string& text, const std::string& dir = ".") {
  DiagnosticEngine diags;
  Loaded out;
  out.model = load_model_from_string(text, "model.json", dir, diags);
  out.diagnostics = diags.render();
  return out;
}

/// Loads `text` expecting failure; returns the diagnostics.
std::string rejected(const std::string& text, const std::string& dir = ".") {
  Loaded l = load_text(text, dir);
  CHECK_FALSE(l.model.has_value());
  return l.diagnostics;
}

}  // namespace

TEST_CASE("the bundled example loads, verifies and has the documented structure",
          "[engine][model_json]") {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model(source_path(kExample), diags);
  INFO(diags.render());
  REQUIRE(model);
  CHECK(verify_graph(*model->graph, diags));
  int convs = 0, bns = 0, adds = 0;
  for (const Node* n : model->graph->nodes()) {
    convs += n->is_op("conv2d");
    bns += n->is_op("batch_norm");
    adds += n->is_op("add");
  }
  CHECK(convs == 4);
  CHECK(bns == 4);
  CHECK(adds == 1);
  const Node* fc = model->graph->find("fc");
  REQUIRE(fc != nullptr);
  REQUIRE(fc->type());
  CHECK(type_to_string(*fc->type()) == "float32[N, 10]");
  CHECK(model->metadata["seed"] == 20261123);
}

TEST_CASE("save then load then save gives the same bytes", "[engine][model_json]") {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model(source_path(kExample), diags);
  REQUIRE(model);
  std::string dir = make_temp_dir("model_json_roundtrip");
  REQUIRE(save_model(*model, dir + "/a.json", diags));
  const std::string hash = hash_hex(content_hash(model_weights_bytes(*model)));
  CHECK(std::filesystem::exists(dir + "/a.json." + hash + ".safetensors"));
  std::optional<Model> again = load_model(dir + "/a.json", diags);
  INFO(diags.render());
  REQUIRE(again);
  REQUIRE(save_model(*again, dir + "/b.json", diags));
  std::string a = read_file(dir + "/a.json");
  std::string b = read_file(dir + "/b.json");
  // Only the weights file name differs: same contents, same hash.
  CHECK(b == std::regex_replace(a, std::regex("\"a\\.json\\."), "\"b.json."));
  CHECK(read_file(dir + "/a.json." + hash + ".safetensors") ==
        read_file(dir + "/b.json." + hash + ".safetensors"));
  // Weights are carried byte for byte.
  for (const auto& entry : model->graph->constants().all()) {
    const ConstantTensor& t = entry.tensor;
    const ConstantTensor* u = again->graph->constants().find(entry.key);
    REQUIRE(u != nullptr);
    CHECK(u->type() == t.type());
    CHECK(std::memcmp(u->data, t.data, t.nbytes) == 0);
  }
}

TEST_CASE("a saved unknown dim loads back; a placeholder cannot declare one", "[engine][model_json]") {
  // Fuzzing found that flatten of [N, 3, 8, 8] saved its meta shape as ["?"], which the loader
  // then rejected: rewrite wrote models it could not read.
  std::string flatten =
      R"({"name": "f", "op": "call_function", "target": "flatten", "args": [{"node": "x"}]})";
  std::string output = R"({"name": "output", "op": "output", "args": [[{"node": "f"}]]})";
  Loaded first = load_text(model_text(kInput + ", " + flatten + ", " + output));
  INFO(first.diagnostics);
  REQUIRE(first.model);
  std::string saved = model_to_json_text(*first.model, "");
  CHECK(saved.find(R"("shape":["?"])") != std::string::npos);
  Loaded again = load_text(saved);
  INFO(again.diagnostics);
  REQUIRE(again.model);
  CHECK(model_to_json_text(*again.model, "") == saved);

  std::string unknown_input =
      R"({"name": "x", "op": "placeholder", "meta": {"shape": ["?", 3], "dtype": "float32"}})";
  CHECK(rejected(model_text(unknown_input + ", " + kOutputX)) ==
        "model.json: /nodes/0/meta/shape/0: error: a dim is a non-negative int or a symbol such "
        "as \"N\", got \"?\"\n");
}

TEST_CASE("saving normalises the call convention", "[engine][model_json]") {
  std::string text = model_text(
      kInput + "," +
      R"({"name": "w", "op": "get_attr", "target": "w"},
         {"name": "conv", "op": "call_function", "target": "conv2d",
          "args": [{"node": "x"}, {"node": "w"}, null, 1, [1, 1]], "kwargs": {"groups": 1}},
         {"name": "ln", "op": "call_function", "target": "layer_norm",
          "args": [{"node": "conv"}, [10]], "kwargs": {"eps": 1e-05}},
         {"name": "mul", "op": "call_function", "target": "mul", "args": [{"node": "ln"}, 0.5]},
         {"name": "add", "op": "call_function", "target": "add", "args": [{"node": "mul"}, 1]},
         {"name": "output", "op": "output", "target": "output", "args": [[{"node": "add"}]]})",
      R"("tensors": {"w": {"dtype": "float32", "shape": [4, 3, 1, 1], "data": [1,2,3,4,5,6,7,8,9,10,11,12]}}, )");
  Loaded l = load_text(text);
  INFO(l.diagnostics);
  REQUIRE(l.model);
  std::string saved = model_to_json_text(*l.model, "w.safetensors");
  CHECK(saved.find(R"("args":[{"node":"x"},{"node":"w"}],"kwargs":{"padding":[1,1]})") !=
        std::string::npos);
  CHECK(saved.find(R"("args":[{"node":"conv"}],"kwargs":{"normalized_shape":[10]})") !=
        std::string::npos);
  CHECK(saved.find(R"("args":[{"node":"ln"},0.5])") != std::string::npos);
  CHECK(saved.find(R"("args":[{"node":"mul"},1])") != std::string::npos);  // int stays int
  CHECK(saved.find(R"("meta":{"shape":["N",4,10,10],"dtype":"float32"})") != std::string::npos);
}

TEST_CASE("kwargs bind by name, aliases resolve, inline tensors load", "[engine][model_json]") {
  std::string text = model_text(
      kInput + "," +
      R"({"name": "v", "op": "call_function", "target": "view", "kwargs": {"input": {"node": "x"}, "shape": [-1, 192]}},
         {"name": "output", "op": "output", "target": "output", "args": [{"node": "v"}]})");
  Loaded l = load_text(text);
  INFO(l.diagnostics);
  REQUIRE(l.model);
  const Node* v = l.model->graph->find("v");
  CHECK(v->target() == "reshape");
  CHECK(type_to_string(*v->type()) == "float32[N, 192]");
}

TEST_CASE("inline tensor values must fit their dtype", "[engine][model_json][bad]") {
  // Fuzzing found that 1e77 in an inline tensor was converted to int64 (undefined behaviour)
  // whatever the tensor's dtype; values are now range-checked before any conversion.
  auto tensor = [](const std::string& dtype, const std::string& value) {
    return model_text(kInput + ", " + kOutputX, R"("tensors": {"t": {"dtype": ")" + dtype +
                                                     R"(", "shape": [2], "data": [0, )" + value +
                                                     "]}}, ");
  };
  struct Bad {
    const char* dtype;
    const char* value;
    const char* message;
  };
  const Bad bad[] = {
      {"float32", "1e77",
       "model.json: /tensors/t/data/1: error: 1e+77 is not a value of dtype float32 (out of "
       "range)\n"},
      {"int8", "128",
       "model.json: /tensors/t/data/1: error: 128 is not a value of dtype int8 (a whole number "
       "in range)\n"},
      {"int64", "1.5",
       "model.json: /tensors/t/data/1: error: 1.5 is not a value of dtype int64 (a whole number "
       "in range)\n"},
      {"int64", "9223372036854775808",
       "model.json: /tensors/t/data/1: error: 9223372036854775808 is not a value of dtype int64 "
       "(a whole number in range)\n"},
  };
  for (const Bad& b : bad) {
    INFO(b.dtype << " " << b.value);
    CHECK(rejected(tensor(b.dtype, b.value)) == b.message);
  }
  for (const char* ok : {"-128", "-9.0"}) {
    Loaded l = load_text(tensor("int8", ok));
    INFO(l.diagnostics);
    CHECK(l.model);
  }
  Loaded l = load_text(tensor("float64", "1e300"));
  CHECK(l.model);
}

TEST_CASE("an integer scalar operand must have an exact float64 value within int64",
          "[engine][model_json][bad]") {
  // graft computes with scalar operands as float64: 2^64 - 1 used to load as 2^64 and be saved
  // as -2^63 (an out-of-range conversion, undefined behaviour), so the saved model computed
  // something else.
  auto add = [](const std::string& scalar) {
    return model_text(
        R"({"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2], "dtype": "int64"}},
           {"name": "a", "op": "call_function", "target": "add", "args": [{"node": "x"}, )" +
        scalar + R"(]}, {"name": "output", "op": "output", "target": "output", "args": [[{"node": "a"}]]})");
  };
  CHECK(rejected(add("18446744073709551615")) ==
        "model.json: /nodes/1/args/1: error: integer 18446744073709551615 does not fit in int64\n");
  CHECK(rejected(add("9223372036854775807")) ==
        "model.json: /nodes/1/args/1: error: integer 9223372036854775807 has no exact float64 "
        "value, which graft computes scalar operands in (it would become 9.223372036854776e+18)\n");
  CHECK_THAT(rejected(add("-9007199254740993")), Catch::Contains("/nodes/1/args/1: error:"));
  // What float64 holds exactly is kept exactly, through a save.
  for (const char* exact : {"9007199254740992", "-9223372036854775808", "4611686018427387904"}) {
    Loaded l = load_text(add(exact));
    INFO(exact << "\n" << l.diagnostics);
    REQUIRE(l.model);
    CHECK_THAT(model_to_json_text(*l.model, ""),
               Catch::Contains(std::string("{\"node\":\"x\"},") + exact + "]"));
  }
}

TEST_CASE("an inline tensor cannot take the name safetensors reserves for metadata",
          "[engine][model_json][bad]") {
  // Saving such a tensor into the weights file ended in an assertion (exit 3).
  std::string text = model_text(
      kInput + ", " + kOutputX,
      R"("tensors": {"__metadata__": {"dtype": "float32", "shape": [1], "data": [1]}}, )");
  CHECK(rejected(text) ==
        "model.json: /tensors/__metadata__: error: a tensor cannot be named '__metadata__': "
        "safetensors reserves that name for a file's metadata\n");
}

// ** bad input: one test per documented check **

TEST_CASE("invalid JSON is reported with line and column", "[engine][model_json][bad]") {
  std::string d = rejected("{\"format\": \"graft.model\",\n  \"version\": 1,\n  \"nodes\": [}\n");
  CHECK_THAT(d, Catch::StartsWith("model.json:3:13: error: invalid JSON: syntax error"));
}

TEST_CASE("a number too large for a double is invalid JSON, located", "[engine][model_json][bad]") {
  // Fuzzing found that nlohmann reports it as out_of_range, not parse_error, and the loader let
  // that exception escape (std::terminate).
  CHECK(rejected("{\"format\": \"graft.model\",\n \"version\": 1e400}") ==
        "model.json:2:13: error: invalid JSON: number overflow parsing '1e400'\n");
}

TEST_CASE("JSON nested too deeply is rejected before anything recurses into it",
          "[engine][model_json][bad]") {
  // Fuzzing found that a deep value anywhere (here "weights") overflowed the stack while its
  // error message dumped it; the limit now stops such files at the first bracket too deep.
  std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  std::string text = model_text(kInput + ", " + kOutputX, "\"weights\": " + deep + ", ");
  CHECK(rejected(text) == "model.json:1:" + std::to_string(51 + kMaxJsonDepth) +
                              ": error: JSON nested more than 256 levels deep; a model.json "
                              "needs a handful\n");
  // Brackets inside strings do not count, and the limit itself is accepted.
  std::string fine = std::string(kMaxJsonDepth - 1, '[') + std::string(kMaxJsonDepth - 1, ']');
  CHECK(find_excess_nesting(R"({"a": "[[[[[[", "b": )" + fine + "}") == std::string_view::npos);
}

TEST_CASE("a wrong format name or version is rejected", "[engine][model_json][bad]") {
  CHECK_THAT(rejected(R"({"format": "onnx", "version": 1, "nodes": []})"),
             Catch::Contains("model.json: /format: error: unsupported format \"onnx\": expected "
                             "\"graft.model\""));
  CHECK_THAT(rejected(R"({"format": "graft.model", "version": 2, "nodes": []})"),
             Catch::Contains("/version: error: unsupported version 2: this graft reads version 1"));
  CHECK_THAT(rejected(R"({"version": 1, "nodes": []})"),
             Catch::Contains("error: missing \"format\""));
  CHECK_THAT(rejected("[1, 2]"), Catch::Contains("expected a JSON object"));
}

TEST_CASE("unknown keys are rejected with a suggestion", "[engine][model_json][bad]") {
  CHECK_THAT(rejected(model_text(kInput + "," + kOutputX, R"("weight": "w.safetensors", )")),
             Catch::Contains("model.json: /weight: error: unknown top-level key 'weight' (did you "
                             "mean 'weights'?)"));
  CHECK_THAT(rejected(model_text(
                 R"({"name": "x", "op": "placeholder", "target": "x", "metta": {}},)" + kOutputX)),
             Catch::Contains("/nodes/0/metta: error: unknown node key 'metta' (did you mean 'meta'?)"));
}

TEST_CASE("an unknown op gets a did-you-mean", "[engine][model_json][bad]") {
  std::string d = rejected(model_text(
      kInput + "," +
      R"({"name": "r", "op": "call_function", "target": "rellu", "args": [{"node": "x"}]},)" +
      kOutputX));
  CHECK_THAT(d, Catch::Contains("/nodes/1/target: error: unknown op 'rellu' (did you mean 'relu'?)"));
  CHECK_THAT(rejected(model_text(R"({"name": "x", "op": "call_module", "target": "x"},)" + kOutputX)),
             Catch::Contains("/nodes/0/op: error: unknown node op 'call_module'"));
}

TEST_CASE("duplicate node names are rejected", "[engine][model_json][bad]") {
  std::string d = rejected(model_text(kInput + "," + kInput + "," + kOutputX));
  CHECK_THAT(d, Catch::Contains("/nodes/1/name: error: duplicate node name 'x' (first defined at "
                                "/nodes/0)"));
}

TEST_CASE("references to undefined or later nodes are rejected", "[engine][model_json][bad]") {
  std::string undefined = rejected(model_text(
      kInput + "," +
      R"({"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "y"}]},)" +
      kOutputX));
  CHECK_THAT(undefined, Catch::Contains("/nodes/1/args/0: error: reference to undefined node 'y'"));
  // a -> b -> a: the first reference is to a later node, which a cycle always needs.
  std::string cycle = rejected(model_text(
      kInput + "," +
      R"({"name": "a", "op": "call_function", "target": "relu", "args": [{"node": "b"}]},
         {"name": "b", "op": "call_function", "target": "relu", "args": [{"node": "a"}]},)" +
      kOutputX));
  CHECK_THAT(cycle, Catch::Contains("/nodes/1/args/0: error: reference to node 'b', which is "
                                    "defined later (at /nodes/2)"));
  // A plain string is never a node reference.
  CHECK_THAT(rejected(model_text(kInput + "," +
                                 R"({"name": "r", "op": "call_function", "target": "relu", "args": ["x"]},)" +
                                 kOutputX)),
             Catch::Contains("/nodes/1/args/0: error: expected a node reference {\"node\": name}, got \"x\""));
}

TEST_CASE("wrong arity is rejected", "[engine][model_json][bad]") {
  CHECK_THAT(rejected(model_text(kInput + "," +
                                 R"({"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "x"}, {"node": "x"}]},)" +
                                 kOutputX)),
             Catch::Contains("/nodes/1/args: error: relu() takes at most 1 arguments (2 given)"));
  CHECK_THAT(rejected(model_text(kInput + "," +
                                 R"({"name": "c", "op": "call_function", "target": "conv2d", "args": [{"node": "x"}]},)" +
                                 kOutputX)),
             Catch::Contains("/nodes/1: error: conv2d() is missing its tensor argument 'weight'"));
  CHECK_THAT(rejected(model_text(kInput + "," +
                                 R"({"name": "c", "op": "call_function", "target": "relu", "args": [{"node": "x"}], "kwargs": {"input": {"node": "x"}}},)" +
                                 kOutputX)),
             Catch::Contains("/nodes/1/kwargs/input: error: relu() got parameter 'input' twice"));
  CHECK_THAT(rejected(model_text(kInput + "," +
                                 R"({"name": "c", "op": "call_function", "target": "softmax", "args": [{"node": "x"}], "kwargs": {"dimm": 1}},)" +
                                 kOutputX)),
             Catch::Contains("/nodes/1/kwargs/dimm: error: softmax() has no parameter 'dimm' (did "
                             "you mean 'dim'?)"));
}

TEST_CASE("a wrong attribute type is rejected", "[engine][model_json][bad]") {
  std::string d = rejected(model_text(
      kInput + "," +
      R"({"name": "s", "op": "call_function", "target": "softmax", "args": [{"node": "x"}], "kwargs": {"dim": "1"}},)" +
      kOutputX));
  CHECK_THAT(d, Catch::Contains("/nodes/1/kwargs/dim: error: softmax(): bad value for 'dim': "
                                "expected int, got str '1'"));
}

TEST_CASE("a str attribute outside its op's choices is rejected at its key",
          "[engine][model_json][bad]") {
  std::string d = rejected(model_text(
      kInput + "," +
      R"({"name": "w", "op": "placeholder", "target": "w", "meta": {"shape": [4, 8], "dtype": "float32"}},)" +
      R"({"name": "l", "op": "call_function", "target": "linear_post", "args": [{"node": "x"}, {"node": "w"}], "kwargs": {"activation": "rellu"}},)" +
      kOutputX));
  CHECK_THAT(d, Catch::Contains("/nodes/2/kwargs/activation: error: linear_post(): bad value for "
                                "'activation': expected one of 'none', 'relu', "));
  CHECK_THAT(d, Catch::Contains("got str 'rellu' (did you mean 'relu'?)"));
}

TEST_CASE("a missing or misplaced output node is rejected", "[engine][model_json][bad]") {
  CHECK_THAT(rejected(model_text(kInput)),
             Catch::Contains("/nodes: error: the graph has no output node"));
  CHECK_THAT(rejected(model_text(kOutputX + "," + kInput)),
             Catch::Contains("/nodes/0: error: the output node must be the last node"));
}

TEST_CASE("an empty graph is rejected", "[engine][model_json][bad]") {
  CHECK_THAT(rejected(model_text("")), Catch::Contains("/nodes: error: the graph is empty"));
}

TEST_CASE("a missing weights file is rejected", "[engine][model_json][bad]") {
  std::string d = rejected(model_text(kInput + "," + kOutputX, R"("weights": "nope.safetensors", )"),
                           make_temp_dir("model_json_missing_weights"));
  CHECK_THAT(d, Catch::Contains("nope.safetensors"));
  CHECK_THAT(d, Catch::Contains("No such file or directory"));
}

TEST_CASE("a get_attr of a tensor that does not exist is rejected", "[engine][model_json][bad]") {
  std::string d = rejected(model_text(
      kInput + "," + R"({"name": "w", "op": "get_attr", "target": "conv.wieght"},)" + kOutputX,
      R"("tensors": {"conv.weight": {"dtype": "float32", "shape": [1], "data": [1]}}, )"));
  CHECK_THAT(d, Catch::Contains("/nodes/1/target: error: no tensor named 'conv.wieght' in the "
                                "weights (did you mean 'conv.weight'?)"));
}

TEST_CASE("shape and dtype mismatches with the graph are rejected", "[engine][model_json][bad]") {
  // meta that disagrees with the stored tensor
  std::string stored = R"("tensors": {"w": {"dtype": "float32", "shape": [2], "data": [1, 2]}}, )";
  CHECK_THAT(rejected(model_text(
                 kInput + "," +
                     R"({"name": "w", "op": "get_attr", "target": "w", "meta": {"shape": [3], "dtype": "float32"}},)" +
                     kOutputX,
                 stored)),
             Catch::Contains("/nodes/1/meta: error: meta says float32[3] but tensor 'w' is float32[2]"));
  // a weight whose shape the op rejects
  std::string conv_w = R"("tensors": {"w": {"dtype": "float32", "shape": [4, 2, 1, 1], "data": [1,2,3,4,5,6,7,8]}}, )";
  CHECK_THAT(rejected(model_text(
                 kInput + "," + R"({"name": "w", "op": "get_attr", "target": "w"},
                   {"name": "c", "op": "call_function", "target": "conv2d", "args": [{"node": "x"}, {"node": "w"}]},)" +
                     kOutputX,
                 conv_w)),
             Catch::Contains("/nodes/2: error: node 'c' (conv2d): input has 3 channels"));
  // call meta that disagrees with inference
  CHECK_THAT(rejected(model_text(
                 kInput + "," +
                 R"({"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "x"}], "meta": {"shape": ["N", 3, 8, 9], "dtype": "float32"}},)" +
                 kOutputX)),
             Catch::Contains("/nodes/1/meta: error: meta says float32[N, 3, 8, 9] but the inputs "
                             "give float32[N, 3, 8, 8]"));
  // inline data of the wrong length
  CHECK_THAT(rejected(model_text(kInput + "," + kOutputX,
                                 R"("tensors": {"w": {"dtype": "float32", "shape": [2, 2], "data": [1, 2, 3]}}, )")),
             Catch::Contains("/tensors/w/data: error: shape [2, 2] needs 4 values, got 3"));
}

TEST_CASE("a placeholder without a type is rejected", "[engine][model_json][bad]") {
  CHECK_THAT(rejected(model_text(R"({"name": "x", "op": "placeholder", "target": "x"},)" + kOutputX)),
             Catch::Contains("/nodes/0/meta: error: a placeholder needs \"meta\""));
  CHECK_THAT(rejected(model_text(
                 R"({"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [1, -3], "dtype": "float23"}},)" +
                 kOutputX)),
             Catch::Contains("/nodes/0/meta/dtype: error: unknown dtype 'float23'"));
}

TEST_CASE("every problem in a file is reported in one run", "[engine][model_json][bad]") {
  Loaded l = load_text(model_text(
      kInput + "," +
      R"({"name": "a", "op": "call_function", "target": "rellu", "args": [{"node": "x"}]},
         {"name": "b", "op": "call_function", "target": "relu", "args": [{"node": "a"}]},
         {"name": "c", "op": "call_function", "target": "relu", "args": [{"node": "zz"}]},)" +
      kOutputX));
  CHECK_FALSE(l.model);
  CHECK_THAT(l.diagnostics, Catch::Contains("/nodes/1/target"));
  CHECK_THAT(l.diagnostics, Catch::Contains("/nodes/3/args/0"));
  // b only failed because a did: no follow-on error for it.
  CHECK_THAT(l.diagnostics, !Catch::Contains("/nodes/2"));
}

TEST_CASE("resource limits: oversized tensors, deep nesting, huge files", "[engine][model_json][bad]") {
  auto with_input_shape = [](const std::string& shape) {
    return model_text(R"({"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": )" +
                      shape + R"(, "dtype": "float32"}},)" + kOutputX);
  };
  // The element count overflows int64: rejected at the shape, not wrapped around.
  CHECK_THAT(rejected(with_input_shape("[4611686018427387904, 4]")),
             Catch::Contains("/nodes/0/meta/shape: error: float32[4611686018427387904, 4] would "
                             "take more than 256 TiB"));
  CHECK_THAT(rejected(with_input_shape("[\"N\", 1099511627776, 1099511627776]")),
             Catch::Contains("more than 256 TiB"));
  // Empty is not an overflow.
  CHECK(load_text(with_input_shape("[4611686018427387904, 4611686018427387904, 0]")).model);
  // A result that overflows, from inputs that do not.
  std::string product = model_text(
      R"({"name": "a", "op": "placeholder", "target": "a", "meta": {"shape": [16777216, 1], "dtype": "float32"}},
         {"name": "b", "op": "placeholder", "target": "b", "meta": {"shape": [1, 16777216], "dtype": "float32"}},
         {"name": "s", "op": "call_function", "target": "add", "args": [{"node": "a"}, {"node": "b"}]},
         {"name": "output", "op": "output", "target": "output", "args": [[{"node": "s"}]]})");
  CHECK_THAT(rejected(product), Catch::Contains("float32[16777216, 16777216] would take more than"));

  // Nesting deep enough to overflow the stack when the document is copied or destroyed.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK_THAT(rejected(model_text(kInput + "," + kOutputX, R"("metadata": {"x": )" + deep + "}, ")),
             Catch::Contains("model.json:1:") && Catch::Contains("nested more than 256 levels"));
  // A file too large to parse is refused before it is read (a sparse file: no disk used).
  std::string dir = make_temp_dir("model_json_huge");
  write_file(dir + "/huge.json", "{");
  std::filesystem::resize_file(dir + "/huge.json", (uintmax_t{1} << 30) + 1);
  DiagnosticEngine diags;
  CHECK_FALSE(load_model(dir + "/huge.json", diags));
  CHECK_THAT(diags.render(), Catch::Contains("graft reads model.json files up to 1024 MiB"));
}

TEST_CASE("a model path that cannot be read is rejected", "[engine][model_json][bad]") {
  DiagnosticEngine diags;
  CHECK_FALSE(load_model("/nonexistent/model.json", diags));
  CHECK_THAT(diags.render(), Catch::Contains("/nonexistent/model.json: error: cannot open"));
  CHECK_FALSE(load_model(make_temp_dir("model_json_dir"), diags));
  CHECK_THAT(diags.render(), Catch::Contains("is a directory"));
}

TEST_CASE("an empty model.json file is rejected as JSON without a value",
          "[engine][model_json][bad]") {
  // Nothing to map: the loader reads an empty text, as it did when it copied the file.
  std::string dir = make_temp_dir("model_json_empty");
  write_file(dir + "/empty.json", "");
  DiagnosticEngine diags;
  CHECK_FALSE(load_model(dir + "/empty.json", diags));
  CHECK(diags.render() == dir +
                              "/empty.json:1:1: error: invalid JSON: syntax error while parsing "
                              "value - unexpected end of input; expected '[', '{', or a literal\n");
}
