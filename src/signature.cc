// Signature validation and its map/JSON forms.
#include <kwcall/signature.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/json.h>

#include <algorithm>
#include <array>
#include <string>
#include <unordered_set>

namespace kwcall {
namespace {

// Python's hard keywords: a parameter cannot be named after one of them.
constexpr std::array<std::string_view, 35> kPythonKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

// tvm-ffi's make_kwargs_wrapper reserves this prefix for its generated code; rejecting it
// too keeps every kwcall signature usable with tvm-ffi's wrapper and the other way round.
constexpr std::string_view kReservedPrefix = "__i_";

bool IsIdentifier(std::string_view name) {
  if (name.empty()) return false;
  auto is_start = [](unsigned char c) { return c == '_' || std::isalpha(c) || c >= 0x80; };
  auto is_continue = [&](unsigned char c) { return is_start(c) || std::isdigit(c); };
  if (!is_start(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin() + 1, name.end(),
                     [&](char c) { return is_continue(static_cast<unsigned char>(c)); });
}

void ValidateName(const std::string& name, const char* kind) {
  if (!IsIdentifier(name)) {
    TVM_FFI_THROW(ValueError) << "Invalid " << kind << " name: '" << name
                              << "' is not a valid Python identifier";
  }
  if (std::find(kPythonKeywords.begin(), kPythonKeywords.end(), name) != kPythonKeywords.end()) {
    TVM_FFI_THROW(ValueError) << "Invalid " << kind << " name: '" << name
                              << "' is a Python keyword and cannot be used as a parameter name";
  }
  if (name.compare(0, kReservedPrefix.size(), kReservedPrefix) == 0) {
    TVM_FFI_THROW(ValueError) << "Invalid " << kind << " name: '" << name
                              << "' starts with the reserved prefix '" << kReservedPrefix << "'";
  }
}

// JSON holds None, bool, int, float, str and arrays/maps of them; anything else
// (a tensor, a Python object) cannot travel in the AOT sidecar.
bool IsJsonValue(const ffi::Any& value) {
  switch (value.type_index()) {
    case ffi::TypeIndex::kTVMFFINone:
    case ffi::TypeIndex::kTVMFFIBool:
    case ffi::TypeIndex::kTVMFFIInt:
    case ffi::TypeIndex::kTVMFFIFloat:
    case ffi::TypeIndex::kTVMFFISmallStr:
    case ffi::TypeIndex::kTVMFFIStr:
      return true;
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

template <typename T>
T GetField(const ffi::Map<ffi::String, ffi::Any>& map, const char* key, const char* expected) {
  auto it = map.find(key);
  if (it == map.end()) return T();
  auto value = (*it).second.try_cast<T>();
  if (!value.has_value()) {
    TVM_FFI_THROW(TypeError) << "Signature field '" << key << "' must be " << expected << ", got "
                             << (*it).second.GetTypeKey();
  }
  return *value;
}

std::vector<std::string> ToStrings(const ffi::Array<ffi::Any>& items, const char* field) {
  std::vector<std::string> out;
  for (const ffi::Any& item : items) {
    auto text = item.try_cast<ffi::String>();
    if (!text.has_value()) {
      TVM_FFI_THROW(TypeError) << "Signature field '" << field << "' must hold strings, got "
                               << item.GetTypeKey();
    }
    out.emplace_back(text->data(), text->size());
  }
  return out;
}

ffi::Array<ffi::Any> ToArray(const std::vector<std::string>& names) {
  ffi::Array<ffi::Any> out;
  for (const std::string& name : names) out.push_back(ffi::String(name));
  return out;
}

}  // namespace

Signature Signature::Make(SignatureSpec spec) {
  auto data = std::make_shared<Data>();
  data->name = spec.name.empty() ? "function" : spec.name;

  std::unordered_set<std::string> seen;
  auto add_names = [&](const std::vector<std::string>& names, const char* kind) {
    for (const std::string& name : names) {
      ValidateName(name, kind);
      if (!seen.insert(name).second) {
        bool overlap =
            kind != std::string_view("argument") &&
            std::find(spec.arg_names.begin(), spec.arg_names.end(), name) != spec.arg_names.end();
        if (overlap) {
          TVM_FFI_THROW(ValueError)
              << "Parameter '" << name << "' cannot be both positional and keyword-only";
        }
        TVM_FFI_THROW(ValueError) << "Duplicate parameter name '" << name << "' in signature of "
                                  << data->name << "()";
      }
      data->names.push_back(name);
    }
  };
  add_names(spec.arg_names, "argument");
  add_names(spec.kwonly_names, "keyword-only argument");

  const int32_t num_positional = static_cast<int32_t>(spec.arg_names.size());
  const int32_t num_defaults = static_cast<int32_t>(spec.arg_defaults.size());
  if (num_defaults > num_positional) {
    TVM_FFI_THROW(ValueError) << "arg_defaults has " << num_defaults << " values but only "
                              << num_positional << " positional arguments";
  }
  if (spec.posonly_count < 0 || spec.posonly_count > num_positional) {
    TVM_FFI_THROW(ValueError) << "posonly_count must be between 0 and " << num_positional
                              << ", got " << spec.posonly_count;
  }
  data->num_positional = num_positional;
  data->posonly_count = spec.posonly_count;
  data->num_positional_defaults = num_defaults;

  data->defaults.resize(data->names.size());
  data->has_default.assign(data->names.size(), 0);
  for (int32_t i = 0; i < num_defaults; ++i) {
    int32_t param = num_positional - num_defaults + i;
    data->defaults[param] = std::move(spec.arg_defaults[i]);
    data->has_default[param] = 1;
  }
  for (auto& [name, value] : spec.kwonly_defaults) {
    auto it = std::find(spec.kwonly_names.begin(), spec.kwonly_names.end(), name);
    if (it == spec.kwonly_names.end()) {
      TVM_FFI_THROW(ValueError) << "Default provided for '" << name
                                << "' which is not in kwonly_names";
    }
    int32_t param = num_positional + static_cast<int32_t>(it - spec.kwonly_names.begin());
    if (data->has_default[param]) {
      TVM_FFI_THROW(ValueError) << "Two defaults provided for keyword-only argument '" << name
                                << "'";
    }
    data->defaults[param] = std::move(value);
    data->has_default[param] = 1;
  }
  data->has_any_default = std::any_of(data->has_default.begin(), data->has_default.end(),
                                      [](uint8_t flag) { return flag != 0; });

  for (const std::string& name : spec.unpack) {
    if (!seen.count(name)) {
      TVM_FFI_THROW(ValueError) << "Cannot unpack '" << name << "': " << data->name
                                << "() has no such parameter";
    }
    if (std::find(data->unpack.begin(), data->unpack.end(), name) == data->unpack.end()) {
      data->unpack.push_back(name);
    }
  }
  return Signature(std::move(data));
}

int32_t Signature::FindParam(std::string_view name) const {
  for (int32_t i = 0; i < num_params(); ++i) {
    if (data_->names[i] == name) return i;
  }
  return -1;
}

SignatureSpec Signature::ToSpec() const {
  SignatureSpec spec;
  spec.name = data_->name;
  spec.posonly_count = data_->posonly_count;
  spec.unpack = data_->unpack;
  for (int32_t i = 0; i < num_params(); ++i) {
    if (i < num_positional()) {
      spec.arg_names.push_back(param_name(i));
      if (has_default(i)) spec.arg_defaults.push_back(default_value(i));
    } else {
      spec.kwonly_names.push_back(param_name(i));
      if (has_default(i)) spec.kwonly_defaults.emplace_back(param_name(i), default_value(i));
    }
  }
  return spec;
}

ffi::Map<ffi::String, ffi::Any> Signature::ToMap() const {
  SignatureSpec spec = ToSpec();
  ffi::Array<ffi::Any> arg_defaults(spec.arg_defaults.begin(), spec.arg_defaults.end());
  ffi::Map<ffi::String, ffi::Any> kwonly_defaults;
  for (const auto& [name, value] : spec.kwonly_defaults) kwonly_defaults.Set(name, value);
  ffi::Map<ffi::String, ffi::Any> map;
  map.Set("name", ffi::String(spec.name));
  map.Set("arg_names", ToArray(spec.arg_names));
  map.Set("arg_defaults", arg_defaults);
  map.Set("posonly_count", static_cast<int64_t>(spec.posonly_count));
  map.Set("kwonly_names", ToArray(spec.kwonly_names));
  map.Set("kwonly_defaults", kwonly_defaults);
  map.Set("unpack", ToArray(spec.unpack));
  return map;
}

Signature Signature::FromMap(const ffi::Map<ffi::String, ffi::Any>& map) {
  static const std::unordered_set<std::string> kFields = {
      "name",         "arg_names",       "arg_defaults", "posonly_count",
      "kwonly_names", "kwonly_defaults", "unpack"};
  for (const auto& [key, value] : map) {
    if (!kFields.count(std::string(key))) {
      TVM_FFI_THROW(ValueError) << "Unknown signature field '" << key << "'";
    }
  }
  SignatureSpec spec;
  spec.name = std::string(GetField<ffi::String>(map, "name", "a string"));
  spec.arg_names =
      ToStrings(GetField<ffi::Array<ffi::Any>>(map, "arg_names", "an array"), "arg_names");
  for (const ffi::Any& value : GetField<ffi::Array<ffi::Any>>(map, "arg_defaults", "an array")) {
    spec.arg_defaults.push_back(value);
  }
  spec.posonly_count = static_cast<int32_t>(GetField<int64_t>(map, "posonly_count", "an integer"));
  spec.kwonly_names =
      ToStrings(GetField<ffi::Array<ffi::Any>>(map, "kwonly_names", "an array"), "kwonly_names");
  auto kwonly_defaults = GetField<ffi::Map<ffi::Any, ffi::Any>>(map, "kwonly_defaults", "a map");
  for (const auto& [key, value] : kwonly_defaults) {
    auto name = key.try_cast<ffi::String>();
    if (!name.has_value()) {
      TVM_FFI_THROW(TypeError) << "Signature field 'kwonly_defaults' must have string keys, got "
                               << key.GetTypeKey();
    }
    spec.kwonly_defaults.emplace_back(std::string(*name), value);
  }
  spec.unpack = ToStrings(GetField<ffi::Array<ffi::Any>>(map, "unpack", "an array"), "unpack");
  return Make(std::move(spec));
}

std::string Signature::ToJson() const {
  for (int32_t i = 0; i < num_params(); ++i) {
    if (has_default(i) && !IsJsonValue(default_value(i))) {
      TVM_FFI_THROW(ValueError) << "The default of parameter '" << param_name(i) << "' of "
                                << name() << "() has type " << default_value(i).GetTypeKey()
                                << ", which JSON cannot represent";
    }
  }
  return std::string(ffi::json::Stringify(ToMap()));
}

Signature Signature::FromJson(std::string_view json) {
  ffi::String error;
  ffi::Any parsed = ffi::json::Parse(ffi::String(std::string(json)), &error);
  if (!error.empty()) {
    TVM_FFI_THROW(ValueError) << "Invalid signature JSON: " << error;
  }
  auto map = parsed.try_cast<ffi::Map<ffi::String, ffi::Any>>();
  if (!map.has_value()) {
    TVM_FFI_THROW(TypeError) << "Signature JSON must be an object, got " << parsed.GetTypeKey();
  }
  return FromMap(*map);
}

}  // namespace kwcall
