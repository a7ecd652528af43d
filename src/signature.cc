// Signature: the model, validated when it is made (its map and JSON forms are
// signature_json.cc).
#include <kwcall/signature.h>
#include <tvm/ffi/error.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <unordered_set>

#include "identifier.h"
#include "nesting.h"
#include "param_kinds.h"
#include "utf8.h"

namespace kwcall {
namespace {

// Python's hard keywords: a parameter cannot be named after one of them (the same 35 in
// every Python kwcall supports; soft keywords such as `match` are fine).
constexpr std::array<std::string_view, 35> kPythonKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

// The row of `kind`, or nullptr for a value that is no kind.
const KindInfo* InfoOf(ParamKind kind) { return FindKind(static_cast<int32_t>(kind)); }

// A kind's place in declaration order (the table's).
int KindRank(ParamKind kind) { return static_cast<int>(InfoOf(kind) - kKinds.data()); }

static_assert(kKinds[0].number == static_cast<int32_t>(ParamKind::kPositionalOnly) &&
                  kKinds[1].number == static_cast<int32_t>(ParamKind::kPositionalOrKeyword) &&
                  kKinds[2].number == static_cast<int32_t>(ParamKind::kKeywordOnly),
              "param_kinds.h numbers the kinds as ParamKind does");

// The one name besides the keywords that CPython's compiler never lets a parameter (or any
// assignment, or a keyword argument in source) bind: "cannot assign to __debug__".
constexpr std::string_view kDebugConstant = "__debug__";

void ValidateDisplayName(const std::string& name) {
  if (name.size() > static_cast<size_t>(kMaxNameBytes)) {
    TVM_FFI_THROW(ValueError) << "Signature name is " << name.size()
                              << " bytes long; the limit (kwcall::kMaxNameBytes) is "
                              << kMaxNameBytes;
  }
  if (!IsValidUtf8(name)) {
    TVM_FFI_THROW(ValueError) << "Signature name '" << ShownText(name) << "' is not valid UTF-8";
  }
}

void ValidateParamName(const std::string& name) {
  if (name.size() > static_cast<size_t>(kMaxNameBytes)) {
    TVM_FFI_THROW(ValueError) << "Invalid parameter name: '" << ShownText(name.substr(0, 40))
                              << "...' is " << name.size()
                              << " bytes long; the limit (kwcall::kMaxNameBytes) is "
                              << kMaxNameBytes;
  }
  NameCheck check = CheckIdentifier(name);
  if (check.problem != NameProblem::kNone) {
    TVM_FFI_THROW(ValueError) << "Invalid parameter name: '" << ShownText(name) << "' "
                              << DescribeNameProblem(name, check);
  }
  if (std::find(kPythonKeywords.begin(), kPythonKeywords.end(), name) != kPythonKeywords.end()) {
    TVM_FFI_THROW(ValueError) << "Invalid parameter name: '" << name
                              << "' is a Python keyword and cannot be used as a parameter name";
  }
  if (name == kDebugConstant) {
    TVM_FFI_THROW(ValueError) << "Invalid parameter name: '" << name
                              << "' is Python's built-in constant and cannot be used as a "
                              << "parameter name (Python refuses it: cannot assign to "
                              << kDebugConstant << "); rename the parameter";
  }
  if (std::find(kReservedNames.begin(), kReservedNames.end(), name) != kReservedNames.end()) {
    TVM_FFI_THROW(ValueError) << "Invalid parameter name: '" << name
                              << "' is reserved by tvm-ffi's make_kwargs_wrapper "
                              << "(kwcall::kReservedNames)";
  }
}

// `elements` counts the array items and map entries of the defaults seen so far.
void ValidateDefault(const std::string& display, const Param& param, int64_t* elements) {
  if (!param.default_value.has_value()) return;
  const NestingSize size =
      NestingDepth(*param.default_value, kMaxNestingDepth, kMaxDefaultElements - *elements);
  if (size.depth > kMaxNestingDepth) {
    TVM_FFI_THROW(ValueError) << "The default of parameter '" << param.name << "' of " << display
                              << "() nests arrays or maps deeper than the limit "
                              << "(kwcall::kMaxNestingDepth) of " << kMaxNestingDepth;
  }
  *elements += size.elements;
  if (*elements > kMaxDefaultElements) {
    TVM_FFI_THROW(ValueError) << "The defaults of " << display << "() hold more than "
                              << kMaxDefaultElements << " array items and map entries (at "
                              << "parameter '" << param.name
                              << "'); the limit is kwcall::kMaxDefaultElements";
  }
}

}  // namespace

Signature Signature::Make(std::string name, std::vector<Param> params) {
  ValidateDisplayName(name);
  auto data = ffi::make_object<SignatureObj>();
  data->name_ = name.empty() ? "function" : std::move(name);
  const std::string& display = data->name_;
  if (params.size() > static_cast<size_t>(kMaxParams)) {
    TVM_FFI_THROW(ValueError) << display << "() has " << params.size()
                              << " parameters; the limit (kwcall::kMaxParams) is " << kMaxParams;
  }
  std::unordered_set<std::string_view> seen;
  int64_t default_elements = 0;
  const Param* previous = nullptr;
  const Param* first_positional_default = nullptr;
  for (const Param& param : params) {
    ValidateParamName(param.name);
    if (!seen.insert(param.name).second) {
      TVM_FFI_THROW(ValueError) << "Duplicate parameter name '" << param.name
                                << "' in signature of " << display << "()";
    }
    const KindInfo* kind = InfoOf(param.kind);
    if (kind == nullptr) {
      TVM_FFI_THROW(ValueError) << "Parameter '" << param.name << "' has an unknown kind "
                                << static_cast<int32_t>(param.kind);
    }
    if (previous != nullptr && KindRank(param.kind) < KindRank(previous->kind)) {
      TVM_FFI_THROW(ValueError) << "Parameter '" << param.name << "' is " << kind->text
                                << " but follows " << InfoOf(previous->kind)->text << " parameter '"
                                << previous->name << "': kinds come in the order positional-only, "
                                << "positional-or-keyword, keyword-only";
    }
    ValidateDefault(display, param, &default_elements);
    if (param.kind != ParamKind::kKeywordOnly) {
      if (param.default_value.has_value()) {
        if (first_positional_default == nullptr) first_positional_default = &param;
        ++data->num_positional_defaults_;
      } else if (first_positional_default != nullptr) {
        TVM_FFI_THROW(ValueError) << "Parameter '" << param.name << "' without a default follows "
                                  << "parameter '" << first_positional_default->name
                                  << "' with a default";
      }
      ++data->num_positional_;
      if (param.kind == ParamKind::kPositionalOnly) ++data->posonly_count_;
    }
    data->has_unpack_ = data->has_unpack_ || param.unpack;
    previous = &param;
  }
  data->params_ = std::move(params);
  return Signature(std::move(data));
}

}  // namespace kwcall
