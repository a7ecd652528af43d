// NFKC form of identifier characters: the quick check and the normalization of a segment.
#include "nfkc.h"

#include <vector>

#include "unicode_tables.h"
#include "utf8.h"

namespace kwcall {
namespace {

// A code point of a decomposed segment and the byte offset of the name's character it
// comes from.
struct Unit {
  uint32_t cp;
  size_t source;
};

constexpr size_t kNowhere = static_cast<size_t>(-1);

}  // namespace

bool PassesNfkcQuickCheck(uint32_t cp, int* prev_ccc) {
  if (ChangedByNfkc(cp)) return false;
  const int ccc = CombiningClass(cp);
  if (ccc != 0 && *prev_ccc > ccc) return false;
  *prev_ccc = ccc;
  return true;
}

// Unicode's algorithm: decompose, put marks in canonical order, compose each character with
// the last starter it is not blocked from. Names are made once per signature, so plain
// vectors do (this runs only for segments the quick check cannot settle).
bool SegmentIsNfkcNormalized(std::string_view utf8, size_t begin, size_t end, size_t chars,
                             size_t* culprit) {
  std::vector<Unit> units;
  units.reserve(chars);
  std::vector<uint32_t> parts;
  for (size_t pos = begin; pos < end;) {
    const DecodedChar decoded = DecodeUtf8At(utf8, pos);
    parts.clear();
    AppendCanonicalDecomposition(decoded.codepoint, &parts);
    for (uint32_t part : parts) units.push_back({part, pos});
    pos += decoded.length;
  }
  const int32_t n = static_cast<int32_t>(units.size());
  // Canonical order: a stable sort by class of each run of marks (class 0 stops it).
  for (int32_t i = 1; i < n; ++i) {
    const Unit unit = units[i];
    const int ccc = CombiningClass(unit.cp);
    if (ccc == 0) continue;
    int32_t j = i;
    for (; j > 0 && CombiningClass(units[j - 1].cp) > ccc; --j) units[j] = units[j - 1];
    units[j] = unit;
  }
  // Composition, in place: `kept` units so far, `starter` the last of class 0 among them.
  size_t composed = kNowhere;
  int32_t starter = CombiningClass(units[0].cp) == 0 ? 0 : -1;
  int32_t kept = 1;
  for (int32_t i = 1; i < n; ++i) {
    const int ccc = CombiningClass(units[i].cp);
    // Blocked: something between them is a starter or a mark of the same or higher class
    // (kept marks are in canonical order, so the last one tells).
    const bool blocked = kept - 1 > starter && CombiningClass(units[kept - 1].cp) >= ccc;
    if (starter >= 0 && !blocked) {
      const uint32_t composite = PrimaryComposite(units[starter].cp, units[i].cp);
      if (composite != 0) {
        if (units[i].source != units[starter].source && composed == kNowhere) {
          composed = units[i].source;
        }
        units[starter].cp = composite;
        continue;
      }
    }
    if (ccc == 0) starter = kept;
    units[kept++] = units[i];
  }
  int32_t k = 0;
  for (size_t pos = begin; pos < end; ++k) {
    const DecodedChar decoded = DecodeUtf8At(utf8, pos);
    if (k == kept || units[k].cp != decoded.codepoint) {
      *culprit = composed != kNowhere ? composed : pos;
      return false;
    }
    pos += decoded.length;
  }
  if (k != kept) {  // normalization made it longer
    *culprit = composed != kNowhere ? composed : begin;
    return false;
  }
  return true;
}

}  // namespace kwcall
