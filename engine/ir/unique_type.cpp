// The process's table of uniqued tensor types (unique_type in shape.h).
#include <deque>
#include <mutex>

#include "engine/ir/shape.h"
#include "engine/support/hash.h"
#include "engine/support/probe_slots.h"

namespace graft {
namespace {

struct TypeSlot {
  size_t hash = 0;
  const TensorType* type = nullptr;  // nullptr: empty
  bool occupied() const { return type != nullptr; }
};

struct TypeTable {
  std::mutex mutex;
  std::deque<TensorType> types;  // a deque: push_back never moves what it holds
  ProbeSlots<TypeSlot> slots;    // `types` by hash_type
};

TypeTable& table() {
  static TypeTable* t = new TypeTable();  // never destroyed: types outlive static destructors
  return *t;
}

size_t hash_type(const TensorType& type) {
  using namespace hash_detail;
  uint64_t h = mix(kMul, static_cast<uint64_t>(type.dtype) << 32 | type.shape.size());
  for (Dim d : type.shape) h = mix(h, static_cast<uint64_t>(d));
  return finish(h);
}

}  // namespace

const TensorType* unique_type(const TensorType& type) {
  const size_t h = hash_type(type);
  TypeTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.slots.make_room();
  const size_t i = t.slots.probe(h, [&](const TypeSlot& s) { return *s.type == type; });
  if (t.slots[i].occupied()) return t.slots[i].type;
  const TensorType* stored = &t.types.emplace_back(type);
  t.slots.fill(i, {h, stored});
  return stored;
}

bool is_unique_type(const TensorType* type) {
  return type != nullptr && unique_type(*type) == type;
}

size_t unique_type_count() {
  TypeTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.types.size();
}

}  // namespace graft
