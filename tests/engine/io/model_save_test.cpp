// save_model's files (docs/model-format.md, "Saving"): weights named after their contents,
// removal of exactly the files this output's earlier saves wrote and no longer need, the
// output's lock and its record of a killed save, and values that cannot be saved.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <set>

#include "engine/io/model_json.h"
#include "engine/support/content_hash.h"
#include "tests/testing/test_paths.h"

using namespace graft;
using graft::testing::make_temp_dir;
using graft::testing::read_file;
using graft::testing::source_path;
using graft::testing::write_file;

namespace {

const char* const kExample = "examples/models/tiny_cnn/model.json";

Model load(const std::string& path) {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model(path, diags);
  INFO(path << "\n" << diags.render());
  REQUIRE(model);
  return std::move(*model);
}

void save(const Model& model, const std::string& path) {
  DiagnosticEngine diags;
  bool saved = save_model(model, path, diags);
  INFO(path << "\n" << diags.render());
  REQUIRE(saved);
}

/// Changes one weight, so that the next save writes another weights file.
void bump_weights(Model& model, float delta) {
  const ConstantTensor* bias = model.graph->constants().find("fc.bias");
  REQUIRE(bias != nullptr);
  std::vector<float> values(bias->f32(), bias->f32() + bias->numel());
  values[0] += delta;
  model.graph->constants().set("fc.bias", ConstantTensor::from_floats(bias->shape(), values));
}

std::string weights_of(const Model& model, const std::string& path) {
  return weights_file_for(path, content_hash(model_weights_bytes(model)));
}

/// The names in `dir`, hidden files included.
std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.insert(e.path().filename().string());
  }
  return names;
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

}  // namespace

TEST_CASE("a save replaces the weights its output named before, and only those",
          "[engine][model_save]") {
  Model model = load(source_path(kExample));
  std::string dir = make_temp_dir("model_save_replaces");
  // Files the earlier saves of m.json did not write: never touched, whatever their names.
  const std::vector<std::string> others = {
      "m.safetensors", "m.0123456789abcdef.safetensors", "m.json.0123456789abcdef.safetensors",
      "mm.json.0123456789abcdef.safetensors", ".m.json.tmp.AbC123"};
  for (const std::string& other : others) write_file(dir + "/" + other, "keep");

  save(model, dir + "/m.json");
  const std::string first = weights_of(model, dir + "/m.json");
  CHECK(std::filesystem::exists(first));
  bump_weights(model, 1.0f);
  save(model, dir + "/m.json");
  const std::string second = weights_of(model, dir + "/m.json");
  CHECK(second != first);
  CHECK_FALSE(std::filesystem::exists(first));
  CHECK_THAT(read_file(dir + "/m.json"), Catch::Contains(file_name(second)));
  CHECK(load(dir + "/m.json").graph->constants().find("fc.bias")->f32()[0] ==
        model.graph->constants().find("fc.bias")->f32()[0]);
  for (const std::string& other : others) CHECK(read_file(dir + "/" + other) == "keep");
  // No lock file or temporary is left either.
  std::set<std::string> expected(others.begin(), others.end());
  expected.insert({"m.json", file_name(second)});
  CHECK(files_in(dir) == expected);
}

TEST_CASE("a save leaves the files of other models in the folder, however they are named",
          "[engine][model_save]") {
  // `rewrite m.json -o m.fused` removed m.json's weights: they matched the pattern of the
  // output's own (the same stem, "m"), and the cleanup went by that pattern.
  Model model = load(source_path(kExample));
  std::string dir = make_temp_dir("model_save_others");
  save(model, dir + "/m.json");
  Model input = load(dir + "/m.json");
  for (const char* output : {"m.fused", "m.json.out", "m", "m.json.fused.json"}) {
    INFO(output);
    save(input, dir + "/" + output);  // the same weights as m.json's
    bump_weights(model, 1.0f);
    save(model, dir + "/" + output);  // replaces the first save's weights of this output
    CHECK(load(dir + "/" + output).graph->constants().find("fc.bias") != nullptr);
    CHECK(load(dir + "/m.json").graph->constants().find("fc.bias")->f32()[0] ==
          input.graph->constants().find("fc.bias")->f32()[0]);
  }
}

TEST_CASE("a save keeps the weights of the model it saves, unless that model is the output",
          "[engine][model_save]") {
  Model model = load(source_path(kExample));
  std::string dir = make_temp_dir("model_save_input");
  save(model, dir + "/m.json");
  const std::string original = weights_of(model, dir + "/m.json");

  SECTION("a copy of the output's model.json is the input: its weights stay") {
    std::filesystem::copy_file(dir + "/m.json", dir + "/copy.json");
    Model copy = load(dir + "/copy.json");
    bump_weights(copy, 1.0f);
    save(copy, dir + "/m.json");
    CHECK(std::filesystem::exists(original));
    load(dir + "/copy.json");
    load(dir + "/m.json");
  }
  SECTION("saved in place: the weights it replaces go") {
    Model in_place = load(dir + "/m.json");
    bump_weights(in_place, 1.0f);
    save(in_place, dir + "/m.json");
    CHECK_FALSE(std::filesystem::exists(original));
    CHECK(std::filesystem::exists(weights_of(in_place, dir + "/m.json")));
    load(dir + "/m.json");
  }
  SECTION("the exporter's fixed-name weights, saved in place: kept (no save wrote them)") {
    std::filesystem::copy_file(source_path(kExample), dir + "/model.json");
    std::filesystem::copy_file(source_path("examples/models/tiny_cnn/model.safetensors"),
                               dir + "/model.safetensors");
    Model exported = load(dir + "/model.json");
    save(exported, dir + "/model.json");
    CHECK(std::filesystem::exists(dir + "/model.safetensors"));
    load(dir + "/model.json");
  }
}

TEST_CASE("the next save removes what a killed save of the same output recorded",
          "[engine][model_save]") {
  Model model = load(source_path(kExample));
  std::string dir = make_temp_dir("model_save_killed");
  save(model, dir + "/m.json");
  const std::string current = file_name(weights_of(model, dir + "/m.json"));
  // A save killed after putting its weights in place, before its model.json: the lock file
  // names what it was creating. A name that is not one of m.json's own files is ignored, and
  // so is the file m.json names.
  write_file(dir + "/m.json.00000000deadbeef.safetensors", "orphan");
  write_file(dir + "/.m.json.tmp.Xy12Z3", "temporary");
  write_file(dir + "/other.json", "not m.json's");
  write_file(dir + "/.m.json.lock", "m.json.00000000deadbeef.safetensors\n.m.json.tmp.Xy12Z3\n" +
                                        current + "\nother.json\n../m.json\n");
  save(model, dir + "/m.json");  // the same weights: their file stays
  CHECK(files_in(dir) == std::set<std::string>{"m.json", current, "other.json"});
}

TEST_CASE("a model with a value JSON cannot hold is not saved", "[engine][model_save]") {
  Model model = load(source_path(kExample));
  std::string dir = make_temp_dir("model_save_values");
  Node* add = nullptr;
  for (Node* n : model.graph->nodes()) {
    if (n->is_op("add")) add = n;
  }
  REQUIRE(add != nullptr);
  SECTION("an integer scalar beyond int64") {
    model.graph->replace_input(add, 1, Input::of(Scalar{0x1p64, true}));
  }
  DiagnosticEngine diags;
  CHECK_FALSE(save_model(model, dir + "/m.json", diags));
  CHECK_THAT(diags.render(),
             Catch::Contains("cannot save node '" + add->name() + "': scalar operand"));
  CHECK(std::filesystem::is_empty(dir));
}
