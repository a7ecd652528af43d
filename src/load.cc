// kwcall functions from exported code: modules and statically linked symbols.
#include <kwcall/export.h>
#include <kwcall/function.h>
#include <kwcall/load.h>
#include <tvm/ffi/error.h>

#include <string>

#include "companion.h"
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
  const ffi::String json = CompanionText(result, what, kSignatureCompanion);
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

}  // namespace

std::optional<Signature> ExportedSignature(const ffi::Module& mod, const ffi::String& name) {
  ffi::Optional<ffi::Function> companion = FindCompanion(mod, kSignatureCompanion, name);
  if (!companion.has_value()) return std::nullopt;
  return SignatureFromResult((*companion)(), CompanionWhat(kSignatureCompanion, name));
}

Signature ExportedSignatureFromResult(const ffi::Any& result, const std::string& name) {
  return SignatureFromResult(result, CompanionWhat(kSignatureCompanion, name));
}

ffi::Function LoadFunction(const ffi::Module& mod, const ffi::String& name) {
  ffi::Function target = FindFunction(mod, name);
  std::optional<Signature> signature = ExportedSignature(mod, name);
  if (!signature.has_value()) {
    ThrowNoCompanion("kwcall::LoadFunction", kSignatureCompanion, name, "pass a kwcall::Signature");
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
