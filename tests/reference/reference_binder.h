// The reference binder: CPython's initialize_locals for `def name(<params>)`, written out
// plainly and apart from src/, after kwcall's own rules for the packed convention (a
// full-arity call without the sentinel is forwarded as it is; a malformed KWARGS tail is a
// TypeError of its own). It reads only kwcall's public API. fuzz/fuzz_binder.cc and
// tests/cpp/test_reference_binder.cc hold kwcall's binder against it, calling the function
// around EchoTarget (below) and comparing with Matches.
#ifndef KWCALL_TESTS_REFERENCE_REFERENCE_BINDER_H_
#define KWCALL_TESTS_REFERENCE_REFERENCE_BINDER_H_

#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kwcall {
namespace reference {

/*! \brief What a call should do. */
struct Expected {
  enum What { kValues, kTypeError, kMalformed, kValueError } what = kValues;
  std::vector<TVMFFIAny> values;  //!< kValues: what the target receives
  std::string text;               //!< kTypeError, kValueError
  bool may_suggest = false;       //!< an unknown keyword: 3.13 may append a suggestion
};

/*! \brief What a call did: the target's result, or the error raised. */
struct Outcome {
  bool ok = false;
  ffi::Any result;
  std::string kind;
  std::string message;
};

inline TVMFFIAny Raw(const ffi::AnyView& view) {
  TVMFFIAny raw;
  std::memcpy(&raw, &view, sizeof(raw));
  return raw;
}

/*! \brief A target that returns its packed arguments as an Array. */
inline ffi::Function EchoTarget() {
  return ffi::Function::FromPacked([](ffi::PackedArgs args, ffi::Any* rv) {
    ffi::Array<ffi::Any> out;
    for (int i = 0; i < args.size(); ++i) out.push_back(args[i]);
    *rv = out;
  });
}

/*! \brief Calls `f` with the packed `args`, catching what it raises. */
inline Outcome CallPacked(const ffi::Function& f, const std::vector<TVMFFIAny>& args) {
  Outcome out;
  try {
    f.CallPacked(reinterpret_cast<const ffi::AnyView*>(args.data()),
                 static_cast<int32_t>(args.size()), &out.result);
    out.ok = true;
  } catch (const ffi::Error& err) {
    out.kind = err.kind();
    out.message = err.message();
  }
  return out;
}

namespace detail {

inline Expected Error(std::string text, bool may_suggest = false) {
  Expected out;
  out.what = Expected::kTypeError;
  out.text = std::move(text);
  out.may_suggest = may_suggest;
  return out;
}

inline std::string Plural(int64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// 'a' / 'a' and 'b' / 'a', 'b', and 'c'
inline std::string NaturalList(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const std::string& name : names) quoted.push_back("'" + name + "'");
  if (quoted.size() == 1) return quoted[0];
  if (quoted.size() == 2) return quoted[0] + " and " + quoted[1];
  std::string out;
  for (size_t i = 0; i + 1 < quoted.size(); ++i) out += quoted[i] + ", ";
  return out + "and " + quoted.back();
}

// What the echo target put in its array for a packed argument: the same value, with a C
// string turned into a string (the array owns its items).
inline bool SameValue(const TVMFFIAny& want, const ffi::Any& got_any) {
  const TVMFFIAny& got = *reinterpret_cast<const TVMFFIAny*>(&got_any);
  if (want.type_index == kTVMFFIRawStr) {
    auto text = got_any.try_cast<ffi::String>();
    return text.has_value() && std::string(*text) == std::string(want.v_c_str);
  }
  if (want.type_index != got.type_index) return false;
  if (want.type_index == kTVMFFISmallStr) {
    return want.small_str_len == got.small_str_len &&
           std::memcmp(want.v_bytes, got.v_bytes, want.small_str_len) == 0;
  }
  if (want.type_index == kTVMFFINone) return true;
  return want.v_int64 == got.v_int64;
}

}  // namespace detail

/*! \brief Whether `arg` is the KWARGS sentinel. */
inline bool IsSentinel(const TVMFFIAny& arg) {
  const TVMFFIAny sentinel = Raw(ffi::AnyView(KwargsSentinel()));
  return arg.type_index == sentinel.type_index && arg.v_obj == sentinel.v_obj;
}

/*!
 * \brief The text of a packed string (a C string up to its NUL, a small string, a string
 *        object), or nullopt for anything else (a null C string included).
 */
inline std::optional<std::string> StringText(const TVMFFIAny& arg) {
  if (arg.type_index == kTVMFFIRawStr) {
    if (arg.v_c_str == nullptr) return std::nullopt;
    return std::string(arg.v_c_str);
  }
  if (arg.type_index == kTVMFFISmallStr) {
    return std::string(reinterpret_cast<const char*>(arg.v_bytes), arg.small_str_len);
  }
  if (arg.type_index == kTVMFFIStr) {
    return std::string(reinterpret_cast<const ffi::AnyView*>(&arg)->cast<ffi::String>());
  }
  return std::nullopt;
}

/*!
 * \brief What calling kwcall's function of `sig` with `count` packed `args` should do
 *        (`count` may be negative; then `args` is not read).
 */
inline Expected Bind(const Signature& sig, const TVMFFIAny* args, int64_t count) {
  using detail::Error;
  using detail::NaturalList;
  using detail::Plural;
  const std::string name = sig.name();
  Expected out;
  if (count < 0) {
    out.what = Expected::kValueError;
    out.text = name + "(): invalid argument count " + std::to_string(count);
    return out;
  }
  const int64_t n = count;
  const int64_t num_params = sig.num_params();
  int64_t split = n;
  for (int64_t i = 0; i < n; ++i) {
    if (IsSentinel(args[i])) {
      split = i;
      break;
    }
  }
  if (split == n && n == num_params) {
    out.values.assign(args, args + n);
    return out;
  }
  const int64_t tail = split < n ? n - split - 1 : 0;
  if (tail % 2 != 0) return Expected{Expected::kMalformed};
  std::vector<std::string> keys;
  for (int64_t i = split + 1; i < n; i += 2) {
    std::optional<std::string> key = StringText(args[i]);
    if (!key.has_value() || IsSentinel(args[i + 1])) {
      return Expected{Expected::kMalformed};
    }
    keys.push_back(std::move(*key));
  }

  int64_t num_positional = 0;
  int64_t num_posonly = 0;
  int64_t num_positional_defaults = 0;
  for (int64_t i = 0; i < num_params; ++i) {
    const ParamKind kind = sig.param(static_cast<int32_t>(i)).kind;
    if (kind == ParamKind::kKeywordOnly) continue;
    ++num_positional;
    if (kind == ParamKind::kPositionalOnly) ++num_posonly;
    if (sig.has_default(static_cast<int32_t>(i))) ++num_positional_defaults;
  }
  std::vector<std::optional<TVMFFIAny>> value(num_params);
  const int64_t nargs = split;
  for (int64_t i = 0; i < std::min(nargs, num_positional); ++i) value[i] = args[i];
  for (size_t k = 0; k < keys.size(); ++k) {
    int64_t param = -1;
    for (int64_t i = num_posonly; i < num_params && param < 0; ++i) {
      if (sig.param_name(static_cast<int32_t>(i)) == keys[k]) param = i;
    }
    if (param < 0) {
      std::vector<std::string> conflicts;
      for (int64_t i = 0; i < num_posonly; ++i) {
        for (const std::string& key : keys) {
          if (key == sig.param_name(static_cast<int32_t>(i))) conflicts.push_back(key);
        }
      }
      if (!conflicts.empty()) {
        std::string names;
        for (const std::string& conflict : conflicts)
          names += (names.empty() ? "" : ", ") + conflict;
        return Error(name + "() got some positional-only arguments passed as keyword arguments: '" +
                     names + "'");
      }
      return Error(name + "() got an unexpected keyword argument '" + keys[k] + "'", true);
    }
    if (value[param].has_value()) {
      return Error(name + "() got multiple values for argument '" +
                   sig.param_name(static_cast<int32_t>(param)) + "'");
    }
    value[param] = args[split + 2 + 2 * k];
  }
  if (nargs > num_positional) {
    int64_t kwonly_given = 0;
    for (int64_t i = num_positional; i < num_params; ++i) kwonly_given += value[i].has_value();
    std::string text = name + "() takes ";
    if (num_positional_defaults > 0) {
      text += "from " + std::to_string(num_positional - num_positional_defaults) + " to " +
              std::to_string(num_positional) + " positional arguments";
    } else {
      text += Plural(num_positional, "positional argument");
    }
    text += " but " + std::to_string(nargs);
    if (kwonly_given > 0) {
      text += std::string(" positional argument") + (nargs == 1 ? "" : "s") + " (and " +
              Plural(kwonly_given, "keyword-only argument") + ")";
    }
    text += nargs == 1 && kwonly_given == 0 ? " was given" : " were given";
    return Error(text);
  }
  std::vector<std::string> missing;
  for (int64_t i = 0; i < num_positional - num_positional_defaults; ++i) {
    if (!value[i].has_value()) missing.push_back(sig.param_name(static_cast<int32_t>(i)));
  }
  if (!missing.empty()) {
    return Error(name + "() missing " + Plural(missing.size(), "required positional argument") +
                 ": " + NaturalList(missing));
  }
  for (int64_t i = num_positional; i < num_params; ++i) {
    if (!value[i].has_value() && !sig.has_default(static_cast<int32_t>(i))) {
      missing.push_back(sig.param_name(static_cast<int32_t>(i)));
    }
  }
  if (!missing.empty()) {
    return Error(name + "() missing " + Plural(missing.size(), "required keyword-only argument") +
                 ": " + NaturalList(missing));
  }
  for (int64_t i = 0; i < num_params; ++i) {
    out.values.push_back(value[i].has_value()
                             ? *value[i]
                             : Raw(ffi::AnyView(sig.default_value(static_cast<int32_t>(i)))));
  }
  return out;
}

/*! \brief Whether what the call did (around EchoTarget) is what the reference expects. */
inline bool Matches(const Signature& sig, const Expected& want, const Outcome& got) {
  switch (want.what) {
    case Expected::kValues: {
      if (!got.ok) return false;
      auto values = got.result.try_cast<ffi::Array<ffi::Any>>();
      if (!values.has_value() || values->size() != want.values.size()) return false;
      for (size_t i = 0; i < want.values.size(); ++i) {
        if (!detail::SameValue(want.values[i], (*values)[i])) return false;
      }
      return true;
    }
    case Expected::kMalformed:
      return !got.ok && got.kind == "TypeError" && got.message.rfind(sig.name() + "(): ", 0) == 0;
    case Expected::kValueError:
      return !got.ok && got.kind == "ValueError" && got.message == want.text;
    case Expected::kTypeError: {
      if (got.ok || got.kind != "TypeError") return false;
      if (got.message == want.text) return true;
      // CPython 3.13's "Did you mean" names a parameter that may be passed by keyword; which
      // one is suggest.cc's business (tested against CPython elsewhere).
      if (!want.may_suggest || got.message.rfind(want.text + ". Did you mean '", 0) != 0) {
        return false;
      }
      for (int32_t i = sig.posonly_count(); i < sig.num_params(); ++i) {
        if (got.message == want.text + ". Did you mean '" + sig.param_name(i) + "'?") return true;
      }
      return false;
    }
  }
  return false;
}

/*! \brief What a call did, for a failure message. */
inline std::string Describe(const Outcome& got) {
  if (!got.ok) return "error " + got.kind + ": " + got.message;
  std::string out = "values [";
  for (const ffi::Any& item : got.result.cast<ffi::Array<ffi::Any>>()) {
    const TVMFFIAny& raw = *reinterpret_cast<const TVMFFIAny*>(&item);
    out += std::to_string(raw.type_index) + ":" + std::to_string(raw.v_int64) + " ";
  }
  return out + "]";
}

/*! \brief What the reference expects, for a failure message. */
inline std::string Describe(const Expected& want) {
  switch (want.what) {
    case Expected::kValues: {
      std::string out = "values [";
      for (const TVMFFIAny& raw : want.values) {
        out += std::to_string(raw.type_index) + ":" + std::to_string(raw.v_int64) + " ";
      }
      return out + "]";
    }
    case Expected::kTypeError:
      return "TypeError: " + want.text;
    case Expected::kMalformed:
      return "TypeError for a malformed KWARGS tail";
    case Expected::kValueError:
      return "ValueError: " + want.text;
  }
  return "?";
}

/*! \brief A signature in a line, for a failure message. */
inline std::string DescribeSignature(const Signature& sig) {
  std::string out = sig.name() + "(";
  for (int32_t i = 0; i < sig.num_params(); ++i) {
    out += sig.param_name(i).substr(0, 24) + ":" +
           std::to_string(static_cast<int>(sig.param(i).kind)) +
           (sig.has_default(i) ? "=, " : ", ");
  }
  return out + ")";
}

}  // namespace reference
}  // namespace kwcall

#endif  // KWCALL_TESTS_REFERENCE_REFERENCE_BINDER_H_
