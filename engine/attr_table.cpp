#include "engine/attr_table.h"

#include <bit>
#include <type_traits>
#include <utility>

#include "engine/support/hash.h"

namespace graft {

uint64_t hash_attrs(const AttrList& attrs) {
  using namespace hash_detail;
  uint64_t h = mix(kMul, attrs.size());
  for (const AttrValue& a : attrs) {
    h = mix(h, a.index());
    std::visit(
        [&h](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int64_t>) {
            h = mix(h, static_cast<uint64_t>(v));
          } else if constexpr (std::is_same_v<T, double>) {
            h = mix(h, std::bit_cast<uint64_t>(v));  // bits, as attrs_identical compares
          } else if constexpr (std::is_same_v<T, std::string>) {
            h = mix(h, hash_string(v));
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            h = mix(h, v.size());
            for (int64_t x : v) h = mix(h, static_cast<uint64_t>(x));
          } else if constexpr (std::is_same_v<T, std::vector<double>>) {
            h = mix(h, v.size());
            for (double x : v) h = mix(h, std::bit_cast<uint64_t>(x));
          }
        },
        a);
  }
  return finish(h);
}

AttrTable::Slot& AttrTable::slot_of(const AttrList& attrs, uint64_t h) {
  if (2 * (lists_.size() + 1) > slots_.size()) {  // room for one more at most half full
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.list == nullptr) continue;
      size_t i = s.hash & mask;
      while (slots_[i].list != nullptr) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.list == nullptr || (s.hash == h && attrs_identical(*s.list, attrs))) return s;
  }
}

const AttrList* AttrTable::add(Slot& slot, uint64_t h, AttrList&& attrs) {
  lists_.push_back(std::make_unique<const AttrList>(std::move(attrs)));
  slot = {h, lists_.back().get()};
  return slot.list;
}

const AttrList* AttrTable::intern(const AttrList& attrs) {
  if (attrs.empty()) return &kNoAttrs;
  const uint64_t h = hash_attrs(attrs);
  Slot& slot = slot_of(attrs, h);
  return slot.list != nullptr ? slot.list : add(slot, h, AttrList(attrs));
}

const AttrList* AttrTable::intern(AttrList&& attrs) {
  if (attrs.empty()) return &kNoAttrs;
  const uint64_t h = hash_attrs(attrs);
  Slot& slot = slot_of(attrs, h);
  return slot.list != nullptr ? slot.list : add(slot, h, std::move(attrs));
}

}  // namespace graft
