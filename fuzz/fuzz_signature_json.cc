// libFuzzer target for a signature's JSON and map forms. The input is read twice: as JSON text
// for Signature::FromJson, and as the recipe of a map (or any value) for Signature::FromMap and
// the kwcall.Signature global. Each must return a signature or throw ffi::Error, nothing else;
// a signature that comes back must survive ToMap -> FromMap and ToJson -> FromJson unchanged.
#include <fuzzer/FuzzedDataProvider.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kwcall {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_signature_json: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

const TVMFFIAny& Raw(const ffi::Any& value) { return *reinterpret_cast<const TVMFFIAny*>(&value); }

bool IsString(const ffi::Any& value) {
  return value.type_index() == ffi::TypeIndex::kTVMFFISmallStr ||
         value.type_index() == ffi::TypeIndex::kTVMFFIStr;
}

// Equality of map forms: strings by text (small or not), containers by content, numbers by
// bits (a NaN default equals itself), other objects by identity.
bool Same(const ffi::Any& a, const ffi::Any& b) {
  if (IsString(a) || IsString(b)) {
    return IsString(a) && IsString(b) && a.cast<ffi::String>() == b.cast<ffi::String>();
  }
  if (a.type_index() != b.type_index()) return false;
  switch (a.type_index()) {
    case ffi::TypeIndex::kTVMFFINone:
      return true;
    case ffi::TypeIndex::kTVMFFIArray: {
      auto x = a.cast<ffi::Array<ffi::Any>>();
      auto y = b.cast<ffi::Array<ffi::Any>>();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!Same(x[i], y[i])) return false;
      }
      return true;
    }
    case ffi::TypeIndex::kTVMFFIMap: {
      auto x = a.cast<ffi::Map<ffi::Any, ffi::Any>>();
      auto y = b.cast<ffi::Map<ffi::Any, ffi::Any>>();
      if (x.size() != y.size()) return false;
      for (const auto& [key, value] : x) {
        auto it = y.find(key);
        if (it == y.end() || !Same(value, (*it).second)) return false;
      }
      return true;
    }
    default:
      return Raw(a).v_int64 == Raw(b).v_int64;
  }
}

// What a signature's JSON text can hold, decided here independently of signature_json.cc.
bool IsJson(const ffi::Any& value) {
  switch (value.type_index()) {
    case ffi::TypeIndex::kTVMFFINone:
    case ffi::TypeIndex::kTVMFFIBool:
    case ffi::TypeIndex::kTVMFFIInt:
    case ffi::TypeIndex::kTVMFFISmallStr:
    case ffi::TypeIndex::kTVMFFIStr:
      return true;
    case ffi::TypeIndex::kTVMFFIFloat:
      // tvm-ffi's JSON reader cannot read subnormal numbers back.
      return std::fpclassify(value.cast<double>()) != FP_SUBNORMAL;
    case ffi::TypeIndex::kTVMFFIArray:
      for (const ffi::Any& item : value.cast<ffi::Array<ffi::Any>>()) {
        if (!IsJson(item)) return false;
      }
      return true;
    case ffi::TypeIndex::kTVMFFIMap:
      for (const auto& [key, item] : value.cast<ffi::Map<ffi::Any, ffi::Any>>()) {
        if (!IsString(key) || !IsJson(item)) return false;
      }
      return true;
    default:
      return false;
  }
}

std::string Clip(std::string text) {
  if (text.size() > 2000) text = text.substr(0, 2000) + "...";
  return text;
}

Signature MustFromMap(const ffi::Map<ffi::String, ffi::Any>& map, const char* what) {
  try {
    return Signature::FromMap(map);
  } catch (const ffi::Error& err) {
    Fail(std::string(what) + " was refused: " + err.what());
  }
}

Signature MustFromJson(const std::string& json, const char* what) {
  try {
    return Signature::FromJson(json);
  } catch (const ffi::Error& err) {
    Fail(std::string(what) + " was refused: " + err.what() + "\n  text: " + Clip(json));
  }
}

// A signature that was accepted: its map form reads back to the same map form, and its JSON
// text (when its defaults are JSON values) reads back to the same text.
void CheckRoundTrips(const Signature& sig, bool from_json) {
  const ffi::Map<ffi::String, ffi::Any> map = sig.ToMap();
  const ffi::Map<ffi::String, ffi::Any> map2 = MustFromMap(map, "ToMap()'s output").ToMap();
  if (!Same(map, map2)) Fail("ToMap -> FromMap -> ToMap changed the map form");

  bool json_defaults = true;
  for (int32_t i = 0; i < sig.num_params(); ++i) {
    if (sig.has_default(i) && !IsJson(sig.default_value(i))) json_defaults = false;
  }
  std::string json;
  try {
    json = sig.ToJson();
  } catch (const ffi::Error& err) {
    if (json_defaults || from_json || std::string(err.kind()) != "ValueError") {
      Fail(std::string("ToJson failed: ") + err.what());
    }
    return;
  }
  if (!json_defaults) Fail("ToJson wrote a default that JSON cannot hold: " + Clip(json));
  const Signature again = MustFromJson(json, "ToJson()'s output");
  const std::string json2 = again.ToJson();
  if (json2 != json) {
    Fail("ToJson -> FromJson -> ToJson is not a fixed point:\n  " + Clip(json) + "\n  " +
         Clip(json2));
  }
  if (!Same(again.ToMap(), map)) Fail("FromJson(ToJson()) has another map form");
}

