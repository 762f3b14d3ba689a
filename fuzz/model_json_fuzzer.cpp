// fuzz_model_json: the model.json loader (engine/io/model_json.h) on arbitrary bytes as the JSON
// text, then the verifier and a save/load round trip of every accepted model.
//
// Weights: the loader resolves "weights" in its base directory, here a scratch directory
// holding one valid file, model.safetensors (the tiny_cnn example's, so its model.json seed
// loads whole). The loader's confinement (engine/support/confined_path.h) keeps every name
// inside that directory — absolute paths, '..' and control characters are rejected before any
// file is opened — so runs are hermetic without filtering inputs, and the confinement itself
// is fuzzed; a name that does not exist exercises the missing-weights path.
//
// Checks: the loader's JSON reader accepts the input exactly when the strict parser does, whose
// messages the loader prints; a rejection comes with an error; an accepted graph passes the
// verifier; saving it
// (model_to_json_text + model_weights_bytes) and loading that again gives a model that saves
// to the same bytes (model_json_save.cpp promises canonical output).
#include <string>

#include "engine/io/json_limits.h"
#include "engine/io/json_reader.h"
#include "engine/io/model_json.h"
#include "engine/io/strict_json.h"
#include "engine/ir/verifier.h"
#include "fuzz/fuzz_support.h"

namespace {

using graft::DiagnosticEngine;
using graft::Model;
using graft::fuzz::fail;

void check_round_trip(const Model& model, const std::string& input) {
  const std::string& dir = graft::fuzz::example_weights_dir();
  std::string text = graft::model_to_json_text(model, "round_trip.safetensors");
  std::string weights = graft::model_weights_bytes(model);
  graft::fuzz::write_file(dir + "/round_trip.safetensors", weights);
  DiagnosticEngine diags;
  std::optional<Model> again = graft::load_model_from_string(text, "saved.json", dir, diags);
  if (!again) fail("model.json: saved model rejected", input + "\n--- saved:\n" + text + "\n" + diags.render());
  std::string text2 = graft::model_to_json_text(*again, "round_trip.safetensors");
  if (text2 != text) {
    fail("model.json: save is not canonical", "--- first save:\n" + text + "\n--- second save:\n" + text2);
  }
  if (graft::model_weights_bytes(*again) != weights) fail("model.json: weights round trip", text);
}

void check_reader_agrees(const std::string& text) {
  graft::JsonReader reader(text);
  graft::JsonTape tape(text);
  bool read = reader.begin_document() && reader.read_value(tape, 0) && reader.end_document();
  graft::JsonError error;
  bool parsed = graft::find_excess_nesting(text) == std::string::npos &&
                graft::parse_strict_json(text, &error).has_value();
  if (read != parsed) {
    fail(read ? "json: the reader accepted what the strict parser rejects"
              : "json: the reader rejected what the strict parser accepts",
         text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  check_reader_agrees(text);
  DiagnosticEngine diags;
  std::optional<Model> model =
      graft::load_model_from_string(text, "fuzz.json", graft::fuzz::example_weights_dir(), diags);
  std::string rendered = diags.render();
  if (!model) {
    if (!diags.has_errors()) fail("model.json: rejected without an error", text);
    return 0;
  }
  if (!graft::verify_graph(*model->graph, diags, "fuzz.json")) {
    fail("model.json: the loader accepted a graph the verifier rejects", text + "\n" + diags.render());
  }
  check_round_trip(*model, text);
  return 0;
}
