// A SAX handler that walks the header's schema — {name: {dtype, shape, data_offsets}, …,
// "__metadata__": {key: value}} — as a state machine. Values that break the schema are kept
// in bounded form (ValueCapture), only for the messages that quote them; every check and
// message is the one a document-tree reader would give, entry by entry in header order.
#include "engine/io/safetensors_header.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/io/json_limits.h"

namespace graft::detail {
namespace {

using nlohmann::json;

constexpr const char* kMetadataKey = "__metadata__";

/// The RFC 6901 pointer "/name/key…"; nlohmann escapes '~' and '/' inside the tokens.
std::string pointer(std::initializer_list<std::string> tokens) {
  json::json_pointer p;
  for (const std::string& token : tokens) p /= token;
  return p.to_string();
}

/// A short rendering of a JSON value for messages: scalars and small flat lists verbatim,
/// anything else by its kind.
std::string describe(const json& j) {
  bool flat = j.is_primitive() ||
              (j.size() <= 8 &&
               std::all_of(j.begin(), j.end(), [](const json& e) { return e.is_primitive(); }));
  std::string text = flat ? j.dump(-1, ' ', false, json::error_handler_t::replace) : "";
  if (flat && text.size() <= 40) return text;
  return fmt::format("{} {}", j.is_object() || j.is_array() ? "an" : "a", j.type_name());
}

/// nlohmann parses non-negative integers as unsigned, negative ones as signed and anything with
/// a fraction or exponent (or beyond 2^64) as a float; only the first kind is a valid offset/dim.
std::optional<uint64_t> as_u64(const json& j) {
  if (!j.is_number_unsigned()) return std::nullopt;
  return j.get<uint64_t>();
}

/// A copy of a JSON value, bounded whatever the value's size, from which describe() reads the
/// same as from the whole value, both for the value and for each of its elements: containers
/// keep their first 9 elements (describe() spells out 8 at most), containers two levels down
/// are kept empty (an element's elements need only be known to be containers), and strings
/// keep 64 characters (describe() quotes 40 at most).
class ValueCapture {
 public:
  void begin() {
    root_ = json();
    open_.clear();
    started_ = false;
  }
  void scalar(json value) { add(std::move(value)); }
  void start(json container) { open_.push_back(add(std::move(container))); }
  void key(std::string key) { key_ = std::move(key); }
  void end() { open_.pop_back(); }
  bool done() const { return started_ && open_.empty(); }
  const json& value() const { return root_; }

 private:
  static constexpr size_t kMaxElements = 9;
  static constexpr size_t kMaxStringChars = 64;
  static constexpr size_t kLevelsWithElements = 2;

  /// Stores `value` where it belongs; returns where its elements go (nullptr: dropped).
  json* add(json value) {
    if (value.is_string() && value.get_ref<const std::string&>().size() > kMaxStringChars) {
      value = value.get_ref<const std::string&>().substr(0, kMaxStringChars);
    }
    if (!started_) {
      started_ = true;
      root_ = std::move(value);
      return &root_;
    }
    json* parent = open_.back();
    if (parent == nullptr || parent->size() >= kMaxElements) return nullptr;
    json* slot = nullptr;
    if (parent->is_object()) {
      slot = &(*parent)[key_];
    } else {
      parent->push_back(json());
      slot = &parent->back();
    }
    *slot = std::move(value);
    return open_.size() < kLevelsWithElements ? slot : nullptr;
  }

  json root_;
  std::vector<json*> open_;  // the containers being filled; nullptr for one whose are dropped
  std::string key_;
  bool started_ = false;
};

/// The fields of the tensor entry being read, checked when it ends.
struct PendingEntry {
  /// A shape element that is not a valid dim.
  struct BadDim {
    size_t index;
    json value;
  };
  static constexpr size_t kMaxKept = 32;  // more problems than a run reports