// Builds values from the input: mostly signature-shaped maps, with wrong types, unknown
// fields, huge numbers and deep nesting mixed in.
class Builder {
 public:
  explicit Builder(FuzzedDataProvider& in) : in_(in) {}

  ffi::Any Top() {
    if (in_.ConsumeIntegralInRange<int>(0, 15) == 0) return Value(0);
    return SignatureMap();
  }

 private:
  bool Rarely() { return in_.ConsumeIntegralInRange<int>(0, 7) == 0; }

  ffi::String Text() {
    static const char* const kTexts[] = {"version",
                                         "name",
                                         "params",
                                         "kind",
                                         "default",
                                         "unpack",
                                         "POSITIONAL_ONLY",
                                         "POSITIONAL_OR_KEYWORD",
                                         "KEYWORD_ONLY",
                                         "VAR_POSITIONAL",
                                         "a",
                                         "b",
                                         "alpha",
                                         "x",
                                         "abcdefgh",
                                         "a_rather_long_parameter_name",
                                         "\u03b1\u03b2\u03b3\u03b4",
                                         "class",
                                         "None",
                                         "\ufb01",
                                         "1abc",
                                         "",
                                         "f",
                                         "\xff\xfe"};
    if (in_.ConsumeIntegralInRange<int>(0, 3) == 0)
      return ffi::String(in_.ConsumeRandomLengthString(40));
    return ffi::String(kTexts[in_.ConsumeIntegralInRange<size_t>(0, std::size(kTexts) - 1)]);
  }

  ffi::Any Number() {
    switch (in_.ConsumeIntegralInRange<int>(0, 9)) {
      case 0:
        return std::numeric_limits<int64_t>::max();
      case 1:
        return std::numeric_limits<int64_t>::min();
      case 2:
        return (int64_t{1} << 53) + 1;
      case 3:
        return std::numeric_limits<double>::quiet_NaN();
      case 4:
        return -std::numeric_limits<double>::infinity();
      case 5:
        return -0.0;
      case 6:
        return in_.ConsumeFloatingPoint<double>();
      case 7:
        return std::numeric_limits<double>::denorm_min();
      default:
        return in_.ConsumeIntegral<int64_t>();
    }
  }

  // Arrays or maps nested `levels` deep around a number, without recursion.
  ffi::Any Nest(int levels) {
    ffi::Any value = Number();
    const bool maps = in_.ConsumeBool();
    for (int i = 0; i < levels; ++i) {
      if (maps) {
        ffi::Map<ffi::String, ffi::Any> map;
        map.Set("k", value);
        value = map;
      } else {
        value = ffi::Array<ffi::Any>({value});
      }
    }
    return value;
  }

  // An array around kwcall::kMaxDefaultElements long (all defaults together count), its
  // items one shared value: scalars, or arrays that count too.
  ffi::Any Wide() {
    const int64_t size = kMaxDefaultElements + in_.ConsumeIntegralInRange<int64_t>(-3, 3);
    const ffi::Any item = in_.ConsumeBool() ? Number() : ffi::Any(ffi::Array<ffi::Any>({0}));
    ffi::Array<ffi::Any> items;
    items.reserve(size);
    for (int64_t i = 0; i < size; ++i) items.push_back(item);
    return items;
  }

