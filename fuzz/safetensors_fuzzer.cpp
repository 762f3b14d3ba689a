// fuzz_safetensors: the safetensors reader (engine/io/safetensors.h) on arbitrary bytes.
//
// The input is copied into a buffer of exactly its size, so ASan flags any read past the end.
// Beyond "no crash", it checks the reader's promises: a rejection comes with an error; an
// accepted file's tensors lie inside the data section with the byte count their type needs;
// and writing the tensors back (serialize_safetensors) and reading that again gives the same
// names, types, bytes and metadata.
#include <cstring>
#include <memory>
#include <string>

#include "engine/io/safetensors.h"
#include "engine/io/safetensors_writer.h"
#include "fuzz/fuzz_support.h"

namespace {

using graft::DiagnosticEngine;
using graft::SafetensorsFile;
using graft::fuzz::fail;

std::optional<SafetensorsFile> parse(const std::string& bytes, DiagnosticEngine& diags) {
  std::shared_ptr<std::byte[]> copy(new std::byte[bytes.size()]);
  if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
  return graft::parse_safetensors(copy.get(), bytes.size(), copy, "fuzz.safetensors", diags);
}

void check_tensors(const SafetensorsFile& file) {
  for (const auto& [name, t] : file.tensors) {
    std::optional<int64_t> count = graft::element_count(t.shape());
    if (!count || static_cast<uint64_t>(*count) * graft::dtype_size(t.dtype()) != t.nbytes) {
      fail("safetensors: tensor size", "tensor '" + name + "' has " + std::to_string(t.nbytes) +
                                           " bytes for " + graft::type_to_string(t.type()));
    }
    // Reading every byte lets ASan check that the tensor lies inside the input buffer.
    volatile unsigned sum = 0;
    for (size_t i = 0; i < t.nbytes; ++i) sum = sum + std::to_integer<unsigned>(t.data[i]);
    (void)sum;
  }
}

void check_round_trip(const SafetensorsFile& file) {
  std::string written = graft::serialize_safetensors(file.tensors, file.metadata);
  DiagnosticEngine diags;
  std::optional<SafetensorsFile> again = parse(written, diags);
  if (!again) fail("safetensors: written file rejected", diags.render());
  if (again->metadata != file.metadata) fail("safetensors: round trip", "metadata differs");
  if (again->tensors.size() != file.tensors.size()) {
    fail("safetensors: round trip", "tensor count differs");
  }
  for (const auto& [name, t] : file.tensors) {
    auto it = again->tensors.find(name);
    if (it == again->tensors.end()) fail("safetensors: round trip", "tensor '" + name + "' lost");
    const graft::ConstantTensor& u = it->second;
    if (u.type() != t.type() || u.nbytes != t.nbytes ||
        (t.nbytes > 0 && std::memcmp(u.data, t.data, t.nbytes) != 0)) {
      fail("safetensors: round trip", "tensor '" + name + "' differs");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = parse(bytes, diags);
  std::string rendered = diags.render();
  if (!file) {
    if (!diags.has_errors()) fail("safetensors: rejected without an error", "");
    return 0;
  }
  if (diags.has_errors()) fail("safetensors: accepted with errors", rendered);
  check_tensors(*file);
  check_round_trip(*file);
  return 0;
}
