// Parameter names: strict UTF-8 decoding, then Python's identifier rule and NFKC form, from
// the tables of identifier_table.inc for the chosen Unicode version.
#include "identifier.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <iterator>

#include "binding/small_array.h"

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

// The process-wide version; the newest until Python says otherwise.
std::atomic<int> g_unicode_version{kUnicodeVersionCount - 1};

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

bool IsStart(uint32_t cp, int version) { return In(kIdStart, cp, version); }
bool IsContinue(uint32_t cp, int version) { return In(kIdContinue, cp, version); }

// The next two may only be asked about identifier characters: their ranges also cover
// characters outside kIdContinue (see scripts/gen_identifier_table.py). Neither depends on
// the version for a character the version has (Unicode's stability policies).
bool ChangedByNfkc(uint32_t cp) { return In(kNfkcChanges, cp); }
bool ComposesWithPrevious(uint32_t cp) { return In(kComposesWithPrevious, cp); }
int CombiningClass(uint32_t cp) {
  const CombiningClassRange* range = Find(kCombiningClass, cp);
  return range == nullptr ? 0 : range->ccc;
}

// Hangul syllables are composed and decomposed by arithmetic (Unicode's chapter 3.12).
constexpr uint32_t kHangulS = 0xAC00, kHangulL = 0x1100, kHangulV = 0x1161, kHangulT = 0x11A7;
constexpr uint32_t kHangulLCount = 19, kHangulVCount = 21, kHangulTCount = 28;
constexpr uint32_t kHangulNCount = kHangulVCount * kHangulTCount;
constexpr uint32_t kHangulSCount = kHangulLCount * kHangulNCount;

// Writes the full canonical decomposition of `cp` to `out` (room for kMaxDecomposition);
// returns its length. Exact for identifier characters that NFKC keeps, whose NFKD is their
// NFD, made of their canonical pairs (asserted by the generator).
int Decompose(uint32_t cp, uint32_t* out) {
  if (cp - kHangulS < kHangulSCount) {
    const uint32_t index = cp - kHangulS;
    out[0] = kHangulL + index / kHangulNCount;
    out[1] = kHangulV + index % kHangulNCount / kHangulTCount;
    if (index % kHangulTCount == 0) return 2;
    out[2] = kHangulT + index % kHangulTCount;
    return 3;
  }
  const Composition* it =
      std::lower_bound(std::begin(kCompositions), std::end(kCompositions), cp,
                       [](const Composition& entry, uint32_t c) { return entry.composite < c; });
  if (it == std::end(kCompositions) || it->composite != cp) {
    out[0] = cp;
    return 1;
  }
  const int length = Decompose(it->first, out);
  out[length] = it->second;
  return length + 1;
}

// The primary composite of `first` and `second`, or 0.
uint32_t Compose(uint32_t first, uint32_t second) {
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

// Per byte: kAsciiStart for ASCII that may start an identifier, kAsciiContinue for ASCII that
// may follow the first character; 0 for everything else, non-ASCII bytes included.
constexpr uint8_t kAsciiStart = 1;
constexpr uint8_t kAsciiContinue = 2;
constexpr std::array<uint8_t, 256> kAsciiClass = [] {
  std::array<uint8_t, 256> table{};
  for (int c = 0; c < 128; ++c) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    table[c] = (letter ? kAsciiStart | kAsciiContinue : 0) | (digit ? kAsciiContinue : 0);
  }
  return table;
}();

bool IsAsciiStart(unsigned char c) { return kAsciiClass[c] & kAsciiStart; }
bool IsAsciiContinue(unsigned char c) { return kAsciiClass[c] & kAsciiContinue; }

enum class Utf8Error {
  kNone,
  kStrayContinuation,  // 0x80-0xBF where a character should start
  kInvalidByte,        // 0xF8-0xFF: no UTF-8 sequence starts with it
  kTruncated,          // fewer continuation bytes than the lead byte announces
  kOverlong,           // a longer sequence than the codepoint needs
  kSurrogate,          // U+D800-U+DFFF
  kTooLarge,           // above U+10FFFF
};

