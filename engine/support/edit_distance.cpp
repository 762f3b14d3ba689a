// Levenshtein distance with an early exit, as ninja's EditDistance.
#include "engine/support/edit_distance.h"

#include <algorithm>

namespace graft {

int edit_distance(std::string_view a, std::string_view b, int max_distance) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    int best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      int substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
      best = std::min(best, row[j]);
    }
    if (best > max_distance) return max_distance + 1;
  }
  return row[b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  // A typo is plausible within a third of the word's length (at least 1, at most 3 edits).
  int limit = std::clamp(static_cast<int>(word.size()) / 3, 1, 3);
  std::string best;
  int best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    int d = edit_distance(word, candidate, limit);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best = closest_match(word, candidates);
  return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

}  // namespace graft