  bool has_dtype = false, has_shape = false, has_offsets = false;
  json dtype, shape_value, offsets;
  bool shape_is_list = false;
  Shape dims;
  size_t dim_count = 0;
  std::vector<BadDim> bad_dims;
  std::vector<std::string> unknown_keys, repeated_keys;
};

class HeaderReader final : public nlohmann::json_sax<json> {
 public:
  HeaderReader(const std::byte* data, uint64_t data_size, const std::shared_ptr<const void>& owner,
               const std::string& file, DiagnosticEngine& diags)
      : data_(data), data_size_(data_size), owner_(owner), file_(file), diags_(diags) {}

  bool null() override { return on_scalar(json(nullptr)); }
  bool boolean(bool v) override { return on_scalar(json(v)); }
  bool number_integer(json::number_integer_t v) override { return on_scalar(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) override { return on_scalar(json(v)); }
  bool number_float(json::number_float_t v, const std::string&) override {
    return on_scalar(json(v));
  }
  bool string(std::string& v) override { return on_scalar(json(std::move(v))); }
  bool binary(json::binary_t&) override { return on_scalar(json()); }  // not in JSON text
  bool start_object(size_t) override { return on_start(true); }
  bool start_array(size_t) override { return on_start(false); }
  bool key(std::string& k) override;
  bool end_object() override { return on_end(); }
  bool end_array() override { return on_end(); }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& e) override;

  /// The tensors and metadata read, after the check that needs every entry.
  SafetensorsFile finish();

 private:
  enum class In { kRoot, kEntry, kShape, kMetadata };  // containers being walked
  enum class For { kNothing, kRoot, kEntry, kMetadata, kMetadataValue, kDtype, kShape,
                   kOffsets, kDim, kIgnored };  // what a captured value is for

  bool on_scalar(json value);
  bool on_start(bool object);
  bool on_end();
  /// Where the value starting now goes: a capture, or nothing to do (In::kShape dims).
  For slot_for_value() const;
  void capture_done();
  void finish_entry();
  std::optional<DType> check_dtype();
  std::optional<Shape> check_shape();
  std::optional<std::pair<uint64_t, uint64_t>> check_offsets();
  void check_layout();
  /// Whether to read on: the parse stops once the engine drops errors.
  bool more() const { return !diags_.too_many_errors(); }
  Diagnostic& error(std::string path, std::string message) {
    return diags_.error(DiagLocation::in_json(file_, std::move(path)), std::move(message));
  }