struct Decoded {
  Utf8Error error;
  uint32_t codepoint;  // the value read, also for kOverlong, kSurrogate and kTooLarge
  size_t length;       // bytes the lead byte announces (1 for a byte that leads nothing)
  size_t present;      // bytes of the sequence actually there (< length for kTruncated)
};

// Decodes the character starting at `pos` (< utf8.size()).
Decoded DecodeAt(std::string_view utf8, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(utf8[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return {Utf8Error::kNone, lead, 1, 1};
  if (lead < 0xC0) return {Utf8Error::kStrayContinuation, 0, 1, 1};
  if (lead >= 0xF8) return {Utf8Error::kInvalidByte, 0, 1, 1};
  const size_t length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  uint32_t value = lead & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) {
    if (pos + i >= utf8.size() || (byte(pos + i) & 0xC0) != 0x80) {
      return {Utf8Error::kTruncated, 0, length, i};
    }
    value = (value << 6) | (byte(pos + i) & 0x3F);
  }
  Utf8Error error = Utf8Error::kNone;
  if (value < kSmallest[length]) {
    error = Utf8Error::kOverlong;
  } else if (value >= 0xD800 && value <= 0xDFFF) {
    error = Utf8Error::kSurrogate;
  } else if (value > 0x10FFFF) {
    error = Utf8Error::kTooLarge;
  }
  return {error, value, length, length};
}

// The quick check for the identifier character `cp`: false when the name is not in NFKC form
// whatever the other characters (NFKC replaces `cp`, or marks are out of canonical order).
// `prev_ccc` is the combining class of the character before it (0 at the start), updated to
// this one's.
bool PassesQuickCheck(uint32_t cp, int* prev_ccc) {
  if (ChangedByNfkc(cp)) return false;
  const int ccc = CombiningClass(cp);
  if (ccc != 0 && *prev_ccc > ccc) return false;
  *prev_ccc = ccc;
  return true;
}

// A code point of a decomposed segment and the byte offset of the name's character it
// comes from.
struct Unit {
  uint32_t cp;
  size_t source;
};

constexpr size_t kNowhere = static_cast<size_t>(-1);

// Whether NFKC normalization leaves utf8[begin, end) as it is: `chars` identifier characters
// that pass the quick check, the first of which nothing before it can reach (class 0, not in
// kComposesWithPrevious) or the name's first. Normalization works on such segments one at a
// time. This is Unicode's algorithm (UAX #15): decompose, put marks in canonical order,
// compose each character with the last starter it is not blocked from. When the segment
// changes, *culprit is the byte offset of the character that composed with one before it,
// else of the first character that differs.
bool SegmentIsNormalized(std::string_view utf8, size_t begin, size_t end, size_t chars,
                         size_t* culprit) {
  SmallArray<Unit, 64> units(static_cast<int32_t>(chars * kMaxDecomposition));
  int32_t n = 0;
  for (size_t pos = begin; pos < end;) {
    const Decoded decoded = DecodeAt(utf8, pos);
    uint32_t parts[kMaxDecomposition];
    const int count = Decompose(decoded.codepoint, parts);
    for (int i = 0; i < count; ++i) units[n++] = {parts[i], pos};
    pos += decoded.length;
  }
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
      const uint32_t composite = Compose(units[starter].cp, units[i].cp);
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
    const Decoded decoded = DecodeAt(utf8, pos);
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

std::string Hex(uint32_t value, int digits) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%0*X", digits, static_cast<unsigned>(value));
  return buffer;
}

// "U+00A0", or "U+0031 '1'" for a visible ASCII character.
std::string CodepointText(uint32_t cp) {
  std::string text = "U+" + Hex(cp, 4);
  if (cp > 0x20 && cp < 0x7F) {
    text += " '";
    text += static_cast<char>(cp);
    text += "'";
  }
  return text;
}

std::string Bytes(std::string_view utf8, size_t pos, size_t count) {
  std::string text;
  for (size_t i = 0; i < count && pos + i < utf8.size(); ++i) {
    if (i > 0) text += ' ';
    text += Hex(static_cast<unsigned char>(utf8[pos + i]), 2);
  }
  return text;
}

std::string DescribeUtf8(std::string_view name, size_t pos) {
  const std::string at = " at byte " + std::to_string(pos);
  if (pos >= name.size()) return "is not valid UTF-8";
  const Decoded decoded = DecodeAt(name, pos);
  const std::string lead = "0x" + Hex(static_cast<unsigned char>(name[pos]), 2);
  const std::string seq = "the bytes " + Bytes(name, pos, decoded.present) + at;
  std::string why;
  switch (decoded.error) {
    case Utf8Error::kNone:
      return "is not valid UTF-8";
    case Utf8Error::kStrayContinuation:
      why = "the byte " + lead + at + " is a continuation byte with no lead byte before it";
      break;
    case Utf8Error::kInvalidByte:
      why = "the byte " + lead + at + " never occurs in UTF-8";
      break;
    case Utf8Error::kTruncated:
      why = "the " + std::to_string(decoded.length) + "-byte sequence " +
            Bytes(name, pos, decoded.present) + at + " is cut short after " +
            std::to_string(decoded.present) + " byte" + (decoded.present == 1 ? "" : "s");
      break;
    case Utf8Error::kOverlong:
      why = seq + " are an overlong encoding of U+" + Hex(decoded.codepoint, 4) +
            ", which UTF-8 writes in " + (decoded.codepoint < 0x80 ? "1 byte" : "fewer bytes");
      break;
    case Utf8Error::kSurrogate:
      why = seq + " encode the surrogate U+" + Hex(decoded.codepoint, 4) + ", which UTF-8 excludes";
      break;
    case Utf8Error::kTooLarge:
      why = seq + " encode 0x" + Hex(decoded.codepoint, 4) + ", above U+10FFFF";
      break;
  }
  return "is not valid UTF-8 (" + why + ")";
}

constexpr char kUseNfkc[] =
    "; Python reads identifiers in source code in NFKC form, so a keyword argument written in "
    "Python could never match this name: use unicodedata.normalize('NFKC', name) instead";

// The combining class of the character that ends before byte `offset`, 0 at the start.
int ClassBefore(std::string_view name, size_t offset) {
  if (offset == 0 || offset > name.size()) return 0;
  size_t prev = offset - 1;
  while (prev > 0 && (static_cast<unsigned char>(name[prev]) & 0xC0) == 0x80) --prev;
  const Decoded decoded = DecodeAt(name, prev);
  return decoded.error == Utf8Error::kNone ? CombiningClass(decoded.codepoint) : 0;
}

std::string DescribeNotNormalized(std::string_view name, const NameCheck& check) {
  const uint32_t cp = check.codepoint;
  const std::string what = CodepointText(cp) + " at byte " + std::to_string(check.offset);
  if (ChangedByNfkc(cp)) {
    return "is not NFKC-normalized (" + what + " is replaced by NFKC normalization)" + kUseNfkc;
  }
  const int ccc = CombiningClass(cp);
  const int prev_ccc = ClassBefore(name, check.offset);
  if (ccc != 0 && prev_ccc > ccc) {
    return "is not NFKC-normalized (" + what + ", a mark of combining class " +
           std::to_string(ccc) + ", follows one of class " + std::to_string(prev_ccc) +
           ", and NFKC normalization puts them in the other order)" + kUseNfkc;
  }
  return "is not NFKC-normalized (" + what +
         " composes with a character before it under NFKC normalization)" + kUseNfkc;
}

// The problem of a character that cannot be where it is.
NameCheck Misplaced(bool first, uint32_t cp, size_t offset, int version) {
  return {first ? NameProblem::kBadStart : NameProblem::kBadCharacter, cp, offset, version};
}

}  // namespace

