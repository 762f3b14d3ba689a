// model.json's "weights" resolves inside the model's folder: absolute paths, '..', symlinks out
// and names cut short by a NUL are rejected at /weights before anything is read, unless the
// policy (--allow-path) allows the folder. Each case has a readable safetensors file outside the
// folder with the tensor the model needs, so a loader that followed the name would succeed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "engine/io/model_json.h"
#include "engine/io/safetensors.h"
#include "engine/io/safetensors_writer.h"
#include "tests/testing/test_paths.h"

using namespace graft;
using graft::testing::make_temp_dir;
using graft::testing::write_file;

namespace fs = std::filesystem;

namespace {

/// x + w, with w read from the weights file named `weights` (a JSON string literal's content).
std::string model_naming(const std::string& weights) {
  return "{\"format\": \"graft.model\", \"version\": 1,\n\"weights\": \"" + weights + "\",\n" +
         R"("nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [1], "dtype": "float32"}},
  {"name": "w", "op": "get_attr", "target": "w"},
  {"name": "s", "op": "call_function", "target": "add", "args": [{"node": "x"}, {"node": "w"}]},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "s"}]]}]})";
}

std::string weights_bytes(float value) {
  std::map<std::string, ConstantTensor> tensors;
  tensors["w"] = ConstantTensor::from_floats({1}, {value});
  return serialize_safetensors(tensors);
}

/// root/model/ holds model.json's weights (w.safetensors); root/outside.safetensors and
/// root/other/ lie outside it.
struct Layout {
  std::string root = make_temp_dir("weights_path");
  std::string model_dir = root + "/model";
  std::string outside = root + "/outside.safetensors";

  Layout() {
    write_file(model_dir + "/w.safetensors", weights_bytes(1));
    write_file(outside, weights_bytes(2));
    fs::create_directories(root + "/other");
  }

  struct Result {
    bool loaded = false;
    std::string diagnostics;
  };
  Result load(const std::string& weights, const PathPolicy& policy = {},
              const std::string& dir = "") const {
    std::string path = (dir.empty() ? model_dir : dir) + "/model.json";
    write_file(path, model_naming(weights));
    DiagnosticEngine diags;
    Result r;
    r.loaded = load_model(path, diags, policy).has_value();
    r.diagnostics = diags.render();
    return r;
  }
};

}  // namespace

TEST_CASE("weights in the model's folder load, also through a symlink that stays inside",
          "[engine][model_json][confine]") {
  Layout l;
  CHECK(l.load("w.safetensors").loaded);
  fs::create_symlink("w.safetensors", l.model_dir + "/alias.safetensors");
  CHECK(l.load("alias.safetensors").loaded);
  write_file(l.model_dir + "/sub/w.safetensors", weights_bytes(3));
  CHECK(l.load("sub/w.safetensors").loaded);
  CHECK(l.load("./sub/./w.safetensors").loaded);
  // The folder itself reached through a symlink: the comparison is between real locations.
  fs::create_directory_symlink(l.model_dir, l.root + "/model_link");
  Layout::Result r = l.load("w.safetensors", {}, l.root + "/model_link");
  INFO(r.diagnostics);
  CHECK(r.loaded);
}

TEST_CASE("weights named by an absolute path or through '..' are rejected at /weights",
          "[engine][model_json][confine][bad]") {
  Layout l;
  std::string model_json = l.model_dir + "/model.json";
  Layout::Result abs = l.load(l.outside);
  CHECK_FALSE(abs.loaded);
  CHECK(abs.diagnostics == model_json + ":2:1: /weights: error: '" + l.outside +
                               "' is an absolute path; files named here must lie in the model's "
                               "folder (--allow-path DIR also allows files under DIR)\n");
  Layout::Result up = l.load("../outside.safetensors");
  CHECK_FALSE(up.loaded);
  CHECK(up.diagnostics == model_json + ":2:1: /weights: error: '../outside.safetensors' leaves "
                              "the model's folder through '..' (--allow-path DIR also allows "
                              "files under DIR)\n");
  // '..' that comes back inside is refused too: the rule is about the name as written.
  CHECK_FALSE(l.load("sub/../w.safetensors").loaded);
}

TEST_CASE("weights behind a symlink that leads out of the model's folder are rejected",
          "[engine][model_json][confine][bad]") {
  Layout l;
  fs::create_symlink(l.outside, l.model_dir + "/link.safetensors");
  Layout::Result file = l.load("link.safetensors");
  CHECK_FALSE(file.loaded);
  std::string outside_real = fs::canonical(l.outside).string();
  std::string folder_real = fs::canonical(l.model_dir).string();
  CHECK(file.diagnostics == l.model_dir + "/model.json:2:1: /weights: error: 'link.safetensors' "
                                "resolves to '" + outside_real + "', outside the model's folder '" +
                                folder_real + "' (--allow-path DIR also allows files under DIR)\n");
  // A symlinked folder on the way out.
  fs::create_directory_symlink(l.root, l.model_dir + "/up");
  CHECK_THAT(l.load("up/outside.safetensors").diagnostics,
             Catch::Contains("'up/outside.safetensors' resolves to '" + outside_real + "'"));
}

TEST_CASE("a weights name with a NUL or another control character is rejected",
          "[engine][model_json][confine][bad]") {
  // The NUL would end the name for open(): "w.safetensors\0…" read w.safetensors.
  Layout l;
  Layout::Result nul = l.load("w.safetensors\\u0000.txt");
  CHECK_FALSE(nul.loaded);
  CHECK_THAT(nul.diagnostics,
             Catch::EndsWith(":2:1: /weights: error: 'w.safetensors\\x00.txt' contains the control "
                             "character \\x00; a file name cannot\n"));
  CHECK_THAT(l.load("w\\n.safetensors").diagnostics,
             Catch::Contains("'w\\x0a.safetensors' contains the control character \\x0a"));
}

TEST_CASE("folders the policy allows (--allow-path) admit weights outside the model's folder",
          "[engine][model_json][confine]") {
  Layout l;
  PathPolicy root{{l.root}};
  CHECK(l.load("../outside.safetensors", root).loaded);
  CHECK(l.load(l.outside, root).loaded);
  // Another folder allowed does not admit this one; the message says both were looked at.
  PathPolicy other{{l.root + "/other"}};
  Layout::Result r = l.load(l.outside, other);
  CHECK_FALSE(r.loaded);
  CHECK_THAT(r.diagnostics, Catch::EndsWith("outside the model's folder '" +
                                            fs::canonical(l.model_dir).string() +
                                            "' and every --allow-path folder\n"));
  // '/' allows any file.
  CHECK(l.load(l.outside, PathPolicy{{"/"}}).loaded);
}

TEST_CASE("an in-memory model resolves its weights in the base directory it is given",
          "[engine][model_json][confine][bad]") {
  Layout l;
  DiagnosticEngine diags;
  CHECK(load_model_from_string(model_naming("w.safetensors"), "m.json", l.model_dir, diags));
  CHECK_FALSE(load_model_from_string(model_naming("../outside.safetensors"), "m.json",
                                     l.model_dir, diags));
  CHECK_THAT(diags.render(), Catch::StartsWith("m.json:2:1: /weights: error: "));
}
