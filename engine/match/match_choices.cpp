// Choices and conflict sets: the parts a rule with choices pays for.
#include "engine/match/match_choices.h"

namespace graft {

void Choices::copy_reason(std::vector<uint64_t>& reasons, uint32_t slot, Origin origin) const {
  uint64_t* to = &reasons[slot * words_];
  std::fill(to, to + words_, 0);
  add(to, reasons, origin.slot);
  set_bit(to, origin.choice);
}

void Choices::set_conflict(const std::vector<uint64_t>& reasons, Origin origin,
                           const uint32_t* slots, const uint32_t* end) {
  std::fill(conflict_.begin(), conflict_.end(), 0);
  add(conflict_.data(), reasons, origin.slot);
  set_bit(conflict_.data(), origin.choice);
  for (; slots != end; ++slots) add(conflict_.data(), reasons, *slots);
}

}  // namespace graft
