// .npy parsing and writing (format: numpy/lib/format.py's docstring) and a minimal
// uncompressed .npz (zip "stored" entries, as numpy.savez writes without compression).
#include "runtime/npy.h"

#include <array>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/support/atomic_file.h"

namespace graft::runtime {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

bool fail(DiagnosticEngine& diags, const std::string& file, const std::string& message) {
  diags.error(DiagLocation::in_file(file), message);
  return false;
}

/// The value text after `'key':` in the header dict ("'<f4'", "False", "(2, 3)"), or "".
std::string dict_value(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) return "";
  size_t begin = header.find_first_not_of(" ", colon + 1);
  if (begin == std::string::npos) return "";
  char open = header[begin];
  size_t end;
  if (open == '(' || open == '\'') {
    end = header.find(open == '(' ? ')' : '\'', begin + 1);
    if (end == std::string::npos) return "";
    ++end;
  } else {
    end = header.find_first_of(",}", begin);
    if (end == std::string::npos) return "";
  }
  std::string value = header.substr(begin, end - begin);
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return value;
}

std::optional<Shape> parse_shape(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return std::nullopt;
  Shape shape;
  std::stringstream in(text.substr(1, text.size() - 2));
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;  // the trailing comma of "(3,)"
    item = item.substr(b);
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos ||
        item.size() > 15) {
      return std::nullopt;
    }
    shape.push_back(std::stoll(item));
  }
  return shape;
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
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) {
    fail(diags, name, "not a .npy file (it does not start with the magic '\\x93NUMPY')");
    return std::nullopt;
  }
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      fail(diags, name, "truncated .npy header");
      return std::nullopt;
    }
    header_len = 0;
    for (int i = 3; i >= 0; --i) header_len = header_len << 8 | static_cast<unsigned char>(bytes[8 + static_cast<size_t>(i)]);
    header_start = 12;
  } else {
    fail(diags, name, "unsupported .npy version " + std::to_string(major) + " (expected 1, 2 or 3)");
    return std::nullopt;
  }
  if (header_start + header_len > bytes.size()) {
    fail(diags, name, "truncated .npy header: it declares " + std::to_string(header_len) +
                          " bytes, the file has " + std::to_string(bytes.size() - header_start));
    return std::nullopt;
  }
  std::string header = bytes.substr(header_start, header_len);
  std::string descr = dict_value(header, "descr");
  std::string order = dict_value(header, "fortran_order");
  std::optional<Shape> shape = parse_shape(dict_value(header, "shape"));
  if (descr.empty() || order.empty() || !shape) {
    fail(diags, name, "malformed .npy header " + header.substr(0, header.find_last_not_of(" \n") + 1) +
                          " (expected 'descr', 'fortran_order' and 'shape')");
    return std::nullopt;
  }
  if (order != "False") {
    fail(diags, name, "Fortran-order arrays are not supported (save with numpy.ascontiguousarray)");
    return std::nullopt;
  }
  size_t item;
  if (descr == "'<f4'") {
    item = 4;
  } else if (descr == "'<f8'") {
    item = 8;
  } else {
    fail(diags, name, "unsupported dtype " + descr + " (expected '<f4' float32 or '<f8' float64)");
    return std::nullopt;
  }
  Tensor t = Tensor::zeros(DType::kFloat32, *shape);
  const size_t data_start = header_start + header_len;
  const size_t want = static_cast<size_t>(t.numel()) * item;
  if (bytes.size() - data_start != want) {
    fail(diags, name, "the file holds " + std::to_string(bytes.size() - data_start) +
                          " bytes of data, but shape " + shape_to_string(*shape) + " of " + descr +
                          " needs " + std::to_string(want));
    return std::nullopt;
  }
  const char* data = bytes.data() + data_start;
  if (item == 4) {
    if (want > 0) std::memcpy(t.data(), data, want);
  } else {
    for (int64_t i = 0; i < t.numel(); ++i) {
      double v;
      std::memcpy(&v, data + static_cast<size_t>(i) * 8, 8);
      t.f32()[i] = static_cast<float>(v);
    }
  }
  return t;
}

std::optional<Tensor> read_npy(const std::string& path, DiagnosticEngine& diags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fail(diags, path, std::string("cannot open the file: ") + std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_npy(buffer.str(), path, diags);
}

std::string npy_bytes(const Tensor& tensor) {
  // numpy's tuple repr: "()", "(3,)", "(2, 3)".
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    shape += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  }
  shape += tensor.shape().size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
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

}  // namespace graft::runtime
