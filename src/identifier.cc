// Parameter names: strict UTF-8 decoding, then Python's identifier rule and the NFKC quick
// check, from the tables of identifier_table.inc.
#include "identifier.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iterator>

namespace kwcall {
namespace {

// Inclusive codepoint ranges; each table is sorted and its ranges do not overlap.
struct CodepointRange {
  uint32_t lo;
  uint32_t hi;
};
struct CombiningClassRange {
  uint32_t lo;
  uint32_t hi;
  uint8_t ccc;
};

#include "identifier_table.inc"

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

bool IsStart(uint32_t cp) { return In(kIdStart, cp); }
bool IsContinue(uint32_t cp) { return In(kIdContinue, cp); }

// The next three may only be asked about identifier characters: their ranges also cover
// characters outside kIdContinue (see scripts/gen_identifier_table.py).
bool ChangedByNfkc(uint32_t cp) { return In(kNfkcChanges, cp); }
bool ComposesWithPrevious(uint32_t cp) { return In(kComposesWithPrevious, cp); }
int CombiningClass(uint32_t cp) {
  const CombiningClassRange* range = Find(kCombiningClass, cp);
  return range == nullptr ? 0 : range->ccc;
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

// Checks that the identifier character `cp` keeps the name NFKC-normalized; `prev_ccc` is
// the combining class of the character before it (0 at the start), updated to this one's.
bool KeepsNfkc(uint32_t cp, bool first, int* prev_ccc) {
  if (ChangedByNfkc(cp)) return false;
  // As the first character it has nothing to compose with: exact, not conservative.
  if (!first && ComposesWithPrevious(cp)) return false;
  const int ccc = CombiningClass(cp);
  if (ccc != 0 && *prev_ccc > ccc) return false;
  *prev_ccc = ccc;
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

std::string DescribeNotNormalized(std::string_view name, const NameCheck& check) {
  const uint32_t cp = check.codepoint;
  const std::string what = CodepointText(cp) + " at byte " + std::to_string(check.offset);
  if (ChangedByNfkc(cp)) {
    return "is not NFKC-normalized (" + what + " is replaced by NFKC normalization)" + kUseNfkc;
  }
  if (check.offset > 0 && ComposesWithPrevious(cp)) {
    return "may not be NFKC-normalized (" + what +
           " can compose with the character before it, and Python reads identifiers in source "
           "code in NFKC form); kwcall refuses such a character after the first rather than run "
           "the full normalization: use unicodedata.normalize('NFKC', name), which composes it "
           "where it can, or a name without it";
  }
  // Marks out of canonical order: find the class of the character before this one.
  int prev_ccc = 0;
  if (check.offset > 0 && check.offset <= name.size()) {
    size_t prev = check.offset - 1;
    while (prev > 0 && (static_cast<unsigned char>(name[prev]) & 0xC0) == 0x80) --prev;
    const Decoded decoded = DecodeAt(name, prev);
    if (decoded.error == Utf8Error::kNone) prev_ccc = CombiningClass(decoded.codepoint);
  }
  return "is not NFKC-normalized (" + what + ", a mark of combining class " +
         std::to_string(CombiningClass(cp)) + ", follows one of class " + std::to_string(prev_ccc) +
         ", and NFKC normalization puts them in the other order)" + kUseNfkc;
}

}  // namespace

NameCheck CheckIdentifier(std::string_view utf8) {
  if (utf8.empty()) return {NameProblem::kEmpty, 0, 0};
  // The most serious problem so far: invalid UTF-8 anywhere comes first, then the first
  // character that cannot be where it is, then the first that breaks the NFKC form.
  NameCheck found;
  int prev_ccc = 0;
  size_t pos = 0;
  // Fast path: most names are ASCII identifiers.
  if (IsAsciiStart(static_cast<unsigned char>(utf8[0]))) {
    pos = 1;
    while (pos < utf8.size() && IsAsciiContinue(static_cast<unsigned char>(utf8[pos]))) ++pos;
    if (pos == utf8.size()) return found;
  }
  while (pos < utf8.size()) {
    const size_t start = pos;
    const bool first = start == 0;
    const unsigned char byte = static_cast<unsigned char>(utf8[pos]);
    uint32_t cp = byte;
    if (byte < 0x80) {
      ++pos;
    } else {
      const Decoded decoded = DecodeAt(utf8, pos);
      if (decoded.error != Utf8Error::kNone) return {NameProblem::kInvalidUtf8, 0, pos};
      cp = decoded.codepoint;
      pos += decoded.length;
    }
    if (found.problem == NameProblem::kBadStart || found.problem == NameProblem::kBadCharacter) {
      continue;  // only invalid UTF-8 could still change the verdict
    }
    if (byte < 0x80) {  // ASCII: no tables; NFKC neither changes nor reorders it
      if (first ? !IsAsciiStart(byte) : !IsAsciiContinue(byte)) {
        found = {first ? NameProblem::kBadStart : NameProblem::kBadCharacter, cp, start};
      }
      prev_ccc = 0;
    } else if (first ? !IsStart(cp) : !IsContinue(cp)) {
      found = {first ? NameProblem::kBadStart : NameProblem::kBadCharacter, cp, start};
    } else if (found.problem == NameProblem::kNone && !KeepsNfkc(cp, first, &prev_ccc)) {
      found = {NameProblem::kNotNormalized, cp, start};
    }
  }
  return found;
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
      if (IsContinue(check.codepoint)) {
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

std::string_view IdentifierUnicodeVersion() { return kUnicodeVersion; }

}  // namespace kwcall
