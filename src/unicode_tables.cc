// Lookups into the generated tables of identifier_table.inc (and Hangul's arithmetic).
#include "unicode_tables.h"

#include <algorithm>
#include <iterator>

namespace kwcall {
namespace {

// Inclusive codepoint ranges; each table is sorted and its ranges do not overlap.
struct CodepointRange {
  uint32_t lo;
  uint32_t hi;
};
struct VersionedRange {
  uint32_t lo;
  uint32_t hi;
  uint8_t mask;  // bit i: the range is in kUnicodeVersions[i]
};
struct CombiningClassRange {
  uint32_t lo;
  uint32_t hi;
  uint8_t ccc;
};
struct Composition {
  uint32_t composite;
  uint32_t first;
  uint32_t second;
};

#include "identifier_table.inc"

static_assert(kUnicodeVersionCount <= 8, "VersionedRange::mask has 8 bits");

// The range of `table` holding `cp`, or nullptr.
template <typename Range, size_t N>
const Range* Find(const Range (&table)[N], uint32_t cp) {
  const Range* it = std::lower_bound(std::begin(table), std::end(table), cp,
                                     [](const Range& range, uint32_t c) { return range.hi < c; });
  return it != std::end(table) && it->lo <= cp ? it : nullptr;
}

template <size_t N>
bool In(const CodepointRange (&table)[N], uint32_t cp) {
  return Find(table, cp) != nullptr;
}

template <size_t N>
bool In(const VersionedRange (&table)[N], uint32_t cp, int version) {
  const VersionedRange* range = Find(table, cp);
  return range != nullptr && (range->mask >> version & 1);
}

// Hangul syllables are composed and decomposed by arithmetic (Unicode's chapter 3.12).
constexpr uint32_t kHangulS = 0xAC00, kHangulL = 0x1100, kHangulV = 0x1161, kHangulT = 0x11A7;
constexpr uint32_t kHangulLCount = 19, kHangulVCount = 21, kHangulTCount = 28;
constexpr uint32_t kHangulNCount = kHangulVCount * kHangulTCount;
constexpr uint32_t kHangulSCount = kHangulLCount * kHangulNCount;

}  // namespace

int UnicodeVersionCount() { return kUnicodeVersionCount; }

std::string_view UnicodeVersionName(int index) {
  return index >= 0 && index < kUnicodeVersionCount ? kUnicodeVersions[index] : "";
}

int FindUnicodeVersion(std::string_view version) {
  for (int i = 0; i < kUnicodeVersionCount; ++i) {
    if (version == kUnicodeVersions[i]) return i;
  }
  return -1;
}

bool IsIdentifierStart(uint32_t cp, int version) { return In(kIdStart, cp, version); }
bool IsIdentifierContinue(uint32_t cp, int version) { return In(kIdContinue, cp, version); }

bool ChangedByNfkc(uint32_t cp) { return In(kNfkcChanges, cp); }
bool ComposesWithPrevious(uint32_t cp) { return In(kComposesWithPrevious, cp); }
int CombiningClass(uint32_t cp) {
  const CombiningClassRange* range = Find(kCombiningClass, cp);
  return range == nullptr ? 0 : range->ccc;
}

void AppendCanonicalDecomposition(uint32_t cp, std::vector<uint32_t>* out) {
  if (cp - kHangulS < kHangulSCount) {
    const uint32_t index = cp - kHangulS;
    out->push_back(kHangulL + index / kHangulNCount);
    out->push_back(kHangulV + index % kHangulNCount / kHangulTCount);
    if (index % kHangulTCount != 0) out->push_back(kHangulT + index % kHangulTCount);
    return;
  }
  const Composition* it =
      std::lower_bound(std::begin(kCompositions), std::end(kCompositions), cp,
                       [](const Composition& entry, uint32_t c) { return entry.composite < c; });
  if (it == std::end(kCompositions) || it->composite != cp) {
    out->push_back(cp);
    return;
  }
  AppendCanonicalDecomposition(it->first, out);
  out->push_back(it->second);
}

uint32_t PrimaryComposite(uint32_t first, uint32_t second) {
  if (first - kHangulL < kHangulLCount && second - kHangulV < kHangulVCount) {
    return kHangulS + ((first - kHangulL) * kHangulVCount + (second - kHangulV)) * kHangulTCount;
  }
  if (first - kHangulS < kHangulSCount && (first - kHangulS) % kHangulTCount == 0 &&
      second - kHangulT - 1 < kHangulTCount - 1) {
    return first + (second - kHangulT);
  }
  const uint16_t* it = std::lower_bound(
      std::begin(kCompositionsByPair), std::end(kCompositionsByPair), 0, [&](uint16_t index, int) {
        const Composition& entry = kCompositions[index];
        return entry.first < first || (entry.first == first && entry.second < second);
      });
  if (it == std::end(kCompositionsByPair)) return 0;
  const Composition& entry = kCompositions[*it];
  return entry.first == first && entry.second == second ? entry.composite : 0;
}

}  // namespace kwcall
