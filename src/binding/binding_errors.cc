// The binding TypeError texts (binding_errors.h).
#include "binding/binding_errors.h"

#include <kwcall/function.h>

#include <cstdint>
#include <sstream>

#include "binding/suggest.h"

namespace kwcall {
namespace binding_errors {
namespace {

std::string Quoted(const std::string& name) { return "'" + name + "'"; }

// "'a'", "'a' and 'b'", "'a', 'b', and 'c'"
std::string JoinNatural(const std::vector<std::string>& names) {
  const size_t n = names.size();
  if (n == 1) return names[0];
  if (n == 2) return names[0] + " and " + names[1];
  std::string out;
  for (size_t i = 0; i + 2 < n; ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  return out + ", " + names[n - 2] + ", and " + names[n - 1];
}

}  // namespace

std::string TooManyPositional(const Signature& sig, int64_t given, const Slot* slots) {
  int32_t kwonly_given = 0;
  for (int32_t i = sig.num_positional(); i < sig.num_params(); ++i) {
    if (!slots[i].is(SlotMark::kUnbound)) ++kwonly_given;
  }
  const int32_t argcount = sig.num_positional();
  const int32_t defcount = sig.num_positional_defaults();
  std::ostringstream os;
  os << sig.name() << "() takes ";
  bool plural;
  if (defcount) {
    plural = true;
    os << "from " << argcount - defcount << " to " << argcount;
  } else {
    plural = argcount != 1;
    os << argcount;
  }
  os << " positional argument" << (plural ? "s" : "") << " but " << given;
  if (kwonly_given) {
    os << " positional argument" << (given != 1 ? "s" : "") << " (and " << kwonly_given
       << " keyword-only argument" << (kwonly_given != 1 ? "s" : "") << ")";
  }
  os << " " << (given == 1 && !kwonly_given ? "was" : "were") << " given";
  return os.str();
}

std::string Missing(const Signature& sig, const Slot* slots, bool keyword_only) {
  int32_t start = keyword_only ? sig.num_positional() : 0;
  int32_t end =
      keyword_only ? sig.num_params() : sig.num_positional() - sig.num_positional_defaults();
  std::vector<std::string> names;
  for (int32_t i = start; i < end; ++i) {
    if (slots[i].is(SlotMark::kUnbound)) names.push_back(Quoted(sig.param_name(i)));
  }
  std::ostringstream os;
  os << sig.name() << "() missing " << names.size() << " required "
     << (keyword_only ? "keyword-only" : "positional") << " argument"
     << (names.size() == 1 ? "" : "s") << ": " << JoinNatural(names);
  return os.str();
}

std::string MultipleValues(const Signature& sig, std::string_view shown) {
  return sig.name() + "() got multiple values for argument '" + std::string(shown) + "'";
}

std::string UnexpectedKeyword(const Signature& sig, std::string_view shown, std::string_view key) {
  std::string text =
      sig.name() + "() got an unexpected keyword argument '" + std::string(shown) + "'";
  if (!KeywordSuggestions()) return text;
  // CPython 3.13 suggests among the names a keyword may bind: not the positional-only ones.
  std::vector<std::string_view> candidates;
  for (int32_t i = sig.posonly_count(); i < sig.num_params(); ++i) {
    candidates.push_back(sig.param_name(i));
  }
  const int32_t best = SuggestName(key, candidates.data(), static_cast<int32_t>(candidates.size()));
  if (best >= 0) text += ". Did you mean '" + std::string(candidates[best]) + "'?";
  return text;
}

std::string PositionalOnlyAsKeyword(const Signature& sig, const std::vector<std::string>& keys) {
  std::string names;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) names += ", ";
    names += keys[i];
  }
  return sig.name() + "() got some positional-only arguments passed as keyword arguments: '" +
         names + "'";
}

std::string KeywordNotString(const Signature& sig) {
  return sig.name() + "() keywords must be strings";
}

std::string KwargsTailOdd(const Signature& sig, int64_t tail) {
  return sig.name() + "(): KWARGS must be followed by name/value pairs, got " +
         std::to_string(tail) + " values after it";
}

std::string KwargsPair(const Signature& sig, TailFault fault, int64_t k, std::string_view key_type,
                       std::string_view key) {
  switch (fault) {
    case TailFault::kSentinelTwice:
      return sig.name() + "(): the KWARGS sentinel appears twice";
    case TailFault::kKeyNotString:
      return sig.name() + "(): keyword " + std::to_string(k) +
             " after KWARGS must be a string, got " + std::string(key_type);
    case TailFault::kSentinelAsValue:
      return sig.name() + "(): the KWARGS sentinel cannot be the value of keyword '" +
             std::string(key) + "'";
    case TailFault::kNone:
      break;
  }
  return std::string();
}

std::string InvalidArgumentCount(const Signature& sig, int64_t num_args) {
  return sig.name() + "(): invalid argument count " + std::to_string(num_args);
}

std::string TooManyToBind(const Signature& sig, int64_t count, const char* what) {
  return sig.name() + "() got " + std::to_string(count) + " " + what + "; at most " +
         std::to_string(INT32_MAX) + " can be bound";
}

}  // namespace binding_errors

}  // namespace kwcall