  const std::byte* data_;
  uint64_t data_size_;
  const std::shared_ptr<const void>& owner_;
  const std::string& file_;
  DiagnosticEngine& diags_;
  std::vector<In> open_;
  For capturing_ = For::kNothing;
  ValueCapture capture_;
  bool skip_value_ = false;  // the current root key was seen before: its value is ignored
  bool has_metadata_ = false;
  std::string name_;  // the current root key
  std::string key_;   // the current key inside an entry or __metadata__
  PendingEntry entry_;
  SafetensorsFile out_;
};

HeaderReader::For HeaderReader::slot_for_value() const {
  if (open_.empty()) return For::kRoot;
  switch (open_.back()) {
    case In::kRoot:
      if (skip_value_) return For::kIgnored;
      return name_ == kMetadataKey ? For::kMetadata : For::kEntry;
    case In::kEntry:
      if (key_ == "dtype") return For::kDtype;
      if (key_ == "shape") return For::kShape;
      if (key_ == "data_offsets") return For::kOffsets;
      return For::kIgnored;
    case In::kShape:
      return For::kDim;
    case In::kMetadata:
      return For::kMetadataValue;
  }
  return For::kIgnored;
}

bool HeaderReader::on_scalar(json value) {
  if (capturing_ == For::kNothing) {
    For slot = slot_for_value();
    if (slot == For::kDim && value.is_number_unsigned()) {
      // The common case, kept out of the capture: a dim.
      uint64_t dim = value.get<uint64_t>();
      if (entry_.dim_count >= kMaxSafetensorsRank) {
        // Counted, not kept: check_shape reports the rank.
      } else if (dim <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        entry_.dims.push_back(static_cast<Dim>(dim));
      } else if (entry_.bad_dims.size() < PendingEntry::kMaxKept) {
        entry_.bad_dims.push_back({entry_.dim_count, std::move(value)});
      }
      ++entry_.dim_count;
      return true;
    }
    if (slot == For::kMetadataValue && value.is_string()) {
      if (!out_.metadata.emplace(key_, value.get<std::string>()).second) {
        error(pointer({kMetadataKey, key_}),
              fmt::format("__metadata__ key '{}' appears more than once", key_));
      }
      return more();
    }
    capturing_ = slot;
    capture_.begin();
  }
  capture_.scalar(std::move(value));
  if (capture_.done()) capture_done();
  return more();
}

bool HeaderReader::on_start(bool object) {
  if (capturing_ == For::kNothing) {
    For slot = slot_for_value();
    if (object && (slot == For::kEntry || slot == For::kMetadata || slot == For::kRoot)) {
      open_.push_back(slot == For::kEntry      ? In::kEntry
                      : slot == For::kMetadata ? In::kMetadata
                                               : In::kRoot);
      if (slot == For::kEntry) entry_ = PendingEntry();
      return true;
    }
    if (!object && slot == For::kShape) {
      open_.push_back(In::kShape);
      entry_.shape_is_list = true;
      return true;
    }
    capturing_ = slot;
    capture_.begin();
  }
  capture_.start(object ? json::object() : json::array());
  return true;
}

bool HeaderReader::on_end() {
  if (capturing_ != For::kNothing) {
    capture_.end();
    if (capture_.done()) capture_done();
    return more();
  }
  In closed = open_.back();
  open_.pop_back();
  if (closed == In::kEntry) finish_entry();
  return more();
}

bool HeaderReader::key(std::string& k) {
  if (capturing_ != For::kNothing) {
    capture_.key(std::move(k));
    return true;
  }
  switch (open_.back()) {
    case In::kRoot:
      name_ = std::move(k);
      skip_value_ = name_ == kMetadataKey && has_metadata_;
      if (skip_value_) error(pointer({kMetadataKey}), "__metadata__ appears more than once");
      has_metadata_ |= name_ == kMetadataKey;
      break;
    case In::kEntry: {
      key_ = std::move(k);
      bool* seen = key_ == "dtype"          ? &entry_.has_dtype
                   : key_ == "shape"        ? &entry_.has_shape
                   : key_ == "data_offsets" ? &entry_.has_offsets
                                            : nullptr;
      std::vector<std::string>& list =
          seen == nullptr ? entry_.unknown_keys : entry_.repeated_keys;
      if ((seen == nullptr || *seen) && list.size() < PendingEntry::kMaxKept) list.push_back(key_);
      if (seen != nullptr && *seen) key_.clear();  // the repeated value is ignored
      if (seen != nullptr) *seen = true;
      break;
    }
    case In::kMetadata:
      key_ = std::move(k);
      break;
    case In::kShape:
      break;  // arrays have no keys
  }
  return more();
}

bool HeaderReader::parse_error(size_t, const std::string&, const nlohmann::detail::exception& e) {
  // Drop the "[json.exception.parse_error.101] " tag; the rest says where and what.
  std::string_view what = e.what();
  if (size_t tag_end = what.find("] "); !what.empty() && what[0] == '[' && tag_end != what.npos) {
    what.remove_prefix(tag_end + 2);
  }
  diags_.error(DiagLocation::in_file(file_), fmt::format("header is not valid JSON: {}", what));
  return false;
}

void HeaderReader::capture_done() {
  const json& value = capture_.value();
  For slot = std::exchange(capturing_, For::kNothing);
  switch (slot) {
    case For::kRoot:
      error("", fmt::format("header must be a JSON object mapping tensor names to entries, got {}",
                            describe(value)));
      break;
    case For::kEntry:
      error(pointer({name_}), fmt::format("tensor '{}' must be an object with 'dtype', 'shape' "
                                          "and 'data_offsets', got {}",
                                          name_, describe(value)));
      break;
    case For::kMetadata:
      error(pointer({kMetadataKey}),
            fmt::format("__metadata__ must be an object mapping strings to strings, got {}",
                        describe(value)));
      break;
    case For::kMetadataValue:
      error(pointer({kMetadataKey, key_}),
            fmt::format("__metadata__ values must be strings, got {}", describe(value)));
      break;
    case For::kDtype:
      entry_.dtype = value;
      break;
    case For::kShape:
      entry_.shape_value = value;
      break;
    case For::kOffsets:
      entry_.offsets = value;
      break;
    case For::kDim:
      if (entry_.bad_dims.size() < PendingEntry::kMaxKept) {
        entry_.bad_dims.push_back({entry_.dim_count, value});
      }
      ++entry_.dim_count;
      break;
    case For::kNothing:
    case For::kIgnored:
      break;
  }
}

// The checks and their order are those of one entry: keys, then dtype, shape and offsets (each
// checked even when another is broken, so one run reports all of them), then the size.
void HeaderReader::finish_entry() {
  bool ok = true;
  for (const std::string& key : entry_.unknown_keys) {
    error(pointer({name_, key}), fmt::format("unknown key '{}' in tensor '{}' (expected 'dtype', "
                                             "'shape' and 'data_offsets')",
                                             key, name_));
    ok = false;
  }
  for (const std::string& key : entry_.repeated_keys) {
    error(pointer({name_, key}), fmt::format("key '{}' appears more than once in tensor '{}'",
                                             key, name_));
    ok = false;
  }
  std::optional<DType> dtype = check_dtype();
  std::optional<Shape> shape = check_shape();
  std::optional<std::pair<uint64_t, uint64_t>> offsets = check_offsets();
  if (!ok || !dtype || !shape || !offsets) return;

  // element_count succeeded in check_shape, and the byte count fits in a u64 (checked there).
  uint64_t need = static_cast<uint64_t>(*element_count(*shape)) * dtype_size(*dtype);
  auto [begin, end] = *offsets;
  if (end - begin != need) {
    error(pointer({name_, "data_offsets"}),
          fmt::format("data_offsets [{}, {}] span {} bytes, but {} {} needs {} bytes", begin, end,
                      end - begin, dtype_safetensors_name(*dtype), shape_to_string(*shape), need));
    return;
  }
  // Offsets need not be multiples of the dtype size (the format does not promise it):
  // parse_safetensors copies a tensor that lands unaligned for its type.
  ConstantTensor t;
  t.set_type({*dtype, std::move(*shape)});
  t.data = data_ + begin;
  t.nbytes = static_cast<size_t>(end - begin);
  // Aliasing constructor: shares ownership of the whole buffer, but get() is this tensor's
  // bytes, which makes an owner self-describing in a debugger.
  t.owner = std::shared_ptr<const void>(owner_, t.data);
  if (!out_.tensors.emplace(name_, std::move(t)).second) {
    error(pointer({name_}), fmt::format("tensor '{}' appears more than once in the header", name_));
  }
}

std::optional<DType> HeaderReader::check_dtype() {
  if (!entry_.has_dtype) {
    error(pointer({name_}), fmt::format("tensor '{}' is missing 'dtype'", name_));
    return std::nullopt;
  }
  const json& value = entry_.dtype;
  if (!value.is_string()) {
    error(pointer({name_, "dtype"}),
          fmt::format("dtype must be a string such as 'F32', got {}", describe(value)));
    return std::nullopt;
  }
  const auto& text = value.get_ref<const std::string&>();
  std::optional<DType> dtype = parse_safetensors_dtype(text);
  if (!dtype) {
    error(pointer({name_, "dtype"}),
          fmt::format("unknown dtype '{}' (expected one of {})", text, all_safetensors_dtype_names()));
  }
  return dtype;
}

std::optional<Shape> HeaderReader::check_shape() {
  if (!entry_.has_shape) {
    error(pointer({name_}), fmt::format("tensor '{}' is missing 'shape'", name_));
    return std::nullopt;
  }
  if (!entry_.shape_is_list) {
    error(pointer({name_, "shape"}), fmt::format("shape must be a list of non-negative integers, "
                                                 "got {}",
                                                 describe(entry_.shape_value)));
    return std::nullopt;
  }
  for (const PendingEntry::BadDim& bad : entry_.bad_dims) {
    std::string path = pointer({name_, "shape", std::to_string(bad.index)});
    if (bad.value.is_number_unsigned()) {
      error(path, fmt::format("shape dim {} does not fit in int64", bad.value.get<uint64_t>()));
    } else {
      error(path, fmt::format("shape dims must be non-negative integers, got {}",
                              describe(bad.value)));
    }
  }
  if (!entry_.bad_dims.empty()) return std::nullopt;
  if (entry_.dim_count > kMaxSafetensorsRank) {
    error(pointer({name_, "shape"}), fmt::format("shape has {} dims; graft reads tensors of at "
                                                 "most {}",
                                                 entry_.dim_count, kMaxSafetensorsRank));
    return std::nullopt;
  }
  std::optional<int64_t> count = element_count(entry_.dims);
  if (!count) {
    error(pointer({name_, "shape"}), fmt::format("element count of shape {} overflows int64",
                                                 shape_to_string(entry_.dims)));
    return std::nullopt;
  }
  // 8-byte dtypes can push a valid int64 count past 2^64 bytes; no data section is that big.
  if (static_cast<uint64_t>(*count) > std::numeric_limits<uint64_t>::max() / 8) {
    error(pointer({name_, "shape"}), fmt::format("shape {} has too many elements to be stored",
                                                 shape_to_string(entry_.dims)));
    return std::nullopt;
  }
  return std::move(entry_.dims);
}

std::optional<std::pair<uint64_t, uint64_t>> HeaderReader::check_offsets() {
  if (!entry_.has_offsets) {
    error(pointer({name_}), fmt::format("tensor '{}' is missing 'data_offsets'", name_));
    return std::nullopt;
  }
  const json& value = entry_.offsets;
  std::string path = pointer({name_, "data_offsets"});
  if (!value.is_array() || value.size() != 2) {
    error(path, fmt::format("data_offsets must be a list of two integers [begin, end], got {}",
                            describe(value)));
    return std::nullopt;
  }
  std::optional<uint64_t> bounds[2] = {as_u64(value[0]), as_u64(value[1])};
  for (size_t i = 0; i < 2; ++i) {
    if (!bounds[i]) {
      error(pointer({name_, "data_offsets", std::to_string(i)}),
            fmt::format("data_offsets entries must be non-negative integers, got {}",
                        describe(value[i])));
    }
  }
  if (!bounds[0] || !bounds[1]) return std::nullopt;
  uint64_t begin = *bounds[0];
  uint64_t end = *bounds[1];
  if (begin > end) {
    error(path, fmt::format("data_offsets begin {} is after end {}", begin, end));
    return std::nullopt;
  }
  if (end > data_size_) {
    error(path, fmt::format("data_offsets [{}, {}] lie outside the data section, which holds {} "
                            "bytes",
                            begin, end, data_size_));
    return std::nullopt;
  }
  return std::pair{begin, end};
}

// The reference reader's rule: sorted by offsets, each tensor starts where the one before ends,
// and the last ends where the data section does — no hole, no overlap, no trailing byte, so
// every byte of the file belongs to exactly one tensor. An empty tensor must sit on such a
// boundary too. Comparing against the furthest-reaching earlier tensor (not only the previous
// one) reports every tensor inside a big first one.
void HeaderReader::check_layout() {
  struct Span {
    uint64_t begin, end;
    const std::string* name;
    auto key() const { return std::tie(begin, end, *name); }
  };
  std::vector<Span> spans;
  spans.reserve(out_.tensors.size());
  for (const auto& [name, t] : out_.tensors) {
    const auto begin = static_cast<uint64_t>(t.data - data_);
    spans.push_back({begin, begin + t.nbytes, &name});
  }
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.key() < b.key(); });
  const Span* reach = nullptr;  // the earlier tensor whose data ends furthest
  uint64_t covered = 0;         // where that tensor ends
  for (const Span& e : spans) {
    std::string path = pointer({*e.name, "data_offsets"});
    if (e.begin < covered) {
      Diagnostic& diag = error(
          path, e.begin == e.end
                    ? fmt::format("empty tensor '{}' sits at byte {}, inside tensor '{}' [{}, {}) "
                                  "(an empty tensor sits where one tensor ends)",
                                  *e.name, e.begin, *reach->name, reach->begin, reach->end)
                    : fmt::format("data of tensor '{}' [{}, {}) overlaps tensor '{}' [{}, {})",
                                  *e.name, e.begin, e.end, *reach->name, reach->begin, reach->end));
      DiagnosticEngine::add_note(
          diag, DiagLocation::in_json(file_, pointer({*reach->name, "data_offsets"})),
          fmt::format("tensor '{}' is declared here", *reach->name));
    } else if (e.begin > covered) {
      error(path, reach == nullptr
                      ? fmt::format("data of tensor '{}' starts at byte {}, leaving bytes [0, {}) "
                                    "of the data section unused",
                                    *e.name, e.begin, e.begin)
                      : fmt::format("data of tensor '{}' starts at byte {}, but tensor '{}' ends "
                                    "at {}: bytes [{}, {}) belong to no tensor",
                                    *e.name, e.begin, *reach->name, covered, covered, e.begin));
    }
    if (reach == nullptr || e.end > covered) {
      reach = &e;
      covered = e.end;
    }
  }
  if (covered != data_size_) {
    error(reach == nullptr ? "" : pointer({*reach->name, "data_offsets"}),
          reach == nullptr
              ? fmt::format("the data section holds {} bytes, but the header declares no tensors",
                            data_size_)
              : fmt::format("the data section holds {} bytes, but its last tensor '{}' ends at "
                            "{}: {} trailing bytes belong to no tensor",
                            data_size_, *reach->name, covered, data_size_ - covered));
  }
}