NameCheck CheckIdentifier(std::string_view utf8, int version) {
  version = std::clamp(version, 0, kUnicodeVersionCount - 1);
  if (utf8.empty()) return {NameProblem::kEmpty, 0, 0, version};
  // The most serious problem so far: invalid UTF-8 anywhere comes first, then the first
  // character that cannot be where it is, then the first that breaks the NFKC form.
  NameCheck found;
  found.unicode_version = version;
  int prev_ccc = 0;
  size_t pos = 0;
  // Fast path: most names are ASCII identifiers.
  if (IsAsciiStart(static_cast<unsigned char>(utf8[0]))) {
    pos = 1;
    while (pos < utf8.size() && IsAsciiContinue(static_cast<unsigned char>(utf8[pos]))) ++pos;
    if (pos == utf8.size()) return found;
  }
  // The segment being read (see SegmentIsNormalized): where it starts, how many characters
  // it has, and whether one of them may compose with a character before it (only then can
  // the quick check's "yes" for the others be wrong, and the segment is normalized).
  size_t segment = pos == 0 ? 0 : pos - 1;
  size_t segment_chars = pos == 0 ? 0 : 1;
  bool segment_maybe = false;
  const auto end_segment = [&](size_t end) {
    size_t culprit = 0;
    if (segment_maybe && found.problem == NameProblem::kNone &&
        !SegmentIsNormalized(utf8, segment, end, segment_chars, &culprit)) {
      found = {NameProblem::kNotNormalized, DecodeAt(utf8, culprit).codepoint, culprit, version};
    }
    segment = end;
    segment_chars = 0;
    segment_maybe = false;
  };
  while (pos < utf8.size()) {
    const size_t start = pos;
    const bool first = start == 0;
    const unsigned char byte = static_cast<unsigned char>(utf8[pos]);
    uint32_t cp = byte;
    if (byte < 0x80) {
      ++pos;
    } else {
      const Decoded decoded = DecodeAt(utf8, pos);
      if (decoded.error != Utf8Error::kNone) return {NameProblem::kInvalidUtf8, 0, pos, version};
      cp = decoded.codepoint;
      pos += decoded.length;
    }
    if (found.problem == NameProblem::kBadStart || found.problem == NameProblem::kBadCharacter) {
      continue;  // only invalid UTF-8 could still change the verdict
    }
    if (byte < 0x80) {  // ASCII: no tables; NFKC neither changes nor reorders it
      if (first ? !IsAsciiStart(byte) : !IsAsciiContinue(byte)) {
        found = Misplaced(first, cp, start, version);
        continue;
      }
      prev_ccc = 0;
      end_segment(start);
    } else if (first ? !IsStart(cp, version) : !IsContinue(cp, version)) {
      found = Misplaced(first, cp, start, version);
      continue;
    } else if (found.problem == NameProblem::kNone && !PassesQuickCheck(cp, &prev_ccc)) {
      found = {NameProblem::kNotNormalized, cp, start, version};
    } else if (prev_ccc == 0 && !ComposesWithPrevious(cp)) {
      end_segment(start);
    }
    ++segment_chars;
    segment_maybe = segment_maybe || (byte >= 0x80 && ComposesWithPrevious(cp));
  }
  end_segment(utf8.size());
  return found;
}

