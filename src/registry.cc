// FFI globals: kwcall for every tvm-ffi language.
#include <kwcall/function.h>
#include <kwcall/signature.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/reflection/registry.h>

#include <string>

namespace kwcall {
namespace {

// A signature given as its JSON text or its map form.
Signature SignatureFromAny(const ffi::Any& value) {
  if (auto json = value.try_cast<ffi::String>()) return Signature::FromJson(std::string(*json));
  if (auto map = value.try_cast<ffi::Map<ffi::String, ffi::Any>>()) return Signature::FromMap(*map);
  TVM_FFI_THROW(TypeError) << "A signature must be a JSON string or a map, got "
                           << value.GetTypeKey();
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::GlobalDef()
      .def("kwcall.MakeFunction",
           [](ffi::Function target, ffi::Any signature) {
             return MakeFunction(std::move(target), SignatureFromAny(signature));
           })
      .def("kwcall.GetSignature",
           [](ffi::Function f) -> ffi::Optional<ffi::Map<ffi::String, ffi::Any>> {
             if (auto sig = GetSignature(f)) return sig->ToMap();
             return std::nullopt;
           })
      .def("kwcall.GetTarget", [](ffi::Function f) { return GetTarget(f); })
      .def("kwcall.NormalizeSignature",
           [](ffi::Any signature) { return SignatureFromAny(signature).ToMap(); })
      .def("kwcall.SignatureToJson",
           [](ffi::Any signature) { return ffi::String(SignatureFromAny(signature).ToJson()); });
}

}  // namespace kwcall