  ffi::Any Value(int depth) {
    const int pick = in_.ConsumeIntegralInRange<int>(0, depth > 8 ? 5 : 12);
    switch (pick) {
      case 0:
        return Number();
      case 1:
        return in_.ConsumeBool();
      case 2:
        return nullptr;
      case 3:
      case 4:
        return Text();
      case 5:
        return in_.ConsumeIntegral<int32_t>();
      case 6:
      case 7: {
        ffi::Array<ffi::Any> items;
        for (int n = in_.ConsumeIntegralInRange<int>(0, 4); n > 0; --n)
          items.push_back(Value(depth + 1));
        return items;
      }
      case 8: {
        ffi::Map<ffi::String, ffi::Any> map;
        for (int n = in_.ConsumeIntegralInRange<int>(0, 4); n > 0; --n)
          map.Set(Text(), Value(depth + 1));
        return map;
      }
      case 9: {
        // Keys that are not strings: a map JSON cannot hold.
        ffi::Map<ffi::Any, ffi::Any> map;
        map.Set(in_.ConsumeIntegral<int8_t>(), Value(depth + 1));
        if (in_.ConsumeBool()) map.Set(Text(), Value(depth + 1));
        return map;
      }
      case 10:
        return Nest(in_.ConsumeIntegralInRange<int>(kMaxNestingDepth - 3, kMaxNestingDepth + 3));
      case 11:
        return in_.ConsumeBool() ? Nest(in_.ConsumeIntegralInRange<int>(0, 400)) : Wide();
      default:
        // An object that is none of the JSON types.
        return ffi::Function::FromPacked([](ffi::PackedArgs, ffi::Any*) {});
    }
  }

  ffi::Any ParamMap(int index) {
    ffi::Map<ffi::String, ffi::Any> map;
    static const char* const kKinds[] = {"POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD",
                                         "KEYWORD_ONLY"};
    if (!Rarely()) {
      static const char* const kNames[] = {"a",          "b",
                                           "c",          "alpha",
                                           "abcdefgh",   "abcdefgh1",
                                           "\u00e9",     "\u03b1\u03b2\u03b3\u03b4",
                                           "\u00f1_x",   "__i_target_func",
                                           "__i_unpack", "__i_x"};
      map.Set("name", Rarely()
                          ? Value(1)
                          : ffi::Any(in_.ConsumeIntegralInRange<int>(0, 3) == 0
                                         ? ffi::String("p" + std::to_string(index))
                                         : ffi::String(kNames[in_.ConsumeIntegralInRange<size_t>(
                                               0, std::size(kNames) - 1)])));
    }
    if (!Rarely()) {
      map.Set("kind", Rarely()
                          ? Value(1)
                          : ffi::Any(ffi::String(kKinds[in_.ConsumeIntegralInRange<int>(0, 2)])));
    }
    if (in_.ConsumeBool()) map.Set("default", Value(1));
    if (Rarely()) map.Set("unpack", Rarely() ? Value(1) : ffi::Any(in_.ConsumeBool()));
    if (Rarely()) map.Set(Text(), Value(1));
    return map;
  }

  ffi::Any SignatureMap() {
    ffi::Map<ffi::String, ffi::Any> map;
    if (!Rarely()) map.Set("version", Rarely() ? Value(1) : ffi::Any(int64_t{1}));
    if (in_.ConsumeBool()) map.Set("name", Rarely() ? Value(1) : ffi::Any(Text()));
    if (!Rarely()) {
      if (Rarely()) {
        map.Set("params", Value(1));
      } else {
        ffi::Array<ffi::Any> params;
        const int count = in_.ConsumeIntegralInRange<int>(0, 63) == 0
                              ? kMaxParams + in_.ConsumeIntegralInRange<int>(0, 2)
                              : in_.ConsumeIntegralInRange<int>(0, 8);
        for (int i = 0; i < count && (i == 0 || in_.remaining_bytes() > 0); ++i) {
          params.push_back(ParamMap(i));
        }
        // Past the limit: the same map over and over is enough.
        while (static_cast<int>(params.size()) < count) params.push_back(params[0]);
        map.Set("params", params);
      }
    }
    if (Rarely()) map.Set(Text(), Value(1));
    return map;
  }

  FuzzedDataProvider& in_;
};

}  // namespace
}  // namespace kwcall

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kwcall;  // NOLINT(build/namespaces)
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::optional<Signature> sig;
  try {
    sig = Signature::FromJson(text);
  } catch (const ffi::Error&) {
  }
  if (sig.has_value()) CheckRoundTrips(*sig, /*from_json=*/true);

  FuzzedDataProvider in(data, size);
  const ffi::Any value = Builder(in).Top();
  sig.reset();
  if (auto map = value.try_cast<ffi::Map<ffi::String, ffi::Any>>()) {
    try {
      sig = Signature::FromMap(*map);
    } catch (const ffi::Error&) {
    }
    if (sig.has_value()) CheckRoundTrips(*sig, /*from_json=*/false);
  }
  // The global every language uses takes any value (a signature, its map, its JSON text).
  static const ffi::Function parse = ffi::Function::GetGlobalRequired("kwcall.Signature");
  std::optional<Signature> parsed;
  try {
    parsed = parse(value).cast<Signature>();
  } catch (const ffi::Error&) {
  }
  if (parsed.has_value()) {
    if (sig.has_value() && !Same(parsed->ToMap(), sig->ToMap())) {
      Fail("the kwcall.Signature global and FromMap disagree");
    }
    CheckRoundTrips(*parsed, /*from_json=*/false);
  }
  return 0;
}
