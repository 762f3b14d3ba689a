#include "engine/ir/attr_table.h"

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
          } else if constexpr (std::is_same_v<T, SymInts>) {
            h = mix(h, v.size());
            for (const SymInt& x : v) {
              const auto* symbol = std::get_if<std::string>(&x);
              h = mix(h, symbol ? hash_string(*symbol) : static_cast<uint64_t>(std::get<int64_t>(x)));
            }
          }
        },
        a);
  }
  return finish(h);
}

template <typename List>
const AttrList* AttrTable::intern_list(List&& attrs) {
  if (attrs.empty()) return &kNoAttrs;
  const size_t h = hash_attrs(attrs);
  slots_.make_room();
  const size_t i = slots_.probe(h, [&](const Slot& s) { return attrs_identical(*s.list, attrs); });
  if (slots_[i].occupied()) return slots_[i].list;
  lists_.push_back(std::make_unique<const AttrList>(std::forward<List>(attrs)));
  slots_.fill(i, {h, lists_.back().get()});
  return lists_.back().get();
}

const AttrList* AttrTable::intern(const AttrList& attrs) { return intern_list(attrs); }

const AttrList* AttrTable::intern(AttrList&& attrs) { return intern_list(std::move(attrs)); }

}  // namespace graft
