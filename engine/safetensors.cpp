// Reads safetensors files (safetensors_writer.cpp writes them). The reader checks the whole header before it hands out a
// single tensor: every problem becomes a diagnostic located by the header's JSON pointer, and no
// byte outside the input is ever read. Tensor data is never copied: ConstantTensor::data points
// into the mapping and ConstantTensor::owner keeps the mapping alive.
#include "engine/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/json_limits.h"

namespace graft {
namespace {

using nlohmann::json;

constexpr size_t kLengthBytes = 8;  // the u64 header length in front of the header
constexpr const char* kMetadataKey = "__metadata__";

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

/// The RFC 6901 pointer "/name/key…"; nlohmann escapes '~' and '/' inside the tokens.
std::string pointer(std::initializer_list<std::string> tokens) {
  json::json_pointer p;
  for (const std::string& token : tokens) p /= token;
  return p.to_string();
}

/// A short rendering of a JSON value for messages: scalars and small flat lists verbatim,
/// anything else by its kind. Only flat values are dumped because dump() recurses: a header of
/// a million '[' would overflow the stack (the parser and destructor are iterative).
std::string describe(const json& j) {
  bool flat = j.is_primitive() ||
              (j.size() <= 8 &&
               std::all_of(j.begin(), j.end(), [](const json& e) { return e.is_primitive(); }));
  std::string text = flat ? j.dump(-1, ' ', false, json::error_handler_t::replace) : "";
  if (flat && text.size() <= 40) return text;
  return fmt::format("{} {}", j.is_object() || j.is_array() ? "an" : "a", j.type_name());
}

std::string known_dtypes() {
  std::string out;
  for (int i = 0; i <= static_cast<int>(DType::kBool); ++i) {
    if (!out.empty()) out += ", ";
    out += dtype_safetensors_name(static_cast<DType>(i));
  }
  return out;
}

/// nlohmann parses non-negative integers as unsigned, negative ones as signed and anything with
/// a fraction or exponent (or beyond 2^64) as a float; only the first kind is a valid offset/dim.
std::optional<uint64_t> as_u64(const json& j) {
  if (!j.is_number_unsigned()) return std::nullopt;
  return j.get<uint64_t>();
}

/// One header entry that passed every per-tensor check.
struct Entry {
  std::string name;
  DType dtype = DType::kFloat32;
  Shape shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

/// Checks header entries one by one, reporting everything it finds; the caller gives up once any
/// error was reported, so a half-valid header never yields tensors.
class HeaderChecker {
 public:
  HeaderChecker(const std::string& file, uint64_t data_size, DiagnosticEngine& diags)
      : file_(file), data_size_(data_size), diags_(diags) {}

  std::optional<Entry> check_tensor(const std::string& name, const json& entry);
  std::optional<std::map<std::string, std::string>> check_metadata(const json& value);
  void check_overlaps(std::vector<Entry> entries);

 private:
  Diagnostic& error(std::string path, std::string message) {
    return diags_.error(DiagLocation::in_json(file_, std::move(path)), std::move(message));
  }
  const json* field(const std::string& name, const json& entry, const char* key);
  // These take the field found by field(), or nullptr when it is missing (already reported).
  std::optional<DType> check_dtype(const std::string& name, const json* field);
  std::optional<Shape> check_shape(const std::string& name, const json* field);
  std::optional<std::pair<uint64_t, uint64_t>> check_offsets(const std::string& name,
                                                             const json* field);

