// The top level of model.json (format, version, metadata, unknown keys), the weights file, the
// inline tensors, and the types every part of the file declares (docs/model-format.md).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/io/json_values.h"
#include "engine/io/model_loader.h"
#include "engine/io/safetensors.h"
#include "engine/io/strict_json.h"
#include "engine/support/edit_distance.h"

namespace graft {
namespace {

constexpr const char* kFormatName = "graft.model";
constexpr int kFormatVersion = 1;

const std::vector<std::string> kTopLevelKeys = {"format",  "version", "weights", "metadata",
                                                "tensors", "buffers", "nodes"};

template <typename T>
void store(T value, std::byte* out) {
  std::memcpy(out, &value, sizeof(T));
}

/// The value of `v` as an integer in [lo, hi], or nullopt: a float counts when it is whole.
/// Range checks come before any conversion, which is undefined for out-of-range values.
std::optional<int64_t> integer_in(JsonRef v, int64_t lo, int64_t hi) {
  if (v.is_boolean()) return v.boolean() ? 1 : 0;
  int64_t i = 0;
  if (v.type() == JsonType::kUnsigned) {
    uint64_t u = v.unsigned_value();
    if (u > static_cast<uint64_t>(hi)) return std::nullopt;
    i = static_cast<int64_t>(u);
  } else if (v.type() == JsonType::kInt) {
    i = v.int64();
  } else {
    double d = v.number();
    // 2^63 is exact as a double; [-2^63, 2^63) converts without overflow.
    if (d != std::floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0) {
      return std::nullopt;
    }
    i = static_cast<int64_t>(d);
  }
  if (i < lo || i > hi) return std::nullopt;
  return i;
}

template <typename T>
bool store_integer(JsonRef v, std::byte* out) {
  std::optional<int64_t> i =
      integer_in(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  if (i) store(static_cast<T>(*i), out);
  return i.has_value();
}

enum class Stored { kOk, kOutOfRange, kUnsupportedDType };

Stored store_element(DType dtype, JsonRef v, std::byte* out) {
  double d = v.number();
  auto ok = [](bool stored) { return stored ? Stored::kOk : Stored::kOutOfRange; };
  switch (dtype) {
    case DType::kFloat32:
      if (std::fabs(d) > std::numeric_limits<float>::max()) return Stored::kOutOfRange;
      store(static_cast<float>(d), out);
      return Stored::kOk;
    case DType::kFloat64:
      store(d, out);
      return Stored::kOk;
    case DType::kInt64:
      return ok(store_integer<int64_t>(v, out));
    case DType::kInt32:
      return ok(store_integer<int32_t>(v, out));
    case DType::kInt16:
      return ok(store_integer<int16_t>(v, out));
    case DType::kInt8:
      return ok(store_integer<int8_t>(v, out));
    case DType::kUInt8:
      return ok(store_integer<uint8_t>(v, out));
    case DType::kBool:
      store(static_cast<uint8_t>(d != 0), out);
      return Stored::kOk;
    case DType::kFloat16:
    case DType::kBFloat16:
      return Stored::kUnsupportedDType;
  }
  return Stored::kUnsupportedDType;
}

}  // namespace

ModelLoader::ModelLoader(const std::string& file, const std::string& base_dir,
                         const PathPolicy& policy, std::string_view text, StagedDiagnostics& diags)
    : file_(file), base_dir_(base_dir), policy_(policy), text_(text), diags_(diags) {}

void ModelLoader::error(const std::string& path, std::string message) {
  diags_.error(DiagLocation::in_json(file_, path), std::move(message));
}

/// The JSON pointer of top-level key `key`, with the line:col of the key in front.
DiagLocation ModelLoader::top_level_location(const TopLevel& top, const std::string& key) const {
  const TopLevel::Member* member = top.find(key);
  if (member == nullptr) return DiagLocation::in_json(file_, "/" + key);
  auto [line, col] = json_line_col(text_, member->quote);
  return DiagLocation::in_json(file_ + ":" + std::to_string(line) + ":" + std::to_string(col),
                               "/" + key);
}

void ModelLoader::check_keys(JsonRef object, const std::string& path,
                             const std::vector<std::string>& allowed, const char* what) {
  auto known = [&](std::string_view key) {
    return std::any_of(allowed.begin(), allowed.end(),
                       [&](const std::string& a) { return same_key(a, key); });
  };
  std::vector<std::string_view> keys;
  for (auto it = object.begin(), end = object.end(); !(it == end); ++it) {
    if (keys.empty() && known(it.key())) continue;
    if (keys.empty()) {  // the first unknown key: collect them all
      for (auto k = object.begin(); !(k == end); ++k) keys.push_back(k.key());
      break;
    }
  }
  if (!keys.empty()) check_keys(std::move(keys), path, allowed, what);
}

void ModelLoader::check_keys(std::vector<std::string_view> keys, const std::string& path,
                             const std::vector<std::string>& allowed, const char* what) {
  auto unknown = [&](std::string_view key) {
    return std::find(allowed.begin(), allowed.end(), key) == allowed.end();
  };
  if (std::none_of(keys.begin(), keys.end(), unknown)) return;
  std::sort(keys.begin(), keys.end());  // nlohmann's order, in which they were always reported
  for (std::string_view key : keys) {
    if (!unknown(key)) continue;
    std::string k(key);
    error(path + "/" + json_pointer_token(k),
          std::string("unknown ") + what + " '" + k + "'" + did_you_mean(k, allowed));
  }
}

bool ModelLoader::check_header(const TopLevel& top) {
  bool ok = true;
  const TopLevel::Member* format = top.find("format");
  if (format == nullptr) {
    error("", "missing \"format\": expected \"" + std::string(kFormatName) + "\"");
    ok = false;
  } else if (JsonRef f = format->value.root(); !f.is_string() || f.str() != kFormatName) {
    error("/format", "unsupported format " + f.dump() + ": expected \"" + kFormatName + "\"");
    ok = false;
  }
  const TopLevel::Member* version = top.find("version");
  if (version == nullptr) {
    error("", "missing \"version\": expected " + std::to_string(kFormatVersion));
    ok = false;
  } else if (JsonRef v = version->value.root();
             !v.is_number_integer() || v.to_json() != kFormatVersion) {
    error("/version", "unsupported version " + v.dump() + ": this graft reads version " +
                          std::to_string(kFormatVersion));
    ok = false;
  }
  return ok;
}

bool ModelLoader::load_head(const TopLevel& top) {
  std::vector<std::string_view> keys;
  for (const TopLevel::Member& m : top.members) keys.push_back(m.key);
  check_keys(std::move(keys), "", kTopLevelKeys, "top-level key");
  if (!check_header(top)) return false;  // another format: nothing else is meaningful
  if (const TopLevel::Member* metadata = top.find("metadata")) {
    JsonRef m = metadata->value.root();
    if (m.is_object()) {
      metadata_ = m.to_json();
    } else {
      error("/metadata", "expected an object, got " + std::string(m.type_name()));
    }
  }
  load_weights(top);
  if (const TopLevel::Member* tensors = top.find("tensors")) {
    load_inline_tensors(tensors->value.root());
  }
  if (const TopLevel::Member* buffers = top.find("buffers")) load_buffers(buffers->value.root());
  return true;
}

/// "buffers": the names of the constants that are buffers, not parameters; every other
/// constant stays a parameter (ConstantTensor::buffer is false), as in a model without the key.
void ModelLoader::load_buffers(JsonRef buffers) {
  if (!buffers.is_array()) {
    error("/buffers", "expected a list of the names of constants that are buffers, got " +
                          std::string(buffers.type_name()));
    return;
  }
  ConstantStore& constants = graph_->constants();
  StringMap<size_t> seen;
  size_t i = 0;
  for (JsonRef b : buffers) {
    std::string path = "/buffers/" + std::to_string(i);
    size_t index = i++;
    if (!b.is_string()) {
      error(path, "expected the name of a constant, got " + b.dump());
      continue;
    }
    std::string name(b.str());
    if (auto it = seen.find(name); it != seen.end()) {
      error(path, "constant '" + name + "' is listed twice (first at /buffers/" +
                      std::to_string(it->second) + ")");
      continue;
    }
    seen.emplace(name, index);
    if (const ConstantTensor* tensor = constants.find(name)) {
      ConstantTensor marked = *tensor;  // no get_attr node reads it yet: nodes come later
      marked.buffer = true;
      constants.set(name, std::move(marked));
    } else if (!weights_failed_) {  // else the name is probably in the file that failed
      std::vector<std::string> names;
      for (const ConstantStore::Entry& e : constants.all()) names.push_back(e.key);
      error(path, "'" + name + "' is not a constant of the model (neither in the weights file " +
                      "nor in \"tensors\")" + did_you_mean(name, names));
    }
  }
}

void ModelLoader::load_weights(const TopLevel& top) {
  const TopLevel::Member* member = top.find("weights");
  if (member == nullptr) return;
  JsonRef w = member->value.root();
  if (!w.is_string() || w.str().empty()) {
    error("/weights", "expected the path of a safetensors file, got " + w.dump());
    return;
  }
  // Inside the model's folder only: a model from elsewhere must not make graft read, and copy
  // into its output, any other file (FileConfinement).
  FileConfinement folder(base_dir_, policy_, "the model's folder");
  std::string problem;
  std::optional<std::string> path = folder.resolve(w.str(), &problem);
  if (!path) {
    diags_.error(top_level_location(top, "weights"), std::move(problem));
    weights_failed_ = true;
    return;
  }
  DiagnosticEngine weights_diags(nullptr, std::numeric_limits<int>::max());
  std::optional<SafetensorsFile> file = read_safetensors(*path, weights_diags, &folder);
  diags_.absorb(weights_diags);
  if (!file) {
    weights_failed_ = true;
    return;
  }
  for (auto& [name, tensor] : file->tensors) graph_->constants().set(name, std::move(tensor));
}

void ModelLoader::load_inline_tensors(JsonRef tensors) {
  if (!tensors.is_object()) {
    error("/tensors", "expected an object of name -> {dtype, shape, data}, got " +
                          std::string(tensors.type_name()));
    return;
  }
  for (const auto& [key, t] : tensors.sorted_members()) {
    std::string name(key);
    std::string path = "/tensors/" + json_pointer_token(name);
    if (name == kReservedConstantName) {
      error(path, "a tensor cannot be named '" + name +
                      "': safetensors reserves that name for a file's metadata");
      continue;
    }
    if (graph_->constants().contains(name)) {
      error(path, "tensor '" + name + "' is also in the weights file");
      continue;
    }
    if (std::optional<ConstantTensor> tensor = parse_inline_tensor(t, path)) {
      graph_->constants().set(name, std::move(*tensor));
    }
  }
}

std::optional<ConstantTensor> ModelLoader::parse_inline_tensor(JsonRef t, const std::string& path) {
  if (!t.is_object()) {
    error(path, "expected {\"dtype\", \"shape\", \"data\"}, got " + std::string(t.type_name()));
    return std::nullopt;
  }
  check_keys(t, path, {"dtype", "shape", "data"}, "tensor key");
  std::optional<TensorType> type = parse_type(t, path);
  if (!type) return std::nullopt;
  if (!is_concrete(type->shape)) {
    error(path + "/shape",
          "a tensor's shape must be concrete, got " + shape_to_string(type->shape));
    return std::nullopt;
  }
  std::optional<int64_t> count = element_count(type->shape);
  if (!count) {
    error(path + "/shape", "shape " + shape_to_string(type->shape) + " has too many elements");
    return std::nullopt;
  }
  std::optional<JsonRef> data = t.find("data");
  if (!data || !data->is_array()) {
    error(path + "/data", "expected a flat list of " + std::to_string(*count) + " numbers");
    return std::nullopt;
  }
  if (static_cast<int64_t>(data->size()) != *count) {
    error(path + "/data", "shape " + shape_to_string(type->shape) + " needs " +
                              std::to_string(*count) + " values, got " +
                              std::to_string(data->size()));
    return std::nullopt;
  }
  size_t width = dtype_size(type->dtype);
  std::vector<std::byte> bytes(data->size() * width);
  size_t i = 0;
  for (JsonRef v : *data) {
    auto at = [&] { return path + "/data/" + std::to_string(i); };
    if (!v.is_number() && !v.is_boolean()) {
      error(at(), "expected a number, got " + v.dump());
      return std::nullopt;
    }
    Stored stored = store_element(type->dtype, v, bytes.data() + i * width);
    if (stored == Stored::kOutOfRange) {
      error(at(),
            v.dump() + " is not a value of dtype " + dtype_name(type->dtype) +
                (is_floating(type->dtype) ? " (out of range)" : " (a whole number in range)"));
      return std::nullopt;
    }
    if (stored == Stored::kUnsupportedDType) {
      error(path + "/dtype", std::string("inline tensors of dtype ") + dtype_name(type->dtype) +
                                 " are not supported; put them in the weights file");
      return std::nullopt;
    }
    ++i;
  }
  return ConstantTensor::owned(type->dtype, type->shape, std::move(bytes));
}

/// `allow_unknown`: "?" is a dim, the unknown size shape inference gives arithmetic on symbols
/// (flatten of [N, 4] is [?]); the saver writes it in the meta of computed nodes.
std::optional<TensorType> ModelLoader::parse_type(JsonRef obj, const std::string& path,
                                                  bool allow_unknown) {
  bool ok = true;
  TensorType type;
  std::optional<JsonRef> dtype = obj.find("dtype");
  if (!dtype || !dtype->is_string()) {
    error(path + "/dtype", "expected a dtype name (" + all_dtype_names() + ")");
    ok = false;
  } else if (std::optional<DType> d = parse_dtype(dtype->str())) {
    type.dtype = *d;
  } else {
    error(path + "/dtype",
          "unknown dtype '" + std::string(dtype->str()) + "' (known: " + all_dtype_names() + ")");
    ok = false;
  }
  std::optional<JsonRef> shape = obj.find("shape");
  if (!shape || !shape->is_array()) {
    error(path + "/shape", "expected a list of dims (non-negative ints or symbols like \"N\")");
    return std::nullopt;
  }
  size_t i = 0;
  for (JsonRef d : *shape) {
    if (d.is_number_integer() && d.int64() >= 0) {
      type.shape.push_back(d.int64());
    } else if (d.is_string() && !d.str().empty() && (d.str() != "?" || allow_unknown)) {
      type.shape.push_back(dim_symbol(d.str()));
    } else {
      error(path + "/shape/" + std::to_string(i),
            "a dim is a non-negative int or a symbol such as \"N\", got " + d.dump());
      ok = false;
    }
    ++i;
  }
  if (!ok) return std::nullopt;
  if (!within_size_limit(type)) {
    error(path + "/shape", size_limit_message(type));
    return std::nullopt;
  }
  return type;
}

/// meta {shape, dtype, provenance}; the type is nullopt when absent (and not required).
std::optional<TensorType> ModelLoader::parse_meta(JsonRef meta, const std::string& path,
                                                  bool required, bool allow_unknown) {
  if (!meta.is_object()) {
    error(path, "expected an object, got " + std::string(meta.type_name()));
    return std::nullopt;
  }
  check_keys(meta, path, {"shape", "dtype", "provenance"}, "meta key");
  if (!required && !meta.contains("shape") && !meta.contains("dtype")) return std::nullopt;
  return parse_type(meta, path, allow_unknown);
}

std::optional<Model> ModelLoader::finish() {
  if (diags_.has_errors()) return std::nullopt;
  Model model;
  model.graph = std::move(graph_);
  model.metadata = std::move(metadata_);
  return model;
}

}  // namespace graft
