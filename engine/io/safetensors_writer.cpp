// The safetensors writer. Deterministic: the same tensors give the same bytes, so a file named
// after its contents keeps its name across saves.
#include "engine/io/safetensors_writer.h"

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "engine/io/json_values.h"
#include "engine/support/check.h"
#include "engine/support/prefault.h"

namespace graft {
namespace {

using nlohmann::json;

constexpr size_t kLengthBytes = 8;  // the u64 header length in front of the header

/// The length prefix and the header, padded. The header is what nlohmann's dump() gives for an
/// object of the tensors (compact, keys sorted, as std::map sorts them), written directly: a
/// model may have hundreds of thousands of tensors.
std::string header_bytes(const std::map<std::string, ConstantTensor>& tensors,
                         const std::map<std::string, std::string>& metadata) {
  std::string text = "{";
  auto key = [&](std::string_view name) {
    if (text.size() > 1) text += ',';
    // Names that are not valid UTF-8 are written with U+FFFD rather than throwing from a writer.
    append_json_string(text, name, /*replace_invalid=*/true);
    text += ':';
  };
  bool metadata_due = !metadata.empty();
  auto write_metadata = [&] {
    key(kReservedConstantName);
    text += json(metadata).dump(-1, ' ', false, json::error_handler_t::replace);
    metadata_due = false;
  };
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    // A tensor with this name would be read back as the metadata block.
    GRAFT_CHECK(name != kReservedConstantName)
        << "a tensor cannot be named '" << kReservedConstantName << "'";
    GRAFT_DCHECK(t.nbytes % dtype_size(t.dtype()) == 0 && element_count(t.shape()) == t.numel())
        << "tensor '" << name << "' has " << t.nbytes << " bytes for " << type_to_string(t.type());
    if (metadata_due && std::string_view(name) > kReservedConstantName) write_metadata();
    key(name);
    text += "{\"data_offsets\":[";
    append_json_integer(text, offset);
    text += ',';
    append_json_integer(text, offset + t.nbytes);
    text += "],\"dtype\":";
    append_json_string(text, dtype_safetensors_name(t.dtype()));
    text += ",\"shape\":[";
    for (size_t i = 0; i < t.shape().size(); ++i) {
      if (i > 0) text += ',';
      append_json_integer(text, t.shape()[i]);
    }
    text += "]}";
    offset += t.nbytes;
  }
  if (metadata_due) write_metadata();
  text += '}';
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
