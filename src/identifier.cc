// Parameter names: strict UTF-8, then Python's identifier rule and NFKC form, with the
// Unicode data of the chosen version.
#include "identifier.h"

#include <algorithm>
#include <array>
#include <atomic>

#include "nfkc.h"
#include "utf8.h"

namespace kwcall {
namespace {

// The process-wide version's index; -1, the newest, until Python says otherwise (a constant,
// so that it is set before any static initializer of another file may check a name).
std::atomic<int> g_unicode_version{-1};

int ProcessUnicodeVersion() {
  const int index = g_unicode_version.load(std::memory_order_relaxed);
  return index < 0 ? UnicodeVersionCount() - 1 : index;
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

constexpr char kUseNfkc[] =
    "; Python reads identifiers in source code in NFKC form, so a keyword argument written in "
    "Python could never match this name: use unicodedata.normalize('NFKC', name) instead";

// The combining class of the character that ends before byte `offset`, 0 at the start.
int ClassBefore(std::string_view name, size_t offset) {
  if (offset == 0 || offset > name.size()) return 0;
  size_t prev = offset - 1;
  while (prev > 0 && (static_cast<unsigned char>(name[prev]) & 0xC0) == 0x80) --prev;
  const DecodedChar decoded = DecodeUtf8At(name, prev);
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
  version = std::clamp(version, 0, UnicodeVersionCount() - 1);
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
  // The segment being read (see SegmentIsNfkcNormalized): where it starts, how many
  // characters it has, and whether one of them may compose with a character before it (only
  // then can the quick check's "yes" for the others be wrong, and the segment is normalized).
  size_t segment = pos == 0 ? 0 : pos - 1;
  size_t segment_chars = pos == 0 ? 0 : 1;
  bool segment_maybe = false;
  const auto end_segment = [&](size_t end) {
    size_t culprit = 0;
    if (segment_maybe && found.problem == NameProblem::kNone &&
        !SegmentIsNfkcNormalized(utf8, segment, end, segment_chars, &culprit)) {
      found = {NameProblem::kNotNormalized, DecodeUtf8At(utf8, culprit).codepoint, culprit,
               version};
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
      const DecodedChar decoded = DecodeUtf8At(utf8, pos);
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
    } else if (first ? !IsIdentifierStart(cp, version) : !IsIdentifierContinue(cp, version)) {
      found = Misplaced(first, cp, start, version);
      continue;
    } else if (found.problem == NameProblem::kNone && !PassesNfkcQuickCheck(cp, &prev_ccc)) {
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
  return CheckIdentifier(utf8, ProcessUnicodeVersion());
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
      return DescribeInvalidUtf8(name, check.offset);
    case NameProblem::kBadStart:
      if (IsIdentifierContinue(check.codepoint, check.unicode_version)) {
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

bool SetIdentifierUnicodeVersion(std::string_view version) {
  const int index = FindUnicodeVersion(version);
  if (index < 0) return false;
  g_unicode_version.store(index, std::memory_order_relaxed);
  return true;
}

std::string_view IdentifierUnicodeVersion() { return UnicodeVersionName(ProcessUnicodeVersion()); }

}  // namespace kwcall
