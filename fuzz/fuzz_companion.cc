// libFuzzer target for exported-signature companions (`__kwcall_signature_<name>`): a companion
// that returns a fuzzed value of any kind (a string of fuzzed text among them, at and past
// kwcall::kMaxJsonBytes), or fails. Through both routes, a module (kwcall::LoadFunction,
// ExportedSignature) and a statically linked symbol (kwcall::FromExternC), the outcome must be:
//   - a string: exactly what Signature::FromJson makes of the text, or its error with the
//     companion named in front;
//   - anything else: kwcall's TypeError naming the companion and the type it returned;
//   - a companion that fails: its own error, unchanged.
// The input's first byte picks the kind; the rest is its payload.
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/module.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace kwcall {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_companion: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// What the companion returns this time (or, with g_throws, that it fails).
ffi::Any g_value;
bool g_throws = false;

int Companion(void*, const TVMFFIAny*, int32_t, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  if (g_throws) TVM_FFI_THROW(RuntimeError) << "the companion failed";
  *reinterpret_cast<ffi::Any*>(result) = g_value;
  TVM_FFI_SAFE_CALL_END();
}

// The exported function itself: returns how many arguments it got.
int Target(void*, const TVMFFIAny*, int32_t num_args, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  *reinterpret_cast<ffi::Any*>(result) = static_cast<int64_t>(num_args);
  TVM_FFI_SAFE_CALL_END();
}

// A system-library module holding both, as a kernel library would export them.
const ffi::Module& Module() {
  static const ffi::Module mod = [] {
    TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_kwcall_fuzz.f", reinterpret_cast<void*>(Target));
    TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_kwcall_fuzz.__kwcall_signature_f",
                                        reinterpret_cast<void*>(Companion));
    return ffi::Function::GetGlobalRequired("ffi.SystemLib")(ffi::String("kwcall_fuzz."))
        .cast<ffi::Module>();
  }();
  return mod;
}

bool IsString(const ffi::Any& value) {
  return value.type_index() == ffi::TypeIndex::kTVMFFISmallStr ||
         value.type_index() == ffi::TypeIndex::kTVMFFIStr;
}

// The value of the kind `pick` selects, from `payload`.
ffi::Any MakeValue(uint8_t pick, const std::string& payload) {
  switch (pick % 16) {
    case 0:
      return nullptr;
    case 1:
      return !payload.empty() && (payload[0] & 1) != 0;
    case 2: {
      int64_t v = 0;
      std::memcpy(&v, payload.data(), std::min(payload.size(), sizeof(v)));
      return v;
    }
    case 3: {
      double v = 0;
      std::memcpy(&v, payload.data(), std::min(payload.size(), sizeof(v)));
      return v;
    }
    case 4:
    case 5:
    case 6:
      return ffi::String(payload);  // fuzzed text, small or not
    case 7: {
      // A valid signature padded with spaces to exactly the byte limit (1 in 32: parsed in full,
      // which takes seconds under the sanitizers) or 1-4 bytes past it (refused by its length).
      std::string text = R"({"version": 1, "name": "f", "params": []})";
      const uint8_t choice = payload.empty() ? 1 : static_cast<uint8_t>(payload[0]);
      const int64_t delta = choice % 32 == 0 ? 0 : 1 + choice % 4;
      text.resize(static_cast<size_t>(kMaxJsonBytes + delta), ' ');
      return ffi::String(std::move(text));
    }
    case 8:
      return ffi::Bytes(payload);
    case 9: {
      ffi::Array<ffi::Any> items;
      for (char c : payload) items.push_back(static_cast<int64_t>(c));
      return items;
    }
    case 10: {
      // A signature's map form: right in shape, the wrong kind of value.
      ffi::Map<ffi::String, ffi::Any> map;
      map.Set("version", 1);
      map.Set("params", ffi::Array<ffi::Any>());
      if (!payload.empty()) map.Set("name", ffi::String(payload));
      return map;
    }
    case 11:
      return ffi::Function::FromPacked([](ffi::PackedArgs, ffi::Any*) {});
    case 12:
      // A signature object: valid, but not text.
      return SignatureBuilder("f").Param("x").Build();
    case 13:
      return DLDevice{kDLCPU, 0};
    case 14:
      return static_cast<void*>(nullptr);
    default:
      return DLDataType{kDLFloat, 32, 1};
  }
}

