// Signature's map and JSON forms: the format (version 1), reading it back through Make's
// validation, and tvm-ffi's JSON reader and writer.
#include <kwcall/signature.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>

#include "nesting.h"
#include "param_kinds.h"
#include "utf8.h"

namespace kwcall {
namespace {

std::string_view View(const ffi::String& text) {
  return std::string_view(text.data(), text.size());
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
      TVM_FFI_THROW(ValueError) << where << " has an unknown field '" << ShownText(std::string(key))
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
  const KindInfo* info = FindKindByInspectName(View(kind));
  if (info == nullptr) {
    TVM_FFI_THROW(ValueError) << where << " has an unknown kind '" << ShownText(std::string(kind))
                              << "' (expected POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD or "
                              << "KEYWORD_ONLY)";
  }
  param.kind = static_cast<ParamKind>(info->number);
  auto it = map->find("default");
  if (it != map->end()) param.default_value = (*it).second;
  param.unpack = Field<bool>(*map, "unpack", "a bool", where, false).value_or(false);
  return param;
}

}  // namespace

ffi::Map<ffi::String, ffi::Any> Signature::ToMap() const {
  ffi::Array<ffi::Any> params;
  for (const Param& param : get()->params()) {
    ffi::Map<ffi::String, ffi::Any> item;
    item.Set("name", ffi::String(param.name));
    item.Set("kind",
             ffi::String(std::string(FindKind(static_cast<int32_t>(param.kind))->inspect_name)));
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
