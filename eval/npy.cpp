// .npy parsing and writing (format: numpy/lib/format.py's docstring) and a minimal
// uncompressed .npz (zip "stored" entries, as numpy.savez writes without compression).
#include "eval/npy.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <limits>

#include "engine/support/atomic_file.h"
#include "engine/support/input_file.h"
#include "engine/support/terminal_text.h"
#include "eval/npy_header.h"

namespace graft::eval {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
/// The longest header dict read: numpy writes under 200 bytes for graft's dtypes and (since 1.24)
/// refuses more than 10000 by default; version 1's 16-bit length allows 65535.
constexpr uint64_t kMaxNpyHeaderBytes = 65535;

bool fail(DiagnosticEngine& diags, const std::string& file, const std::string& message) {
  diags.error(DiagLocation::in_file(file), message);
  return false;
}

/// The bytes of a .npy file, in memory or read from the file as needed: only the header is
/// read before the data's size is known to match it.
struct NpySource {
  uint64_t size;
  std::function<bool(uint64_t offset, void* out, size_t n, std::string* error)> read;
};

struct NpyHeader {
  Shape shape;
  std::string descr;
  size_t item = 4;  // bytes per element in the file
  DType dtype = DType::kFloat32;  // the tensor's (float64 is narrowed to float32)
  uint64_t data_start = 0;
};

/// The magic, version and header dict; nullopt after reporting.
std::optional<NpyHeader> read_header(const NpySource& source, const std::string& name,
                                     DiagnosticEngine& diags) {
  std::string error;
  unsigned char prefix[12] = {};
  const size_t prefix_size = static_cast<size_t>(std::min<uint64_t>(source.size, 12));
  if (!source.read(0, prefix, prefix_size, &error)) {
    fail(diags, name, error);
    return std::nullopt;
  }
  if (source.size < 10 || std::memcmp(prefix, kMagic, 6) != 0) {
    fail(diags, name, "not a .npy file (it does not start with the magic '\\x93NUMPY')");
    return std::nullopt;
  }
  const unsigned major = prefix[6];
  uint64_t header_len = 0;
  uint64_t header_start = 0;
  if (major == 1) {
    header_len = prefix[8] | uint64_t{prefix[9]} << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (source.size < 12) {
      fail(diags, name, "truncated .npy header");
      return std::nullopt;
    }
    for (int i = 3; i >= 0; --i) header_len = header_len << 8 | prefix[8 + i];
    header_start = 12;
  } else {
    fail(diags, name, "unsupported .npy version " + std::to_string(major) + " (expected 1, 2 or 3)");
    return std::nullopt;
  }
  if (header_len > kMaxNpyHeaderBytes) {
    fail(diags, name, "the .npy header declares " + std::to_string(header_len) +
                          " bytes; graft reads headers up to " +
                          std::to_string(kMaxNpyHeaderBytes) + " bytes");
    return std::nullopt;
  }
  if (header_start + header_len > source.size) {
    fail(diags, name, "truncated .npy header: it declares " + std::to_string(header_len) +
                          " bytes, the file has " + std::to_string(source.size - header_start));
    return std::nullopt;
  }
  std::string header(static_cast<size_t>(header_len), '\0');
  if (!source.read(header_start, header.data(), header.size(), &error)) {
    fail(diags, name, error);
    return std::nullopt;
  }
  NpyHeader out;
  out.data_start = header_start + header_len;
  std::variant<NpyHeaderDict, std::string> dict = parse_npy_header_dict(header);
  if (const auto* message = std::get_if<std::string>(&dict)) {
    fail(diags, name, "malformed .npy header " +
                          escape_for_terminal(header.substr(0, header.find_last_not_of(" \n") + 1)) +
                          ": " + *message);
    return std::nullopt;
  }
  auto& fields = std::get<NpyHeaderDict>(dict);
  out.descr = "'" + fields.descr + "'";
  out.shape = std::move(fields.shape);
  if (fields.fortran_order) {
    fail(diags, name, "Fortran-order arrays are not supported (save with numpy.ascontiguousarray)");
    return std::nullopt;
  }
  if (fields.descr == "<f4") {
    out.item = 4;
  } else if (fields.descr == "<f8") {
    out.item = 8;
  } else if (fields.descr == "<i8") {
    out.item = 8;
    out.dtype = DType::kInt64;
  } else if (fields.descr == "|b1") {
    out.item = 1;
    out.dtype = DType::kBool;
  } else {
    fail(diags, name, "unsupported dtype " + escape_for_terminal(out.descr) +
                          " (expected '<f4' float32, '<f8' float64, '<i8' int64 or '|b1' bool)");
    return std::nullopt;
  }
  return out;
}

/// Checks the data's size against the header, then allocates the tensor and reads it.
std::optional<Tensor> read_npy_from(const NpySource& source, const std::string& name,
                                    DiagnosticEngine& diags) {
  std::optional<NpyHeader> header = read_header(source, name, diags);
  if (!header) return std::nullopt;
  // The shape is checked before anything is allocated: a 100-byte file may declare any size.
  const TensorType type{header->dtype, header->shape};
  if (!within_size_limit(type)) {
    fail(diags, name, size_limit_message(type));
    return std::nullopt;
  }
  const uint64_t have = source.size - header->data_start;
  const uint64_t want = static_cast<uint64_t>(*element_count(header->shape)) * header->item;
  if (have != want) {
    fail(diags, name, "the file holds " + std::to_string(have) + " bytes of data, but shape " +
                          shape_to_string(header->shape) + " of " + header->descr + " needs " +
                          std::to_string(want));
    return std::nullopt;
  }
  Tensor t = Tensor::zeros(header->dtype, header->shape);
  std::string error;
  bool ok = true;
  if (header->item == dtype_size(header->dtype)) {
    ok = source.read(header->data_start, t.data(), static_cast<size_t>(want), &error);
  } else {
    // float64 is narrowed a block at a time, so the file's bytes are never held whole.
    constexpr size_t kBlock = 8192;
    std::vector<double> block(std::min<uint64_t>(kBlock, static_cast<uint64_t>(t.numel())));
    for (int64_t done = 0; ok && done < t.numel();) {
      const size_t n = static_cast<size_t>(std::min<int64_t>(kBlock, t.numel() - done));
      ok = source.read(header->data_start + static_cast<uint64_t>(done) * 8, block.data(), n * 8,
                       &error);
      for (size_t i = 0; ok && i < n; ++i) t.f32()[done + static_cast<int64_t>(i)] = static_cast<float>(block[i]);
      done += static_cast<int64_t>(n);
    }
  }
  if (!ok) {
    fail(diags, name, error);
    return std::nullopt;
  }
  if (t.dtype() == DType::kBool) {
    // numpy writes 0 and 1; any other byte is true, as numpy reads it.
    for (int64_t i = 0; i < t.numel(); ++i) t.b8()[i] = t.b8()[i] != 0 ? 1 : 0;
  }
  return t;
}

uint32_t crc32(const std::string& data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char byte : data) c = table[(c ^ byte) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void put16(std::string& out, uint32_t v) {
  out += static_cast<char>(v & 0xFF);
  out += static_cast<char>((v >> 8) & 0xFF);
}
void put32(std::string& out, uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}

}  // namespace

std::optional<Tensor> parse_npy(const std::string& bytes, const std::string& name,
                                DiagnosticEngine& diags) {
  NpySource source{bytes.size(), [&](uint64_t offset, void* out, size_t n, std::string*) {
                     std::memcpy(out, bytes.data() + offset, n);
                     return true;
                   }};
  return read_npy_from(source, name, diags);
}

std::optional<Tensor> read_npy(const std::string& path, DiagnosticEngine& diags) {
  // No limit on the file's size here: it must equal what the header declares, which is
  // checked against the limit for one tensor before anything is allocated.
  std::string error;
  std::optional<InputFile> file =
      InputFile::open(path, {".npy file", std::numeric_limits<uint64_t>::max()}, &error);
  if (!file) {
    fail(diags, path, error);
    return std::nullopt;
  }
  NpySource source{file->size(), [&](uint64_t offset, void* out, size_t n, std::string* why) {
                     return file->read_at(offset, out, n, why);
                   }};
  return read_npy_from(source, path, diags);
}

std::string npy_bytes(const Tensor& tensor) {
  // numpy's tuple repr: "()", "(3,)", "(2, 3)".
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    shape += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  }
  shape += tensor.shape().size() == 1 ? ",)" : ")";
  const char* descr = tensor.dtype() == DType::kInt64  ? "<i8"
                      : tensor.dtype() == DType::kBool ? "|b1"
                                                       : "<f4";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " +
                       shape + ", }";
  // Pad so that magic + version + length + header is a multiple of 64 and ends in '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  put16(out, static_cast<uint32_t>(header.size()));
  out += header;
  out.append(static_cast<const char*>(tensor.data()), tensor.nbytes());
  return out;
}

