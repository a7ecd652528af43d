// kwcall functions from exported code: modules and statically linked symbols.
#include <kwcall/export.h>
#include <kwcall/function.h>
#include <kwcall/load.h>
#include <tvm/ffi/error.h>

#include <string>

#include "exported_signature.h"

namespace kwcall {
namespace {

ffi::Function FindFunction(const ffi::Module& mod, const ffi::String& name) {
  ffi::Optional<ffi::Function> fn = mod->GetFunction(name);
  if (!fn.has_value()) {
    TVM_FFI_THROW(AttributeError) << "kwcall::LoadFunction: the module has no function '" << name
                                  << "'";
  }
  return *fn;
}

// The signature a companion returned (KWCALL_EXPORT_SIGNATURE's function, or any function a
// library exports under that name): JSON text, within the limits, that FromJson accepts. Every
// failure names `what`, the companion and the function it describes. The text is measured
// before it is parsed (Signature::FromJson), so oversized text costs no more than its copy.
Signature SignatureFromResult(const ffi::Any& result, const std::string& what) {
  const int32_t index = result.type_index();
  if (index != ffi::TypeIndex::kTVMFFISmallStr && index != ffi::TypeIndex::kTVMFFIStr) {
    TVM_FFI_THROW(TypeError) << "kwcall: " << what << " returned " << result.GetTypeKey()
                             << ", not the signature's JSON text (KWCALL_EXPORT_SIGNATURE "
                             << "writes the function that returns it)";
  }
  const ffi::String json = result.cast<ffi::String>();
  try {
    return Signature::FromJson(std::string_view(json.data(), json.size()));
  } catch (const ffi::Error& error) {
    // The same kind, with what was being read in front.
    const std::string kind = error.kind();
    if (kind == "ValueError") {
      TVM_FFI_THROW(ValueError) << "kwcall: " << what << " is not valid: " << error.message();
    }
    if (kind == "TypeError") {
      TVM_FFI_THROW(TypeError) << "kwcall: " << what << " is not valid: " << error.message();
    }
    throw;
  }
}

// How errors name the companion of a module's function `name`.
std::string ExportedWhat(const std::string& name) {
  return "the signature exported for '" + name + "' (" + KWCALL_SIGNATURE_FUNCTION_PREFIX + name +
         ")";
}

}  // namespace

std::optional<Signature> ExportedSignature(const ffi::Module& mod, const ffi::String& name) {
  const std::string companion = std::string(KWCALL_SIGNATURE_FUNCTION_PREFIX) + name.c_str();
  ffi::Optional<ffi::Function> carrier = mod->GetFunction(ffi::String(companion));
  if (!carrier.has_value()) return std::nullopt;
  return SignatureFromResult((*carrier)(), ExportedWhat(std::string(name)));
}

Signature ExportedSignatureFromResult(const ffi::Any& result, const std::string& name) {
  return SignatureFromResult(result, ExportedWhat(name));
}

ffi::Function LoadFunction(const ffi::Module& mod, const ffi::String& name) {
  ffi::Function target = FindFunction(mod, name);
  std::optional<Signature> signature = ExportedSignature(mod, name);
  if (!signature.has_value()) {
    TVM_FFI_THROW(AttributeError)
        << "kwcall::LoadFunction: the module exports no signature for '" << name
        << "'; export one with KWCALL_EXPORT_SIGNATURE (or kwcall.cute.export_to_c), or pass "
        << "a kwcall::Signature";
  }
  return MakeFunction(std::move(target), *std::move(signature));
}

ffi::Function LoadFunction(const ffi::Module& mod, const ffi::String& name, Signature signature) {
  return MakeFunction(FindFunction(mod, name), std::move(signature));
}

ffi::Function FromExternC(TVMFFISafeCallType symbol, Signature signature) {
  if (symbol == nullptr) {
    TVM_FFI_THROW(TypeError) << "kwcall::FromExternC: the symbol is null";
  }
  return MakeFunction(ffi::Function::FromExternC(nullptr, symbol, nullptr), std::move(signature));
}

}  // namespace kwcall

namespace kwcall {

ffi::Function FromExternC(TVMFFISafeCallType symbol, TVMFFISafeCallType signature_symbol) {
  if (signature_symbol == nullptr) {
    TVM_FFI_THROW(TypeError) << "kwcall::FromExternC: the signature symbol is null";
  }
  // A statically linked symbol has no name to report: the message says which argument it was.
  ffi::Function companion = ffi::Function::FromExternC(nullptr, signature_symbol, nullptr);
  return FromExternC(symbol, SignatureFromResult(
                                 companion(), "the signature symbol given to kwcall::FromExternC"));
}

}  // namespace kwcall
