// kwcall functions from exported code: modules and statically linked symbols.
#include <kwcall/export.h>
#include <kwcall/function.h>
#include <kwcall/load.h>
#include <tvm/ffi/error.h>

#include <string>

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

}  // namespace

std::optional<Signature> ExportedSignature(const ffi::Module& mod, const ffi::String& name) {
  ffi::Optional<ffi::Function> carrier =
      mod->GetFunction(ffi::String(std::string(KWCALL_SIGNATURE_FUNCTION_PREFIX) + name.c_str()));
  if (!carrier.has_value()) return std::nullopt;
  ffi::String json = (*carrier)().cast<ffi::String>();
  return Signature::FromJson(std::string_view(json.data(), json.size()));
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
  ffi::String json = ffi::Function::InvokeExternC(nullptr, signature_symbol).cast<ffi::String>();
  return FromExternC(symbol, Signature::FromJson(std::string_view(json.data(), json.size())));
}

}  // namespace kwcall