  const std::string& file_;
  uint64_t data_size_;
  DiagnosticEngine& diags_;
};

std::optional<Entry> HeaderChecker::check_tensor(const std::string& name, const json& entry) {
  if (!entry.is_object()) {
    error(pointer({name}), fmt::format("tensor '{}' must be an object with 'dtype', 'shape' and "
                                       "'data_offsets', got {}",
                                       name, describe(entry)));
    return std::nullopt;
  }
  bool ok = true;
  for (const auto& [key, value] : entry.items()) {
    if (key == "dtype" || key == "shape" || key == "data_offsets") continue;
    error(pointer({name, key}), fmt::format("unknown key '{}' in tensor '{}' (expected 'dtype', "
                                            "'shape' and 'data_offsets')",
                                            key, name));
    ok = false;
  }
  // Each field is checked even when another one is broken, so one run reports all of them.
  std::optional<DType> dtype = check_dtype(name, field(name, entry, "dtype"));
  std::optional<Shape> shape = check_shape(name, field(name, entry, "shape"));
  auto offsets = check_offsets(name, field(name, entry, "data_offsets"));
  if (!ok || !dtype || !shape || !offsets) return std::nullopt;

  // element_count succeeded in check_shape, and the byte count fits in a u64 (checked there).
  uint64_t need = static_cast<uint64_t>(*element_count(*shape)) * dtype_size(*dtype);
  auto [begin, end] = *offsets;
  if (end - begin != need) {
    error(pointer({name, "data_offsets"}),
          fmt::format("data_offsets [{}, {}] span {} bytes, but {} {} needs {} bytes", begin, end,
                      end - begin, dtype_safetensors_name(*dtype), shape_to_string(*shape), need));
    return std::nullopt;
  }
  return Entry{name, *dtype, std::move(*shape), begin, end};
}

const json* HeaderChecker::field(const std::string& name, const json& entry, const char* key) {
  auto it = entry.find(key);
  if (it != entry.end()) return &*it;
  error(pointer({name}), fmt::format("tensor '{}' is missing '{}'", name, key));
  return nullptr;
}

std::optional<DType> HeaderChecker::check_dtype(const std::string& name, const json* field) {
  if (field == nullptr) return std::nullopt;
  const json& value = *field;
  if (!value.is_string()) {
    error(pointer({name, "dtype"}),
          fmt::format("dtype must be a string such as 'F32', got {}", describe(value)));
    return std::nullopt;
  }
  const auto& text = value.get_ref<const std::string&>();
  std::optional<DType> dtype = parse_safetensors_dtype(text);
  if (!dtype) {
    error(pointer({name, "dtype"}),
          fmt::format("unknown dtype '{}' (expected one of {})", text, known_dtypes()));
  }
  return dtype;
}

std::optional<Shape> HeaderChecker::check_shape(const std::string& name, const json* field) {
  if (field == nullptr) return std::nullopt;
  const json& value = *field;
  if (!value.is_array()) {
    error(pointer({name, "shape"}),
          fmt::format("shape must be a list of non-negative integers, got {}", describe(value)));
    return std::nullopt;
  }
  Shape shape;
  bool ok = true;
  for (size_t i = 0; i < value.size(); ++i) {
    std::optional<uint64_t> dim = as_u64(value[i]);
    std::string path = pointer({name, "shape", std::to_string(i)});
    if (!dim) {
      error(path,
            fmt::format("shape dims must be non-negative integers, got {}", describe(value[i])));
      ok = false;
    } else if (*dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      error(path, fmt::format("shape dim {} does not fit in int64", *dim));
      ok = false;
    } else {
      shape.push_back(static_cast<Dim>(*dim));
    }
  }
  if (!ok) return std::nullopt;
  std::optional<int64_t> count = element_count(shape);
  if (!count) {
    error(pointer({name, "shape"}),
          fmt::format("element count of shape {} overflows int64", shape_to_string(shape)));
    return std::nullopt;
  }
  // 8-byte dtypes can push a valid int64 count past 2^64 bytes; no data section is that big.
  if (static_cast<uint64_t>(*count) > std::numeric_limits<uint64_t>::max() / 8) {
    error(pointer({name, "shape"}),
          fmt::format("shape {} has too many elements to be stored", shape_to_string(shape)));
    return std::nullopt;
  }
  return shape;
}

std::optional<std::pair<uint64_t, uint64_t>> HeaderChecker::check_offsets(const std::string& name,
                                                                          const json* field) {
  if (field == nullptr) return std::nullopt;
  const json& value = *field;
  std::string path = pointer({name, "data_offsets"});
  if (!value.is_array() || value.size() != 2) {
    error(path, fmt::format("data_offsets must be a list of two integers [begin, end], got {}",
                            describe(value)));
    return std::nullopt;
  }
  std::optional<uint64_t> bounds[2] = {as_u64(value[0]), as_u64(value[1])};
  for (size_t i = 0; i < 2; ++i) {
    if (!bounds[i]) {
      error(pointer({name, "data_offsets", std::to_string(i)}),
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

std::optional<std::map<std::string, std::string>> HeaderChecker::check_metadata(const json& value) {
  if (!value.is_object()) {
    error(pointer({kMetadataKey}),
          fmt::format("__metadata__ must be an object mapping strings to strings, got {}",
                      describe(value)));
    return std::nullopt;
  }
  std::map<std::string, std::string> metadata;
  bool ok = true;
  for (const auto& [key, text] : value.items()) {
    if (!text.is_string()) {
      error(pointer({kMetadataKey, key}),
            fmt::format("__metadata__ values must be strings, got {}", describe(text)));
      ok = false;
      continue;
    }
    metadata[key] = text.get<std::string>();
  }
  if (!ok) return std::nullopt;
  return metadata;
}

// Sorting by begin makes any overlap show up against the furthest-reaching earlier tensor, so
// one pass finds every overlapping tensor (comparing only adjacent pairs would miss a third
// tensor inside a big first one). Empty tensors occupy no bytes and overlap nothing; torch
// writes them at the current offset, which may be inside no other tensor or exactly at its end.
void HeaderChecker::check_overlaps(std::vector<Entry> entries) {
  std::erase_if(entries, [](const Entry& e) { return e.begin == e.end; });
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  const Entry* reach = nullptr;  // the earlier tensor whose data ends furthest
  for (const Entry& e : entries) {
    if (reach != nullptr && e.begin < reach->end) {
      Diagnostic& diag =
          error(pointer({e.name, "data_offsets"}),
                fmt::format("data of tensor '{}' [{}, {}) overlaps tensor '{}' [{}, {})", e.name,
                            e.begin, e.end, reach->name, reach->begin, reach->end));
      DiagnosticEngine::add_note(
          diag, DiagLocation::in_json(file_, pointer({reach->name, "data_offsets"})),
          fmt::format("tensor '{}' is declared here", reach->name));
    }
    if (reach == nullptr || e.end > reach->end) reach = &e;
  }
}

/// Reads the u64 byte by byte: the input has no alignment guarantee and the host may not be
/// little-endian.
uint64_t read_u64_le(const std::byte* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | std::to_integer<uint64_t>(p[i]);
  return value;
}

/// Parses the header text; JSON syntax errors keep nlohmann's "line 1, column 17" text.
std::optional<json> parse_header(const std::byte* begin, uint64_t length,
                                 const std::string& display_name, DiagnosticEngine& diags) {
  const char* text = reinterpret_cast<const char*>(begin);
  if (size_t deep = find_excess_nesting({text, length}); deep != std::string_view::npos) {
    diags.error(DiagLocation::in_file(display_name),
                fmt::format("header nests JSON more than {} levels deep (at byte {})",
                            kMaxJsonDepth, 8 + deep));
    return std::nullopt;
  }
  try {
    return json::parse(text, text + length);
  } catch (const json::exception& e) {
    // Drop the "[json.exception.parse_error.101] " tag; the rest says where and what.
    std::string_view what = e.what();
    if (size_t tag_end = what.find("] "); !what.empty() && what[0] == '[' && tag_end != what.npos) {
      what.remove_prefix(tag_end + 2);
    }
    diags.error(DiagLocation::in_file(display_name),
                fmt::format("header is not valid JSON: {}", what));
    return std::nullopt;
  }
}

}  // namespace

// ** MappedFile **

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, std::string* error) {
  auto fail = [&](int err) -> std::shared_ptr<const MappedFile> {
    if (error != nullptr) *error = errno_text(err);
    return nullptr;
  };
  // O_NONBLOCK so that a FIFO given by mistake is rejected below instead of hanging in open();
  // it has no effect on regular files.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) return fail(EISDIR);
    if (error != nullptr) *error = "not a regular file";
    return nullptr;
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->size_ = static_cast<size_t>(st.st_size);
  // mmap rejects length 0, so an empty file stays unmapped (data() == nullptr) and the parser
  // reports it as too small. Limitation: if another process truncates the file while it is
  // mapped, reading the lost pages raises SIGBUS; graft does not guard against that.
  if (file->size_ > 0) {
    void* p = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return fail(err);
    }
    file->data_ = static_cast<const std::byte*>(p);
  }
  ::close(fd);  // the mapping holds its own reference to the file
  return file;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

// ** Reading **

std::optional<SafetensorsFile> read_safetensors(const std::string& path, DiagnosticEngine& diags) {
  std::string error;
  std::shared_ptr<const MappedFile> file = MappedFile::open(path, &error);
  if (file == nullptr) {
    diags.error(DiagLocation::in_file(path),
                fmt::format("cannot open safetensors file: {}", error));
    return std::nullopt;
  }
  return parse_safetensors(file->data(), file->size(), file, path, diags);
}

std::optional<SafetensorsFile> parse_safetensors(const std::byte* data, size_t size,
                                                 std::shared_ptr<const void> owner,
                                                 const std::string& display_name,
                                                 DiagnosticEngine& diags) {
  if (size < kLengthBytes) {
    diags.error(DiagLocation::in_file(display_name),
                fmt::format("file too small for a safetensors header: {} bytes, expected at "
                            "least 8",
                            size));
    return std::nullopt;
  }
  uint64_t header_length = read_u64_le(data);
  uint64_t room = size - kLengthBytes;
  if (header_length > room) {
    diags.error(DiagLocation::in_file(display_name),
                fmt::format("header length {} exceeds the file size of {} bytes (at most {} "
                            "bytes can follow the 8-byte length)",
                            header_length, size, room));
    return std::nullopt;
  }
  std::optional<json> header =
      parse_header(data + kLengthBytes, header_length, display_name, diags);
  if (!header) return std::nullopt;
  if (!header->is_object()) {
    diags.error(DiagLocation::in_file(display_name),
                fmt::format("header must be a JSON object mapping tensor names to entries, got {}",
                            describe(*header)));
    return std::nullopt;
  }

  const std::byte* data_start = data + kLengthBytes + header_length;
  HeaderChecker checker(display_name, room - header_length, diags);
  int errors_before = diags.error_count();
  std::vector<Entry> entries;
  SafetensorsFile result;
  for (const auto& [name, value] : header->items()) {
    if (name == kMetadataKey) {
      if (auto metadata = checker.check_metadata(value)) result.metadata = std::move(*metadata);
    } else if (std::optional<Entry> entry = checker.check_tensor(name, value)) {
      entries.push_back(std::move(*entry));
    }
  }
  checker.check_overlaps(entries);
  if (diags.error_count() != errors_before) return std::nullopt;

  for (Entry& e : entries) {
    // Offsets need not be multiples of the dtype size (the format does not promise it), so
    // `data` may be unaligned for its type: consumers memcpy the bytes out rather than
    // dereferencing ConstantTensor::f32() on data they did not allocate.
    ConstantTensor t;
    t.set_type({e.dtype, std::move(e.shape)});
    t.data = data_start + e.begin;
    t.nbytes = static_cast<size_t>(e.end - e.begin);
    // Aliasing constructor: shares ownership of the whole buffer, but get() is this tensor's
    // bytes, which makes an owner self-describing in a debugger.
    t.owner = std::shared_ptr<const void>(owner, t.data);
    result.tensors.emplace(std::move(e.name), std::move(t));
  }
  return result;
}

}  // namespace graft
