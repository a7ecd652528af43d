// Key terms as text ("divisible(x, -1, 16)"): the one spelling of each kind, written and read
// here for C++, Python's kwcall.key and saved tables alike.
#include "dispatch/key_term.h"

#include <tvm/ffi/error.h>

#include <cctype>
#include <charconv>
#include <string>

namespace kwcall {
namespace {

// Each kind's name and the numbers it takes after the parameter, written once.
struct TermSpelling {
  KeyTermKind kind;
  const char* name;
  bool has_index;  // shape, stride, divisible: a dimension
  bool has_n;      // divisible: a divisor; aligned: an alignment
};

constexpr TermSpelling kSpellings[] = {
    {KeyTermKind::kDtype, "dtype", false, false},
    {KeyTermKind::kNdim, "ndim", false, false},
    {KeyTermKind::kShape, "shape", true, false},
    {KeyTermKind::kStride, "stride", true, false},
    {KeyTermKind::kZeroStrides, "zero_strides", false, false},
    {KeyTermKind::kContiguous, "contiguous", false, false},
    {KeyTermKind::kDivisible, "divisible", true, true},
    {KeyTermKind::kAligned, "aligned", false, true},
    {KeyTermKind::kDevice, "device", false, false},
    {KeyTermKind::kArch, "arch", false, false},
    {KeyTermKind::kIsNone, "is_none", false, false},
    {KeyTermKind::kValue, "value", false, false},
};

const TermSpelling& SpellingOf(KeyTermKind kind) {
  for (const TermSpelling& s : kSpellings) {
    if (s.kind == kind) return s;
  }
  TVM_FFI_THROW(ValueError) << "kwcall: unknown key term kind " << static_cast<int>(kind);
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

[[noreturn]] void ThrowNotATerm(std::string_view text, const std::string& why) {
  TVM_FFI_THROW(ValueError) << "kwcall: '" << text << "' is not a key term (" << why
                            << "); terms are written as kwcall.key writes them, e.g. "
                            << "'shape(x, -1)' or 'divisible(x, 0, 16)'";
}

int64_t ParseNumber(std::string_view whole, std::string_view text) {
  text = Trim(text);
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || ptr != end) {
    ThrowNotATerm(whole, "'" + std::string(text) + "' is not an integer");
  }
  return value;
}

}  // namespace

const char* KeyTermName(KeyTermKind kind) { return SpellingOf(kind).name; }

bool IsTensorTerm(KeyTermKind kind) {
  return kind != KeyTermKind::kIsNone && kind != KeyTermKind::kValue;
}

std::string KeyTerm::ToString() const {
  const TermSpelling& s = SpellingOf(kind);
  std::string text = std::string(s.name) + "(" + param;
  if (s.has_index) text += ", " + std::to_string(index);
  if (s.has_n) text += ", " + std::to_string(n);
  return text + ")";
}

KeyTerm KeyTerm::Parse(std::string_view text) {
  const std::string_view whole = text;
  text = Trim(text);
  const size_t open = text.find('(');
  if (open == std::string_view::npos || text.back() != ')') {
    ThrowNotATerm(whole, "no 'name(parameter, ...)'");
  }
  const std::string_view name = Trim(text.substr(0, open));
  const TermSpelling* spelling = nullptr;
  for (const TermSpelling& s : kSpellings) {
    if (name == s.name) spelling = &s;
  }
  if (spelling == nullptr) ThrowNotATerm(whole, "no term is called '" + std::string(name) + "'");
  // The parts between the parentheses, split at commas.
  std::string_view rest = text.substr(open + 1, text.size() - open - 2);
  std::vector<std::string_view> parts;
  for (size_t comma; (comma = rest.find(',')) != std::string_view::npos;) {
    parts.push_back(rest.substr(0, comma));
    rest.remove_prefix(comma + 1);
  }
  parts.push_back(rest);
  const size_t expected = 1 + spelling->has_index + spelling->has_n;
  if (parts.size() != expected) {
    ThrowNotATerm(whole, std::string(spelling->name) + " takes " + std::to_string(expected) +
                             " argument" + (expected == 1 ? "" : "s"));
  }
  KeyTerm term;
  term.kind = spelling->kind;
  term.param = std::string(Trim(parts[0]));
  if (term.param.empty()) ThrowNotATerm(whole, "no parameter");
  size_t next = 1;
  if (spelling->has_index) term.index = ParseNumber(whole, parts[next++]);
  if (spelling->has_n) term.n = ParseNumber(whole, parts[next++]);
  return term;
}

void CheckTermNumbers(const KeyTerm& term) {
  if (term.kind == KeyTermKind::kDivisible && term.n <= 0) {
    TVM_FFI_THROW(ValueError) << "kwcall: key term " << term.ToString() << " divides by " << term.n
                              << "; the divisor must be positive";
  }
  if (term.kind == KeyTermKind::kAligned && (term.n <= 0 || (term.n & (term.n - 1)) != 0)) {
    TVM_FFI_THROW(ValueError) << "kwcall: key term " << term.ToString() << " aligns to " << term.n
                              << " bytes; the alignment must be a power of two";
  }
}

}  // namespace kwcall
