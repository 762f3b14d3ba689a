// "Did you mean" suggestions: Levenshtein distance and nearest-candidate lookup.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace graft {

/// Levenshtein distance between `a` and `b`, stopping early once it exceeds `max_distance`.
int edit_distance(std::string_view a, std::string_view b, int max_distance = 1 << 20);

/// The candidate nearest to `word`, or "" when none is close enough to be a plausible typo.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" or "" — ready to append to a message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace graft
