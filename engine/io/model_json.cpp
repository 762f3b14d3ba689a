// The model.json loader's entry points and its reading of the text. The top-level object is
// read member by member and the "nodes" array one node at a time into a reused JsonTape, so
// the loader never holds a tree of the whole document; a file's text is a mapping whose pages
// the reader hands back as it passes them, so memory is the graph's.
// Everything is reported only once the text has been read to its end: a file that is not JSON
// gets its JSON error alone (nlohmann's message, with line:col, as it always had), and any
// other file every problem found, each with its JSON pointer.
#include "engine/io/model_json.h"

#include <filesystem>
#include <limits>

#include "engine/io/json_limits.h"
#include "engine/io/json_reader.h"
#include "engine/io/model_loader.h"
#include "engine/io/strict_json.h"
#include "engine/support/input_file.h"
#include "engine/support/mapped_file.h"

namespace graft {

size_t StagedDiagnostics::error(DiagLocation loc, std::string message) {
  ++errors_;
  if (!storing()) return kNotStored;
  ++stored_errors_;
  stored_.push_back(Diagnostic{Severity::kError, std::move(loc), std::move(message), {}});
  return stored_.size() - 1;
}

void StagedDiagnostics::absorb(const DiagnosticEngine& diags) {
  for (const Diagnostic& d : diags.diagnostics()) {
    if (!storing()) break;
    stored_.push_back(d);
    if (d.severity == Severity::kError) ++stored_errors_;
  }
  errors_ += diags.error_count();
}

void StagedDiagnostics::flush_to(DiagnosticEngine& diags) const {
  for (const Diagnostic& d : stored_) {
    Diagnostic& copy = diags.report(d.severity, d.loc, d.message);
    for (const Diagnostic& note : d.notes) DiagnosticEngine::add_note(copy, note.loc, note.message);
  }
  for (int i = stored_errors_; i < errors_; ++i) diags.error(DiagLocation{}, "");  // counted only
}

namespace {

/// "model.json:LINE:COL" of byte `offset` of the text.
DiagLocation at_offset(const std::string& file, std::string_view text, size_t offset) {
  auto [line, col] = json_line_col(text, offset);
  return DiagLocation::in_file(file + ":" + std::to_string(line) + ":" + std::to_string(col));
}

/// Reports why the reader rejected `text`, in the words of the checks it implements:
/// find_excess_nesting, then parse_strict_json.
void report_invalid_json(const std::string& file, std::string_view text, const JsonReader& reader,
                         DiagnosticEngine& diags) {
  if (size_t deep = find_excess_nesting(text); deep != std::string::npos) {
    diags.error(at_offset(file, text, deep), "JSON nested more than " +
                                                 std::to_string(kMaxJsonDepth) +
                                                 " levels deep; a model.json needs a handful");
    return;
  }
  JsonError bad;
  if (parse_strict_json(text, &bad)) {  // the two disagree: say what the reader found
    diags.error(at_offset(file, text, reader.error_offset()),
                "invalid JSON: " + reader.error_reason());
    return;
  }
  DiagLocation at = bad.offset == std::string::npos ? DiagLocation::in_file(file)
                                                    : at_offset(file, text, bad.offset);
  switch (bad.kind) {
    case JsonError::Kind::kSyntax:
      diags.error(at, "invalid JSON: " + bad.reason);
      break;
    case JsonError::Kind::kNul:
      diags.error(at, "invalid JSON: a NUL byte, which JSON text cannot contain");
      break;
    case JsonError::Kind::kDuplicateKey: {
      auto [line, col] = json_line_col(text, bad.first_offset);
      diags.error(at, "duplicate key '" + bad.key + "' in " +
                          (bad.object_pointer.empty() ? std::string("the top-level object")
                                                      : bad.object_pointer) +
                          " (first given at " + std::to_string(line) + ":" + std::to_string(col) +
                          ")");
      break;
    }
  }
}

/// One reading of a model.json text.
class ModelText {
 public:
  ModelText(const std::string& file, const std::string& base_dir, const PathPolicy& policy,
            std::string_view text, DiagnosticEngine& diags, MappedFile* mapping)
      : file_(file),
        base_dir_(base_dir),
        policy_(policy),
        text_(text),
        diags_(diags),
        mapping_(mapping) {}

  std::optional<Model> load();

 private:
  /// The elements of the nodes array at the reader, each given to `loader` unless null.
  bool read_nodes(JsonReader& reader, ModelLoader* loader);
  bool read_top_level(JsonReader& reader, ModelLoader& loader);
  std::optional<Model> reload_nodes_last();
  size_t capacity() const {
    return static_cast<size_t>(std::max(diags_.max_errors() - diags_.error_count(), 0)) + 1;
  }