NameCheck CheckIdentifier(std::string_view utf8) {
  return CheckIdentifier(utf8, g_unicode_version.load(std::memory_order_relaxed));
}

std::string DescribeNameProblem(std::string_view name, const NameCheck& check) {
  const std::string what =
      CodepointText(check.codepoint) + " at byte " + std::to_string(check.offset);
  switch (check.problem) {
    case NameProblem::kNone:
      return "";
    case NameProblem::kEmpty:
      return "is empty (a parameter name must be a Python identifier)";
    case NameProblem::kInvalidUtf8:
      return DescribeUtf8(name, check.offset);
    case NameProblem::kBadStart:
      if (IsContinue(check.codepoint, check.unicode_version)) {
        return "is not a valid Python identifier (" + what +
               " cannot start an identifier, only follow its first character)";
      }
      return "is not a valid Python identifier (" + what + " cannot appear in an identifier)";
    case NameProblem::kBadCharacter:
      return "is not a valid Python identifier (" + what + " cannot appear in an identifier)";
    case NameProblem::kNotNormalized:
      return DescribeNotNormalized(name, check);
  }
  return "is not a valid parameter name";
}

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

bool SetIdentifierUnicodeVersion(std::string_view version) {
  const int index = FindUnicodeVersion(version);
  if (index < 0) return false;
  g_unicode_version.store(index, std::memory_order_relaxed);
  return true;
}

std::string_view IdentifierUnicodeVersion() {
  return kUnicodeVersions[g_unicode_version.load(std::memory_order_relaxed)];
}

}  // namespace kwcall