SafetensorsFile HeaderReader::finish() {
  check_layout();
  return std::move(out_);
}

}  // namespace

std::optional<SafetensorsFile> parse_safetensors_header(std::string_view text,
                                                        const std::byte* data, uint64_t data_size,
                                                        const std::shared_ptr<const void>& owner,
                                                        const std::string& file,
                                                        DiagnosticEngine& diags) {
  // The SAX parser does not recurse, but the messages' bounded captures and every other JSON
  // graft reads keep to the same depth limit.
  if (size_t deep = find_excess_nesting(text); deep != std::string_view::npos) {
    diags.error(DiagLocation::in_file(file),
                fmt::format("header nests JSON more than {} levels deep (at byte {})",
                            kMaxJsonDepth, 8 + deep));
    return std::nullopt;
  }
  // nlohmann takes a NUL for the end of the input, which would accept anything after it.
  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    diags.error(DiagLocation::in_file(file),
                fmt::format("header is not valid JSON: a NUL byte at byte {} (a header is padded "
                            "with spaces)",
                            8 + nul));
    return std::nullopt;
  }
  int errors_before = diags.error_count();
  HeaderReader reader(data, data_size, owner, file, diags);
  bool parsed = json::sax_parse(text.begin(), text.end(), &reader);
  if (!parsed && diags.error_count() == errors_before) {
    diags.error(DiagLocation::in_file(file), "header is not valid JSON");
  }
  if (diags.error_count() != errors_before) return std::nullopt;
  SafetensorsFile result = reader.finish();
  if (diags.error_count() != errors_before) return std::nullopt;
  return result;
}

}  // namespace graft::detail