std::optional<std::string> npz_bytes(const std::vector<std::pair<std::string, Tensor>>& arrays,
                                     std::string* error) {
  std::string out, central;
  uint16_t count = 0;
  for (const auto& [name, tensor] : arrays) {
    std::string file = name + ".npy";
    std::string data = npy_bytes(tensor);
    if (data.size() >= 0xFFFFFFFFu || out.size() >= 0xFFFFFFFFu - data.size() - 1024) {
      *error = "the outputs exceed 4 GB, which needs zip64 (not supported)";
      return std::nullopt;
    }
    const uint32_t crc = crc32(data);
    const auto offset = static_cast<uint32_t>(out.size());
    // Local file header: version 2.0, no flags, stored, no time stamp.
    put32(out, 0x04034b50);
    put16(out, 20); put16(out, 0); put16(out, 0); put16(out, 0); put16(out, 0x21);
    put32(out, crc); put32(out, static_cast<uint32_t>(data.size())); put32(out, static_cast<uint32_t>(data.size()));
    put16(out, static_cast<uint32_t>(file.size())); put16(out, 0);
    out += file;
    out += data;
    // Its central directory record.
    put32(central, 0x02014b50);
    put16(central, 20); put16(central, 20); put16(central, 0); put16(central, 0); put16(central, 0);
    put16(central, 0x21);
    put32(central, crc); put32(central, static_cast<uint32_t>(data.size())); put32(central, static_cast<uint32_t>(data.size()));
    put16(central, static_cast<uint32_t>(file.size())); put16(central, 0); put16(central, 0);
    put16(central, 0); put16(central, 0); put32(central, 0); put32(central, offset);
    central += file;
    ++count;
  }
  const auto central_offset = static_cast<uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50);
  put16(out, 0); put16(out, 0); put16(out, count); put16(out, count);
  put32(out, static_cast<uint32_t>(central.size())); put32(out, central_offset); put16(out, 0);
  return out;
}

bool write_npy(const std::string& path, const Tensor& tensor, DiagnosticEngine& diags) {
  std::string error;
  if (!write_file_atomically(path, npy_bytes(tensor), &error)) return fail(diags, path, error);
  return true;
}

bool write_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays,
               DiagnosticEngine& diags) {
  std::string error;
  std::optional<std::string> bytes = npz_bytes(arrays, &error);
  if (!bytes) return fail(diags, path, error);
  if (!write_file_atomically(path, *bytes, &error)) return fail(diags, path, error);
  return true;
}

}  // namespace graft::eval
