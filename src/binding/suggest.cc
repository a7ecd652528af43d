// See suggest.h for the rule. Written from CPython's observed behaviour; the distance is a
// weighted Levenshtein distance computed one row at a time in a fixed stack buffer.
#include "binding/suggest.h"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace kwcall {
namespace {

// With this many candidates or more CPython gives no suggestion.
constexpr int32_t kMaxCandidates = 750;
// Longest differing middle (after stripping the common prefix and suffix) CPython compares.
constexpr size_t kMaxWindow = 40;
// Cost of an insertion, a deletion, or a substitution other than a case flip.
constexpr size_t kEditCost = 2;
// Cost of substituting an ASCII letter for the same letter in the other case.
constexpr size_t kCaseFlipCost = 1;

bool IsAsciiLetter(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

size_t SubstitutionCost(unsigned char x, unsigned char y) {
  if (x == y) return 0;
  // Two ASCII letters differ only by case exactly when they differ only in bit 0x20.
  if ((x ^ y) == 0x20 && IsAsciiLetter(x)) return kCaseFlipCost;
  return kEditCost;
}

// The weighted edit distance between a and b when it is at most max_cost; otherwise some value
// above max_cost.
size_t BoundedDistance(std::string_view a, std::string_view b, size_t max_cost) {
  // Equal leading and trailing bytes never change the distance; drop them.
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  a.remove_prefix(head);
  b.remove_prefix(head);
  size_t tail = 0;
  while (tail < a.size() && tail < b.size() && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
    ++tail;
  }
  a.remove_suffix(tail);
  b.remove_suffix(tail);

  if (a.empty() || b.empty()) return (a.size() + b.size()) * kEditCost;
  // CPython rejects a long differing middle outright, whatever its distance.
  if (a.size() > kMaxWindow || b.size() > kMaxWindow) return max_cost + 1;
  if (b.size() < a.size()) std::swap(a, b);  // a is the shorter: one row of a.size() cells
  // Every byte of b beyond a's length needs at least an insertion.
  if ((b.size() - a.size()) * kEditCost > max_cost) return max_cost + 1;

  // row[j] holds the distance between the first i bytes of b and the first j + 1 bytes of a,
  // for the row i being computed; the column j = -1 (i * kEditCost) is implicit.
  size_t row[kMaxWindow];
  for (size_t j = 0; j < a.size(); ++j) row[j] = (j + 1) * kEditCost;

  size_t last = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    const unsigned char bc = static_cast<unsigned char>(b[i]);
    size_t diagonal = i * kEditCost;    // distance(b[:i], a[:0])
    size_t left = (i + 1) * kEditCost;  // distance(b[:i + 1], a[:0])
    size_t row_min = std::numeric_limits<size_t>::max();
    for (size_t j = 0; j < a.size(); ++j) {
      const size_t up = row[j];  // distance(b[:i], a[:j + 1])
      const size_t cell =
          std::min({diagonal + SubstitutionCost(bc, static_cast<unsigned char>(a[j])),
                    up + kEditCost, left + kEditCost});
      row[j] = cell;
      diagonal = up;
      left = cell;
      row_min = std::min(row_min, cell);
    }
    // Every path to the end crosses this row, so none can come in under max_cost any more.
    if (row_min > max_cost) return max_cost + 1;
    last = left;
  }
  return last;
}

}  // namespace

int32_t SuggestName(std::string_view key, const std::string_view* candidates,
                    int32_t num_candidates) {
  if (num_candidates <= 0 || num_candidates >= kMaxCandidates) return -1;
  int32_t best = -1;
  size_t best_distance = 0;
  for (int32_t i = 0; i < num_candidates; ++i) {
    const std::string_view name = candidates[i];
    if (name == key) continue;
    // At most a third of the bytes involved may change...
    size_t max_distance = (key.size() + name.size() + 3) * kEditCost / 6;
    // ...and only a strictly better match replaces the current one, so the first of equally
    // good candidates wins. Distinct names are at least 1 apart, so this cannot wrap.
    if (best >= 0) max_distance = std::min(max_distance, best_distance - 1);
    const size_t distance = BoundedDistance(key, name, max_distance);
    if (distance > max_distance) continue;
    best = i;
    best_distance = distance;
  }
  return best;
}

}  // namespace kwcall
