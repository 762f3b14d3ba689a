// The safetensors writer. Deterministic: the same tensors give the same bytes, so a file named
// after its contents keeps its name across saves.
#include "engine/io/safetensors_writer.h"

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "engine/support/check.h"
#include "engine/support/prefault.h"

namespace graft {
namespace {

using nlohmann::json;

constexpr size_t kLengthBytes = 8;  // the u64 header length in front of the header

/// The length prefix and the header, padded.
std::string header_bytes(const std::map<std::string, ConstantTensor>& tensors,
                         const std::map<std::string, std::string>& metadata) {
  json header = json::object();
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    // A tensor with this name would be read back as the metadata block.
    GRAFT_CHECK(name != kReservedConstantName)
        << "a tensor cannot be named '" << kReservedConstantName << "'";
    GRAFT_DCHECK(t.nbytes % dtype_size(t.dtype()) == 0 && element_count(t.shape()) == t.numel())
        << "tensor '" << name << "' has " << t.nbytes << " bytes for " << type_to_string(t.type());
    header[name] = {{"dtype", dtype_safetensors_name(t.dtype())},
                    {"shape", t.shape()},
                    {"data_offsets", json::array({offset, offset + t.nbytes})}};
    offset += t.nbytes;
  }
  if (!metadata.empty()) header[std::string(kReservedConstantName)] = metadata;

  // Compact and key-sorted (nlohmann's object is a std::map), hence deterministic. Names that
  // are not valid UTF-8 are written with U+FFFD rather than throwing from a writer.
  std::string text = header.dump(-1, ' ', false, json::error_handler_t::replace);
  // Padding to 8 keeps the data section 8-aligned in the file, as the reference writer does.
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(kLengthBytes + text.size());
  for (size_t i = 0; i < kLengthBytes; ++i) {
    out.push_back(static_cast<char>((static_cast<uint64_t>(text.size()) >> (8 * i)) & 0xff));
  }
  return out + text;
}

class StringSink : public ByteSink {
 public:
  bool write(std::string_view bytes) override {
    out.append(bytes);
    return true;
  }
  std::string out;
};

}  // namespace

bool write_safetensors(const std::map<std::string, ConstantTensor>& tensors,
                       const std::map<std::string, std::string>& metadata, ByteSink& sink) {
  if (!sink.write(header_bytes(tensors, metadata))) return false;
  for (const auto& [name, t] : tensors) {
    const char* data = reinterpret_cast<const char*>(t.data);
    for (size_t at = 0; at < t.nbytes; at += kSafetensorsChunk) {
      size_t n = std::min(kSafetensorsChunk, t.nbytes - at);
      if (!sink.write({data + at, n})) return false;
      page_out(data + at, n);
    }
  }
  return true;
}

std::string serialize_safetensors(const std::map<std::string, ConstantTensor>& tensors,
                                  const std::map<std::string, std::string>& metadata) {
  StringSink sink;
  (void)write_safetensors(tensors, metadata, sink);  // a StringSink never fails
  return std::move(sink.out);
}

}  // namespace graft