std::string Describe(const ffi::Error& error) {
  return std::string(error.kind()) + ": " + std::string(error.message());
}

// Runs `load`; returns its signature, or its error as "Kind: message".
template <typename Load>
std::optional<Signature> Outcome(Load load, std::string* error) {
  try {
    return load();
  } catch (const ffi::Error& e) {
    *error = Describe(e);
    return std::nullopt;
  }
}

// What Signature::FromJson makes of a string value: a signature, or its error in `error`.
struct Expected {
  std::optional<Signature> signature;
  std::string error;
};

void Check(const ffi::Any& value, const Expected& expected_json, const std::string& route,
           const std::string& companion, const std::optional<Signature>& got,
           const std::string& error) {
  if (g_throws) {
    if (got.has_value() || error != "RuntimeError: the companion failed") {
      Fail(route + ": the companion's own error was not passed on: " + error);
    }
    return;
  }
  if (!IsString(value)) {
    const std::string want = "TypeError: kwcall: " + companion + " returned " +
                             std::string(value.GetTypeKey()) +
                             ", not the signature's JSON text (KWCALL_EXPORT_SIGNATURE writes the "
                             "function that returns it)";
    if (got.has_value() || error != want) Fail(route + ": a non-string gave: " + error);
    return;
  }
  const std::optional<Signature>& want = expected_json.signature;
  const std::string& json_error = expected_json.error;
  if (want.has_value() != got.has_value()) {
    Fail(route + " and FromJson disagree: " + (got ? json_error : error));
  }
  if (want.has_value()) {
    if (want->ToMap().size() != got->ToMap().size() || want->num_params() != got->num_params() ||
        want->name() != got->name()) {
      Fail(route + " made another signature than FromJson");
    }
    return;
  }
  const size_t colon = json_error.find(": ");
  const std::string expected = json_error.substr(0, colon) + ": kwcall: " + companion +
                               " is not valid: " + json_error.substr(colon + 2);
  if (error != expected) Fail(route + ": " + error + "\n  expected: " + expected);
}

}  // namespace
}  // namespace kwcall

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kwcall;  // NOLINT(build/namespaces)
  if (size == 0) return 0;
  const std::string payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  g_throws = data[0] == 0xff;
  g_value = MakeValue(data[0], payload);
  const ffi::Module& mod = Module();
  Expected expected;
  if (IsString(g_value)) {
    const ffi::String text = g_value.cast<ffi::String>();
    expected.signature =
        Outcome([&] { return Signature::FromJson(std::string_view(text.data(), text.size())); },
                &expected.error);
  }

  std::string error;
  std::optional<Signature> from_module =
      Outcome([&] { return *GetSignature(LoadFunction(mod, "f")); }, &error);
  Check(g_value, expected, "LoadFunction", "the signature exported for 'f' (__kwcall_signature_f)",
        from_module, error);
  error.clear();
  std::optional<Signature> exported = Outcome(
      [&] {
        std::optional<Signature> sig = ExportedSignature(mod, "f");
        if (!sig.has_value()) Fail("ExportedSignature found no companion");
        return *sig;
      },
      &error);
  Check(g_value, expected, "ExportedSignature",
        "the signature exported for 'f' (__kwcall_signature_f)", exported, error);
  error.clear();
  std::optional<Signature> from_symbol =
      Outcome([&] { return *GetSignature(FromExternC(Target, Companion)); }, &error);
  Check(g_value, expected, "FromExternC", "the signature symbol given to kwcall::FromExternC",
        from_symbol, error);
  if (from_symbol.has_value()) {
    // The function binds like any other: a call without arguments returns or raises TypeError.
    try {
      FromExternC(Target, *from_symbol)();
    } catch (const ffi::Error& e) {
      if (std::string(e.kind()) != "TypeError") Fail("calling it: " + Describe(e));
    }
  }
  g_value = nullptr;
  return 0;
}
