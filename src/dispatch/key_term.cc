// Key terms as text ("divisible(x, -1, 16)"): the one spelling of each kind, written and read
// here for C++, Python's kwcall.key and saved tables alike.
#include "dispatch/key_term.h"

#include <tvm/ffi/error.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <string>

namespace kwcall {
namespace {

// Each kind's name, in KeyTermKind's order, written once.
constexpr const char* kNames[] = {"dtype",        "ndim",       "shape",     "stride",
                                  "zero_strides", "contiguous", "divisible", "aligned",
                                  "device",       "arch",       "is_none",   "value"};
static_assert(std::size(kNames) == static_cast<size_t>(KeyTermKind::kValue) + 1,
              "a name for each KeyTermKind");

// The numbers a term takes after its parameter: a dimension (shape, stride, divisible), and a
// divisor (divisible) or an alignment (aligned).
struct Numbers {
  bool index;
  bool n;
};

Numbers NumbersOf(KeyTermKind kind) {
  return {kind == KeyTermKind::kShape || kind == KeyTermKind::kStride ||
              kind == KeyTermKind::kDivisible,
          kind == KeyTermKind::kDivisible || kind == KeyTermKind::kAligned};
}

const char* NameOf(KeyTermKind kind) {
  const auto i = static_cast<size_t>(kind);
  if (i >= std::size(kNames)) {
    TVM_FFI_THROW(ValueError) << "kwcall: unknown key term kind " << static_cast<int>(kind);
  }
  return kNames[i];
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

const char* KeyTermName(KeyTermKind kind) { return NameOf(kind); }

bool IsTensorTerm(KeyTermKind kind) {
  return kind != KeyTermKind::kIsNone && kind != KeyTermKind::kValue;
}

std::string KeyTerm::ToString() const {
  const Numbers numbers = NumbersOf(kind);
  std::string text = std::string(NameOf(kind)) + "(" + param;
  if (numbers.index) text += ", " + std::to_string(index);
  if (numbers.n) text += ", " + std::to_string(n);
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
  const auto* found = std::find(std::begin(kNames), std::end(kNames), name);
  if (found == std::end(kNames)) {
    ThrowNotATerm(whole, "no term is called '" + std::string(name) + "'");
  }
  const auto kind = static_cast<KeyTermKind>(found - std::begin(kNames));
  const Numbers numbers = NumbersOf(kind);
  // The parts between the parentheses, split at commas.
  std::string_view rest = text.substr(open + 1, text.size() - open - 2);
  std::vector<std::string_view> parts;
  for (size_t comma; (comma = rest.find(',')) != std::string_view::npos;) {
    parts.push_back(rest.substr(0, comma));
    rest.remove_prefix(comma + 1);
  }
  parts.push_back(rest);
  const size_t expected = 1 + numbers.index + numbers.n;
  if (parts.size() != expected) {
    ThrowNotATerm(whole, std::string(*found) + " takes " + std::to_string(expected) + " argument" +
                             (expected == 1 ? "" : "s"));
  }
  KeyTerm term;
  term.kind = kind;
  term.param = std::string(Trim(parts[0]));
  if (term.param.empty()) ThrowNotATerm(whole, "no parameter");
  size_t next = 1;
  if (numbers.index) term.index = ParseNumber(whole, parts[next++]);
  if (numbers.n) term.n = ParseNumber(whole, parts[next++]);
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