  const std::string& file_;
  const std::string& base_dir_;
  const PathPolicy& policy_;
  std::string_view text_;
  DiagnosticEngine& diags_;
  MappedFile* mapping_;  // where text_ lies when it is a file's mapping; else null
  TopLevel top_;
  size_t nodes_at_ = std::string::npos;  // offset of the nodes array
  bool member_after_nodes_ = false;
};

std::optional<Model> ModelText::load() {
  StagedDiagnostics staged(capacity());
  ModelLoader loader(file_, base_dir_, policy_, text_, staged);
  JsonReader reader(text_);
  if (!reader.begin_document()) {
    report_invalid_json(file_, text_, reader, diags_);
    return std::nullopt;
  }
  if (reader.peek() != '{') {
    JsonTape root(text_);
    if (!reader.read_value(root, 0) || !reader.end_document()) {
      report_invalid_json(file_, text_, reader, diags_);
      return std::nullopt;
    }
    diags_.error(DiagLocation::in_json(file_, ""),
                 "expected a JSON object with \"format\", \"version\" and \"nodes\", got " +
                     std::string(root.root().type_name()));
    return std::nullopt;
  }
  if (!read_top_level(reader, loader)) {
    report_invalid_json(file_, text_, reader, diags_);
    return std::nullopt;
  }
  // The nodes were read with what the top level said before them: when more follows, again.
  if (member_after_nodes_) return reload_nodes_last();
  if (nodes_at_ == std::string::npos && loader.load_head(top_)) loader.load_nodes_member(top_);
  std::optional<Model> model = loader.finish();
  staged.flush_to(diags_);
  return model;
}

bool ModelText::read_top_level(JsonReader& reader, ModelLoader& loader) {
  if (!reader.enter_object()) return false;
  if (!reader.consume('}')) {
    do {
      std::string_view key;
      size_t quote = 0;
      if (!reader.read_key(&key, &quote)) return false;
      if (key == "nodes" && reader.peek() == '[') {
        nodes_at_ = reader.position();
        if (!read_nodes(reader, loader.load_head(top_) ? &loader : nullptr)) return false;
        continue;
      }
      member_after_nodes_ = nodes_at_ != std::string::npos;
      TopLevel::Member& member = top_.members.emplace_back();
      member.key = std::string(key);
      member.quote = quote;
      member.value = JsonTape(text_);
      if (!reader.read_value(member.value, 1)) return false;
    } while (reader.consume(','));
    if (!reader.consume('}')) return false;
  }
  reader.leave_object();
  return reader.end_document();
}

bool ModelText::read_nodes(JsonReader& reader, ModelLoader* loader) {
  reader.consume('[');
  // Read one node ahead: the loader looks each node's name up in the graph's name index, a
  // cache miss on a big graph, which it starts (prefetch_node) while the next node is read.
  JsonTape node(text_);
  JsonTape ahead(text_);
  bool have_node = false;
  if (!reader.consume(']')) {
    do {
      ahead.clear();
      if (!reader.read_value(ahead, 2)) return false;
      if (loader != nullptr) {
        loader->prefetch_node(ahead.root());
        if (have_node) loader->load_node(node.root());
      }
      // What lies before the next node has been read (a later diagnostic or the second reading
      // of reload_nodes_last() reads it again from the file).
      if (mapping_ != nullptr) mapping_->release_before(ahead.root().offset());
      std::swap(node, ahead);
      have_node = true;
    } while (reader.consume(','));
    if (!reader.consume(']')) return false;
  }
  if (loader != nullptr && have_node) loader->load_node(node.root());
  if (loader != nullptr) loader->end_nodes();
  return true;
}

/// Loads the nodes, known to be valid JSON, after the whole top level.
std::optional<Model> ModelText::reload_nodes_last() {
  StagedDiagnostics staged(capacity());
  ModelLoader loader(file_, base_dir_, policy_, text_, staged);
  if (loader.load_head(top_)) {
    JsonReader reader(text_, nodes_at_);
    read_nodes(reader, &loader);
  }
  std::optional<Model> model = loader.finish();
  staged.flush_to(diags_);
  return model;
}

}  // namespace

namespace {

std::optional<Model> load_model_text(std::string_view text, const std::string& display_name,
                                     const std::string& base_dir, DiagnosticEngine& diags,
                                     const PathPolicy& policy, MappedFile* mapping) {
  int errors_before = diags.error_count();
  std::optional<Model> model =
      ModelText(display_name, base_dir, policy, text, diags, mapping).load();
  if (diags.has_errors()) model.reset();  // as always: a report with errors loads nothing
  if (diags.error_count() != errors_before) return std::nullopt;
  return model;
}

}  // namespace

std::optional<Model> load_model_from_string(const std::string& text,
                                            const std::string& display_name,
                                            const std::string& base_dir, DiagnosticEngine& diags,
                                            const PathPolicy& policy) {
  return load_model_text(text, display_name, base_dir, diags, policy, nullptr);
}

std::optional<Model> load_model(const std::string& path, DiagnosticEngine& diags,
                                const PathPolicy& policy) {
  static constexpr InputFileKind kModelJson{"model.json file", kMaxModelJsonBytes,
                                            "constants belong in the safetensors weights file"};
  std::string error;
  std::optional<InputFile> file = InputFile::open(path, kModelJson, &error);
  // Mapped rather than read: the loader hands back the text's pages as it passes them.
  std::optional<MappedFile> mapping = file ? MappedFile::map(*file, &error) : std::nullopt;
  if (!mapping) {
    diags.error(DiagLocation::in_file(path), error);
    return std::nullopt;
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  std::optional<Model> model = load_model_text(mapping->text(), path, dir.empty() ? "." : dir,
                                               diags, policy, &*mapping);
  if (model) model->path = path;
  return model;
}

}  // namespace graft
