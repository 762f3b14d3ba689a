// Constant tensor helpers.
#include "engine/ir/constants.h"

#include <atomic>
#include <cstring>

namespace graft {
namespace {

// Process-wide, so that a reference made against one store never matches an entry of a store
// assigned over it later.
uint64_t next_stamp() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace

const TensorType* ConstantTensor::scalar_f32() {
  static const TensorType* const type = unique_type({DType::kFloat32, {}});
  return type;
}

ConstantTensor ConstantTensor::owned(DType dtype, Shape shape, std::vector<std::byte> bytes) {
  auto buffer = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  ConstantTensor t;
  t.set_type({dtype, std::move(shape)});
  t.data = buffer->data();
  t.nbytes = buffer->size();
  t.owner = std::move(buffer);
  return t;
}

ConstantTensor ConstantTensor::from_floats(Shape shape, const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return owned(DType::kFloat32, std::move(shape), std::move(bytes));
}

bool computed_from_buffers(const std::vector<const ConstantTensor*>& operands) {
  bool any = false;
  for (const ConstantTensor* t : operands) {
    if (t == nullptr) continue;
    if (!t->buffer) return false;
    any = true;
  }
  return any;
}

ConstantStore& ConstantStore::operator=(const ConstantStore& other) {
  if (this == &other) return *this;
  entries_.clear();
  free_.clear();
  index_ = NameIndex<Entry>();
  for (const Entry& e : other.all()) set(e.key, e.tensor);
  return *this;
}

const ConstantTensor* ConstantStore::find(std::string_view name) const {
  const Entry* e = index_.find(name);
  return e == nullptr ? nullptr : &e->tensor;
}

bool ConstantStore::is_current(const ConstantRef& ref) const {
  return ref.stamp != 0 && ref.slot < entries_.size() && entries_[ref.slot].stamp == ref.stamp;
}

const ConstantTensor* ConstantStore::find(std::string_view name, const ConstantRef& ref) const {
  return is_current(ref) ? &entries_[ref.slot].tensor : find(name);
}

ConstantRef ConstantStore::ref_of(std::string_view name) const {
  const Entry* e = index_.find(name);
  if (e == nullptr) return {};
  return {static_cast<uint32_t>(e->slot), e->stamp};
}

ConstantStore::Entry* ConstantStore::add_or_find(const std::string& name, bool* added) {
  Entry* e = nullptr;
  if (!free_.empty()) {
    e = &entries_[free_.back()];
  } else {
    e = &entries_.emplace_back();
    e->slot = entries_.size() - 1;
    free_.push_back(e->slot);  // until it is indexed below
  }
  e->key = name;
  if (Entry* existing = index_.insert_or_find(e)) {
    e->key.clear();  // stays free
    *added = false;
    return existing;
  }
  free_.pop_back();
  e->stamp = next_stamp();
  e->readers = 0;
  e->live = true;
  *added = true;
  return e;
}

void ConstantStore::set(const std::string& name, ConstantTensor tensor) {
  bool added = false;
  Entry* e = add_or_find(name, &added);
  e->tensor = std::move(tensor);  // an existing entry keeps its stamp: references stay current
}

ConstantRef ConstantStore::store_unless_read(const std::string& name, ConstantTensor&& tensor) {
  bool added = false;
  Entry* e = add_or_find(name, &added);
  if (!added) {
    if (e->readers > 0) return {};
    e->stamp = next_stamp();  // as a new entry: references to the old tensor go stale
  }
  e->tensor = std::move(tensor);
  return {static_cast<uint32_t>(e->slot), e->stamp};
}

bool ConstantStore::erase(std::string_view name) {
  Entry* e = index_.find(name);
  if (e == nullptr) return false;
  index_.erase(name);
  e->live = false;
  e->stamp = 0;
  free_.push_back(e->slot);
  e->key.clear();
  e->tensor = ConstantTensor{};  // drops the bytes now
  return true;
}

uint32_t ConstantStore::readers(std::string_view name) const {
  const Entry* e = index_.find(name);
  return e == nullptr ? 0 : e->readers;
}

void ConstantStore::add_readers(const ConstantRef& ref, int delta) {
  if (!is_current(ref)) return;
  Entry& e = entries_[ref.slot];
  e.readers = static_cast<uint32_t>(static_cast<int64_t>(e.readers) + delta);
}

std::string ConstantStore::unique_name(const std::string& base) const {
  if (!contains(base) && base != kReservedConstantName) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!contains(candidate)) return candidate;
  }
}

}  // namespace graft
