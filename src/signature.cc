// Signature: validation when it is made, and its map and JSON forms.
#include <kwcall/signature.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <type_traits>
#include <unordered_set>

#include "identifier.h"
#include "nesting.h"

namespace kwcall {
namespace {

std::string_view View(const ffi::String& text) {
  return std::string_view(text.data(), text.size());
}

// Python's hard keywords: a parameter cannot be named after one of them (the same 35 in
// every Python kwcall supports; soft keywords such as `match` are fine).
constexpr std::array<std::string_view, 35> kPythonKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

// The one name besides the keywords that CPython's compiler never lets a parameter (or any
// assignment, or a keyword argument in source) bind: "cannot assign to __debug__".
constexpr std::string_view kDebugConstant = "__debug__";

// Each kind: its enum value, its inspect.Parameter name (the map/JSON form) and its name in
// messages. Adding a kind is one row here (and the binder's rules for it).
struct KindInfo {
  ParamKind kind;
  std::string_view inspect_name;
  std::string_view text;
};
constexpr std::array<KindInfo, 3> kKinds = {{
    {ParamKind::kPositionalOnly, "POSITIONAL_ONLY", "positional-only"},
    {ParamKind::kPositionalOrKeyword, "POSITIONAL_OR_KEYWORD", "positional-or-keyword"},
    {ParamKind::kKeywordOnly, "KEYWORD_ONLY", "keyword-only"},
}};

const KindInfo* FindKind(ParamKind kind) {
  for (const KindInfo& info : kKinds) {
    if (info.kind == kind) return &info;
  }
  return nullptr;
}

// Declaration order of the kinds: positional-only < positional-or-keyword < keyword-only.
int KindRank(ParamKind kind) { return static_cast<int>(FindKind(kind) - kKinds.data()); }

// A name as it can be shown in a message: bytes that are not printable UTF-8 as \xNN.
std::string Shown(std::string_view name) {
  if (CheckIdentifier(name).problem != NameProblem::kInvalidUtf8) return std::string(name);
  std::string out;
  for (unsigned char c : name) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

void ValidateDisplayName(const std::string& name) {
  if (name.size() > static_cast<size_t>(kMaxNameBytes)) {
    TVM_FFI_THROW(ValueError) << "Signature name is " << name.size()
                              << " bytes long; the limit (kwcall::kMaxNameBytes) is "
                              << kMaxNameBytes;
  }
  if (CheckIdentifier(name).problem == NameProblem::kInvalidUtf8) {
    TVM_FFI_THROW(ValueError) << "Signature name '" << Shown(name) << "' is not valid UTF-8";
  }
}

void ValidateParamName(const std::string& name) {
  if (name.size() > static_cast<size_t>(kMaxNameBytes)) {
    TVM_FFI_THROW(ValueError) << "Invalid parameter name: '" << Shown(name.substr(0, 40))
                              << "...' is " << name.size()
                              << " bytes long; the limit (kwcall::kMaxNameBytes) is "
                              << kMaxNameBytes;
  }
  NameCheck check = CheckIdentifier(name);
  if (check.problem != NameProblem::kNone) {
    TVM_FFI_THROW(ValueError) << "Invalid parameter name: '" << Shown(name) << "' "
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

// JSON holds None, bool, int, float, str and arrays/maps of them; anything else (a tensor, a
// Python object) cannot travel in an exported signature. Depth is bounded by Make.
bool IsJsonValue(const ffi::Any& value) {
  switch (value.type_index()) {
    case ffi::TypeIndex::kTVMFFINone:
    case ffi::TypeIndex::kTVMFFIBool:
    case ffi::TypeIndex::kTVMFFIInt:
    case ffi::TypeIndex::kTVMFFISmallStr:
    case ffi::TypeIndex::kTVMFFIStr:
      return true;
    case ffi::TypeIndex::kTVMFFIFloat:
      // tvm-ffi's JSON reader refuses subnormal numbers (they underflow), though its writer
      // writes them: such a default would make text that FromJson cannot read back.
      return std::fpclassify(value.cast<double>()) != FP_SUBNORMAL;
    case ffi::TypeIndex::kTVMFFIArray: {
      auto items = value.cast<ffi::Array<ffi::Any>>();
      return std::all_of(items.begin(), items.end(), IsJsonValue);
    }
    case ffi::TypeIndex::kTVMFFIMap: {
      for (const auto& [key, item] : value.cast<ffi::Map<ffi::Any, ffi::Any>>()) {
        if (!key.as<ffi::String>().has_value() || !IsJsonValue(item)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// Reads field `key` of a map; `required` fields must be present.
template <typename T>
std::optional<T> Field(const ffi::Map<ffi::String, ffi::Any>& map, const char* key,
                       const char* expected, const std::string& where, bool required) {
  auto it = map.find(key);
  if (it == map.end()) {
    if (required) TVM_FFI_THROW(ValueError) << where << " has no '" << key << "' field";
    return std::nullopt;
  }
  // Exactly the JSON type asked for: try_cast would read a bool as an integer and an
  // integer as a bool.
  const int32_t index = (*it).second.type_index();
  const bool exact = !(std::is_same_v<T, bool> && index != ffi::TypeIndex::kTVMFFIBool) &&
                     !(std::is_same_v<T, int64_t> && index != ffi::TypeIndex::kTVMFFIInt);
  auto value = exact ? (*it).second.try_cast<T>() : std::nullopt;
  if (!value.has_value()) {
    TVM_FFI_THROW(TypeError) << where << " field '" << key << "' must be " << expected << ", got "
                             << (*it).second.GetTypeKey();
  }
  return value;
}

void RejectUnknownFields(const ffi::Map<ffi::String, ffi::Any>& map,
                         std::initializer_list<std::string_view> known, const std::string& where) {
  for (const auto& [key, value] : map) {
    if (std::find(known.begin(), known.end(), View(key)) == known.end()) {
      TVM_FFI_THROW(ValueError) << where << " has an unknown field '" << Shown(std::string(key))
                                << "'";
    }
  }
}

// tvm-ffi's JSON reader and writer, through their FFI globals: their C++ signatures changed
// between the tvm-ffi releases kwcall supports, their packed calls did not.
std::string JsonStringify(const ffi::Any& value) {
  static const ffi::Function stringify = ffi::Function::GetGlobalRequired("ffi.json.Stringify");
  return std::string(stringify(value, /*indent=*/nullptr).cast<ffi::String>());
}

ffi::Any JsonParse(std::string_view text) {
  static const ffi::Function parse = ffi::Function::GetGlobalRequired("ffi.json.Parse");
  return parse(ffi::String(std::string(text)));
}

// The version of the map/JSON form this library reads and writes.
constexpr int64_t kFormatVersion = 1;

Param ParamFromMap(const ffi::Any& item, size_t index) {
  const std::string where = "Signature parameter " + std::to_string(index);
  auto map = item.try_cast<ffi::Map<ffi::String, ffi::Any>>();
  if (!map.has_value()) {
    TVM_FFI_THROW(TypeError) << where << " must be a map, got " << item.GetTypeKey();
  }
  RejectUnknownFields(*map, {"name", "kind", "default", "unpack"}, where);
  Param param;
  param.name = std::string(*Field<ffi::String>(*map, "name", "a string", where, true));
  ffi::String kind = *Field<ffi::String>(*map, "kind", "a string", where, true);
  const KindInfo* info = std::find_if(kKinds.begin(), kKinds.end(), [&](const KindInfo& k) {
    return k.inspect_name == View(kind);
  });
  if (info == kKinds.end()) {
    TVM_FFI_THROW(ValueError) << where << " has an unknown kind '" << Shown(std::string(kind))
                              << "' (expected POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD or "
                              << "KEYWORD_ONLY)";
  }
  param.kind = info->kind;
  auto it = map->find("default");
  if (it != map->end()) param.default_value = (*it).second;
  param.unpack = Field<bool>(*map, "unpack", "a bool", where, false).value_or(false);
  return param;
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
    const KindInfo* kind = FindKind(param.kind);
    if (kind == nullptr) {
      TVM_FFI_THROW(ValueError) << "Parameter '" << param.name << "' has an unknown kind "
                                << static_cast<int32_t>(param.kind);
    }
    if (previous != nullptr && KindRank(param.kind) < KindRank(previous->kind)) {
      TVM_FFI_THROW(ValueError) << "Parameter '" << param.name << "' is " << kind->text
                                << " but follows " << FindKind(previous->kind)->text
                                << " parameter '" << previous->name
                                << "': kinds come in the order positional-only, "
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

ffi::Map<ffi::String, ffi::Any> Signature::ToMap() const {
  ffi::Array<ffi::Any> params;
  for (const Param& param : get()->params()) {
    ffi::Map<ffi::String, ffi::Any> item;
    item.Set("name", ffi::String(param.name));
    item.Set("kind", ffi::String(std::string(FindKind(param.kind)->inspect_name)));
    if (param.default_value.has_value()) item.Set("default", *param.default_value);
    if (param.unpack) item.Set("unpack", true);
    params.push_back(item);
  }
  ffi::Map<ffi::String, ffi::Any> map;
  map.Set("version", kFormatVersion);
  map.Set("name", ffi::String(name()));
  map.Set("params", params);
  return map;
}

Signature Signature::FromMap(const ffi::Map<ffi::String, ffi::Any>& map) {
  const std::string where = "Signature";
  RejectUnknownFields(map, {"version", "name", "params"}, where);
  int64_t version = *Field<int64_t>(map, "version", "an integer", where, true);
  if (version != kFormatVersion) {
    TVM_FFI_THROW(ValueError) << "Signature version " << version << " is not supported (this "
                              << "kwcall reads version " << kFormatVersion << ")";
  }
  std::string name(Field<ffi::String>(map, "name", "a string", where, false).value_or(""));
  auto items = *Field<ffi::Array<ffi::Any>>(map, "params", "an array", where, true);
  if (items.size() > static_cast<size_t>(kMaxParams)) {
    TVM_FFI_THROW(ValueError) << "Signature has " << items.size()
                              << " parameters; the limit (kwcall::kMaxParams) is " << kMaxParams;
  }
  std::vector<Param> params;
  params.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) params.push_back(ParamFromMap(items[i], i));
  return Make(std::move(name), std::move(params));
}

std::string Signature::ToJson() const {
  for (const Param& param : get()->params()) {
    if (param.default_value.has_value() && !IsJsonValue(*param.default_value)) {
      const bool subnormal = param.default_value->type_index() == ffi::TypeIndex::kTVMFFIFloat;
      TVM_FFI_THROW(ValueError) << "The default of parameter '" << param.name << "' of " << name()
                                << "() "
                                << (subnormal ? "is a subnormal float"
                                              : "has type " +
                                                    std::string(param.default_value->GetTypeKey()))
                                << ", which JSON cannot represent";
    }
  }
  std::string json = JsonStringify(ToMap());
  if (json.size() > static_cast<size_t>(kMaxJsonBytes)) {
    TVM_FFI_THROW(ValueError) << "The JSON text of " << name() << "() would be " << json.size()
                              << " bytes; the limit (kwcall::kMaxJsonBytes) is " << kMaxJsonBytes;
  }
  return json;
}

Signature Signature::FromJson(std::string_view json) {
  if (json.size() > static_cast<size_t>(kMaxJsonBytes)) {
    TVM_FFI_THROW(ValueError) << "Invalid signature JSON: " << json.size()
                              << " bytes; the limit (kwcall::kMaxJsonBytes) is " << kMaxJsonBytes;
  }
  // tvm-ffi's parser recurses once per nesting level: refuse deep text before it runs. A
  // default sits three levels down (the signature, "params", the parameter).
  constexpr int32_t kMaxJsonDepth = kMaxNestingDepth + 3;
  if (JsonNestingDepth(json, kMaxJsonDepth) > kMaxJsonDepth) {
    TVM_FFI_THROW(ValueError) << "Invalid signature JSON: arrays and objects nest deeper than "
                              << "the limit (kwcall::kMaxNestingDepth) of " << kMaxNestingDepth;
  }
  ffi::Any parsed;
  try {
    parsed = JsonParse(json);
  } catch (const ffi::Error& error) {
    TVM_FFI_THROW(ValueError) << "Invalid signature JSON: " << error.message();
  }
  auto map = parsed.try_cast<ffi::Map<ffi::String, ffi::Any>>();
  if (!map.has_value()) {
    TVM_FFI_THROW(TypeError) << "Signature JSON must be an object, got " << parsed.GetTypeKey();
  }
  return FromMap(*map);
}

}  // namespace kwcall
