// fuzz_npy: the .npy reader of `rewrite run --input` (eval/npy.h) on arbitrary bytes as the
// file's contents.
//
// Checks: a rejection comes with an error; an accepted file gives a float32, int64 or bool tensor whose bytes
// fit in the file (the reader allocates only after the header's shape matched the data, so a
// small file can never make it allocate much); and writing the tensor back (npy_bytes) and
// reading that again gives the same shape and bytes.
#include <cstring>
#include <string>

#include "fuzz/fuzz_support.h"
#include "eval/npy.h"

namespace {

using graft::DiagnosticEngine;
using graft::fuzz::fail;
using graft::eval::Tensor;

void check_round_trip(const Tensor& t) {
  std::string written = graft::eval::npy_bytes(t);
  DiagnosticEngine diags;
  std::optional<Tensor> again = graft::eval::parse_npy(written, "written.npy", diags);
  if (!again) fail("npy: written file rejected", diags.render());
  if (again->dtype() != t.dtype() || again->shape() != t.shape()) {
    fail("npy: round trip", "shape " + graft::shape_to_string(t.shape()) + " came back as " +
                                graft::shape_to_string(again->shape()));
  }
  if (t.nbytes() > 0 && std::memcmp(again->data(), t.data(), t.nbytes()) != 0) {
    fail("npy: round trip", "the data differs");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  DiagnosticEngine diags;
  std::optional<Tensor> t = graft::eval::parse_npy(bytes, "fuzz.npy", diags);
  if (!t) {
    if (!diags.has_errors()) fail("npy: rejected without an error", "");
    return 0;
  }
  if (diags.has_errors()) fail("npy: accepted with errors", diags.render());
  if (t->dtype() != graft::DType::kFloat32 && t->dtype() != graft::DType::kInt64 &&
      t->dtype() != graft::DType::kBool) {
    fail("npy: accepted as a dtype other than float32, int64 or bool", "");
  }
  if (t->nbytes() > size) {
    fail("npy: the tensor is larger than the file",
         graft::shape_to_string(t->shape()) + " from " + std::to_string(size) + " bytes");
  }
  check_round_trip(*t);
  return 0;
}
