// See shared_constants.h. A value is hashed once when stored and once per later fold; equal
// hashes are confirmed byte by byte, so a collision costs a comparison, never a wrong weight.
#include "engine/rewrite/shared_constants.h"

#include <cstring>
#include <string_view>
#include <utility>

#include "engine/support/content_hash.h"

namespace graft {

uint64_t SharedConstants::key_of(const ConstantTensor& value) {
  uint64_t bytes =
      content_hash(std::string_view(reinterpret_cast<const char*>(value.data), value.nbytes));
  // Types are uniqued: equal types are one pointer.
  return bytes ^ (reinterpret_cast<uintptr_t>(&value.type()) * 0x9E3779B97F4A7C15ull);
}

SharedConstants::Stored* SharedConstants::find(const ConstantStore& store,
                                               const ConstantTensor& value) {
  auto [begin, end] = by_content_.equal_range(key_of(value));
  for (auto it = begin; it != end; ++it) {
    Stored& s = it->second;
    const ConstantTensor* t = store.find(s.name, s.ref);
    if (t == nullptr || store.ref_of(s.name).stamp != s.ref.stamp) continue;  // erased since
    // A buffer and a parameter of equal bytes stay apart: `buffer(w)` tells them apart.
    if (&t->type() == &value.type() && t->nbytes == value.nbytes && t->buffer == value.buffer &&
        (value.nbytes == 0 || std::memcmp(t->data, value.data, value.nbytes) == 0)) {
      return &s;
    }
  }
  return nullptr;
}

void SharedConstants::add(const ConstantTensor& value, std::string name, const ConstantRef& ref,
                          std::string node_name) {
  by_content_.emplace(key_of(value), Stored{std::move(name), ref, std::move(node_name), {}});
}

}  // namespace graft
