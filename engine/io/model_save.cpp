// save_model: the files of a save (docs/model-format.md, "Saving"). Under the output's lock
// (output_lock.h) the weights are streamed into a temporary, named after their content hash,
// and committed before model.json; then the files this output's earlier saves wrote and no
// longer needs are removed. Which files those are is recorded, never guessed from names: the
// weights file the previous model.json names, and what the lock file's record says a killed
// save was creating. A name must still have this output's pattern to be removed, so a tampered
// record or a hand-edited model.json cannot make a save delete another model's files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/io/model_json.h"
#include "engine/io/safetensors_writer.h"
#include "engine/support/atomic_file.h"
#include "engine/support/content_hash.h"
#include "engine/support/output_lock.h"

namespace graft {
namespace {

namespace fs = std::filesystem;

/// Finds the top-level "weights" string of a model.json and stops there: the saver writes it
/// third, so a model of any size is read only up to its first lines.
class WeightsKeyFinder : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::optional<std::string> found;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool string(string_t& s) override {
    if (at_weights_) {
      found = s;
      return false;  // done
    }
    return true;
  }
  bool start_object(std::size_t) override { return open(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    at_weights_ = depth_ == 1 && k == "weights";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool value() {
    at_weights_ = false;
    return true;
  }
  bool open() {
    at_weights_ = false;
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  int depth_ = 0;
  bool at_weights_ = false;
};

/// The "weights" a model.json names, as written; nullopt if it has none or is not a readable
/// regular file of JSON.
std::optional<std::string> weights_named_by(const std::string& model_json) {
  // O_NONBLOCK: a FIFO in its place is refused by the check below instead of waited on.
  int fd = ::open(model_json.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::FILE* file = nullptr;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (file = ::fdopen(fd, "r")) == nullptr) {
    ::close(fd);
    return std::nullopt;
  }
  WeightsKeyFinder finder;
  try {
    nlohmann::json::sax_parse(file, &finder);
  } catch (const nlohmann::json::exception&) {
    finder.found.reset();
  }
  std::fclose(file);
  return finder.found;
}

/// Whether `file_name` is a temporary AtomicFileSet creates for `model_file_name`.
bool is_own_temporary(std::string_view file_name, std::string_view model_file_name) {
  constexpr std::string_view kTemp = ".tmp.";
  constexpr size_t kRandom = 6;  // mkstemp's XXXXXX
  return file_name.size() == 1 + model_file_name.size() + kTemp.size() + kRandom &&
         file_name[0] == '.' && file_name.substr(1, model_file_name.size()) == model_file_name &&
         file_name.substr(1 + model_file_name.size(), kTemp.size()) == kTemp;
}

/// Feeds the writer's bytes to the staged weights file, hashing them on the way. Small pieces
/// (a model may have thousands of tiny tensors) are gathered into one write of up to a chunk.
class HashingFileSink : public ByteSink {
 public:
  explicit HashingFileSink(AtomicFileSet& files) : files_(files) {}
  bool write(std::string_view bytes) override {
    hasher_.update(bytes);
    if (buffer_.size() + bytes.size() > kSafetensorsChunk && !flush()) return false;
    if (bytes.size() >= kSafetensorsChunk) return files_.write(bytes, &error);
    buffer_.append(bytes);
    return true;
  }
  bool flush() {
    bool ok = files_.write(buffer_, &error);
    buffer_.clear();
    return ok;
  }
  uint64_t hash() const { return hasher_.digest(); }
  std::string error;

 private:
  AtomicFileSet& files_;
  ContentHasher hasher_;
  std::string buffer_;
};

/// Streams model.json into the file being staged.
class FileSink : public ByteSink {
 public:
  explicit FileSink(AtomicFileSet& files) : files_(files) {}
  bool write(std::string_view bytes) override { return files_.write(bytes, &error); }
  std::string error;

 private:
  AtomicFileSet& files_;
};

/// One save of `model` to `path`, made while holding the output's lock.
class ModelSave {
 public:
  ModelSave(const Model& model, const std::string& path, OutputLock& lock)
      : model_(model), path_(path), lock_(lock) {
    fs::path p(path);
    dir_ = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    file_name_ = p.filename().string();
    previous_ = weights_named_by(path).value_or("");
    recorded_ = lock.left_behind();
    recorded_.push_back(previous_);
    protected_ = input_weights();
  }

  /// Stages and commits the files; false with `error` set if it failed before the commit.
  bool write(std::string* error);
  /// Removes the recorded files that the output, as it now is, does not name.
  void remove_superseded() const;

 private:
  bool stage_weights(AtomicFileSet& files, std::string* error);
  bool record(const std::string& name, std::string* error) {
    recorded_.push_back(name);
    return lock_.record(recorded_, error);
  }
  std::string input_weights() const;

  const Model& model_;
  const std::string& path_;
  OutputLock& lock_;
  fs::path dir_;
  std::string file_name_;
  std::string previous_;                // the weights the output named before this save
  std::vector<std::string> recorded_;   // files that may be left over once the save is done
  std::string protected_;               // the weights of the model being saved, kept
  std::string weights_name_;            // the weights file of this save ("" for none)
  bool committed_ = false;
};

/// The weights file the model being saved was loaded from, unless it is saved in place: that
/// file is another model's (a copy's) and is never removed.
std::string ModelSave::input_weights() const {
  std::error_code ec;
  if (model_.path.empty() || fs::equivalent(model_.path, path_, ec)) return "";
  std::optional<std::string> named = weights_named_by(model_.path);
  if (!named || named->empty()) return "";
  fs::path weights(*named);
  if (weights.is_relative()) weights = fs::path(model_.path).parent_path() / weights;
  return weights.string();
}

bool ModelSave::stage_weights(AtomicFileSet& files, std::string* error) {
  std::map<std::string, ConstantTensor> constants = referenced_constants(*model_.graph);
  if (constants.empty()) return true;
  // The weights' name is known once they are written: the temporary is named after path_.
  if (!files.begin(path_, error)) return false;
  if (!record(fs::path(files.last_temp()).filename().string(), error)) return false;
  HashingFileSink sink(files);
  if (!write_safetensors(constants, {}, sink) || !sink.flush()) {
    *error = sink.error;
    return false;
  }
  weights_name_ = fs::path(weights_file_for(path_, sink.hash())).filename().string();
  return files.finish(error, (dir_ / weights_name_).string());
}

bool ModelSave::write(std::string* error) {
  AtomicFileSet files;
  if (!stage_weights(files, error) || !files.begin(path_, error)) return false;
  // Recorded as soon as it exists, as the weights' temporary is: a kill leaves it listed.
  if (!record(fs::path(files.last_temp()).filename().string(), error)) return false;
  FileSink sink(files);
  if (!write_model_json(model_, weights_name_, sink)) {
    *error = sink.error;
    return false;
  }
  if (!files.finish(error)) return false;
  // Recorded before it appears under this name: a kill from here on leaves it listed.
  if (!weights_name_.empty() && !record(weights_name_, error)) return false;
  committed_ = files.commit(error);
  return committed_;
}

void ModelSave::remove_superseded() const {
  const std::string& current = committed_ ? weights_name_ : previous_;
  std::error_code ec;
  for (const std::string& name : recorded_) {
    if (name.empty() || name == current) continue;
    if (!is_saved_weights_name(name, file_name_) && !is_own_temporary(name, file_name_)) continue;
    fs::path file = dir_ / name;
    if (!protected_.empty() && fs::equivalent(file, protected_, ec)) continue;
    fs::remove(file, ec);  // best effort: a file that stays is only wasted space
  }
}

}  // namespace

std::string weights_file_for(const std::string& model_path, uint64_t hash) {
  fs::path p(model_path);
  std::string name = p.filename().string() + "." + hash_hex(hash) + ".safetensors";
  return p.parent_path().empty() ? name : (p.parent_path() / name).string();
}

bool is_saved_weights_name(std::string_view file_name, std::string_view model_file_name) {
  constexpr std::string_view kSuffix = ".safetensors";
  constexpr size_t kHexDigits = 16;
  const size_t stem = model_file_name.size();
  if (file_name.size() != stem + 1 + kHexDigits + kSuffix.size()) return false;
  if (file_name.substr(0, stem) != model_file_name || file_name[stem] != '.') return false;
  if (file_name.substr(file_name.size() - kSuffix.size()) != kSuffix) return false;
  std::string_view hex = file_name.substr(stem + 1, kHexDigits);
  return std::all_of(hex.begin(), hex.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool save_model(const Model& model, const std::string& path, DiagnosticEngine& diags) {
  if (!check_saveable(model, path, diags)) return false;
  std::string error;
  if (!check_output_path(path, &error)) {
    diags.error(DiagLocation::in_file(path), error);
    return false;
  }
  std::optional<OutputLock> lock = OutputLock::acquire(path, &error);
  if (!lock) {
    diags.error(DiagLocation::in_file(path), error);
    return false;
  }
  ModelSave save(model, path, *lock);
  bool ok = save.write(&error);
  if (!ok) diags.error(DiagLocation::in_file(path), error);
  save.remove_superseded();
  lock->release();
  return ok;
}

}  // namespace graft
