// CPython's binding-error texts (Python/ceval.c: too_many_positional, missing_arguments,
// format_missing, positional_only_passed_as_keyword), word for word.
#include <kwcall/binder.h>

#include <sstream>

namespace kwcall {
namespace binder_detail {
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

std::string TooManyPositional(const Signature& sig, int32_t given, const int32_t* slots) {
  int32_t kwonly_given = 0;
  for (int32_t i = sig.num_positional(); i < sig.num_params(); ++i) {
    if (slots[i] != kUnbound) ++kwonly_given;
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

std::string Missing(const Signature& sig, const int32_t* slots, bool keyword_only) {
  int32_t start = keyword_only ? sig.num_positional() : 0;
  int32_t end =
      keyword_only ? sig.num_params() : sig.num_positional() - sig.num_positional_defaults();
  std::vector<std::string> names;
  for (int32_t i = start; i < end; ++i) {
    if (slots[i] == kUnbound) names.push_back(Quoted(sig.param_name(i)));
  }
  std::ostringstream os;
  os << sig.name() << "() missing " << names.size() << " required "
     << (keyword_only ? "keyword-only" : "positional") << " argument"
     << (names.size() == 1 ? "" : "s") << ": " << JoinNatural(names);
  return os.str();
}

std::string MultipleValues(const Signature& sig, int32_t param) {
  return sig.name() + "() got multiple values for argument " + Quoted(sig.param_name(param));
}

std::string UnexpectedKeyword(const Signature& sig, std::string_view key) {
  return sig.name() + "() got an unexpected keyword argument '" + std::string(key) + "'";
}

std::string PositionalOnlyAsKeyword(const Signature& sig, const std::vector<int32_t>& params) {
  std::string names;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) names += ", ";
    names += sig.param_name(params[i]);
  }
  return sig.name() + "() got some positional-only arguments passed as keyword arguments: '" +
         names + "'";
}

}  // namespace binder_detail
}  // namespace kwcall
