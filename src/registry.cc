// FFI globals: kwcall for every tvm-ffi language.
#include <kwcall/function.h>
#include <kwcall/load.h>
#include <kwcall/signature.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/reflection/registry.h>

#include <string>
#include <string_view>

#include "exported_signature.h"
#include "identifier.h"

namespace kwcall {
namespace {

// A signature given as a kwcall.Signature object, its map form or its JSON text.
Signature SignatureFromAny(const ffi::Any& value) {
  if (auto sig = value.try_cast<Signature>()) return *sig;
  if (auto json = value.try_cast<ffi::String>()) return Signature::FromJson(std::string(*json));
  if (auto map = value.try_cast<ffi::Map<ffi::String, ffi::Any>>()) return Signature::FromMap(*map);
  TVM_FFI_THROW(TypeError) << "A signature must be a kwcall.Signature, its map form or its JSON "
                           << "text, got " << value.GetTypeKey();
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  // The type must be known to tvm-ffi before any language looks it up by its key (Python's
  // register_object does at import); older tvm-ffi releases allocate it only on first use.
  SignatureObj::_GetOrAllocRuntimeTypeIndex();
  refl::GlobalDef()
      .def("kwcall.Signature", SignatureFromAny)
      .def("kwcall.SignatureToMap", [](Signature sig) { return sig.ToMap(); })
      .def("kwcall.SignatureToJson", [](Signature sig) { return ffi::String(sig.ToJson()); })
      .def("kwcall.MakeFunction",
           [](ffi::Function target, ffi::Any signature) {
             return MakeFunction(std::move(target), SignatureFromAny(signature));
           })
      .def("kwcall.GetSignature",
           [](ffi::Function f) -> ffi::Optional<Signature> {
             if (auto sig = GetSignature(f)) return *sig;
             return std::nullopt;
           })
      .def("kwcall.GetTarget", [](ffi::Function f) { return GetTarget(f); })
      .def("kwcall.ExportedSignature",
           [](ffi::Module mod, ffi::String name) -> ffi::Optional<Signature> {
             if (auto sig = ExportedSignature(mod, name)) return *sig;
             return std::nullopt;
           })
      // Loaders of other modules (CuTeDSL's) call the companion and hand its result here.
      .def("kwcall.ExportedSignatureFromResult",
           [](ffi::Any result, ffi::String name) {
             return ExportedSignatureFromResult(result, std::string(name));
           })
      // A companion whose text Python cannot hold (not UTF-8) is called and read here, so the
      // error is the reader's.
      .def("kwcall.ExportedSignatureFromCompanion",
           [](ffi::Function companion, ffi::String name) {
             return ExportedSignatureFromResult(companion(), std::string(name));
           })
      .def("kwcall.Limits",
           []() {
             ffi::Map<ffi::String, int64_t> limits;
             limits.Set("max_params", kMaxParams);
             limits.Set("max_name_bytes", kMaxNameBytes);
             limits.Set("max_nesting_depth", kMaxNestingDepth);
             limits.Set("max_default_elements", kMaxDefaultElements);
             limits.Set("max_json_bytes", kMaxJsonBytes);
             return limits;
           })
      .def("kwcall.ReservedNames",
           []() {
             ffi::Array<ffi::String> names;
             for (std::string_view name : kReservedNames)
               names.push_back(ffi::String(std::string(name)));
             return names;
           })
      // Python's kwcall calls it at import with unicodedata.unidata_version.
      .def("kwcall.SetIdentifierUnicodeVersion",
           [](ffi::String version) {
             return SetIdentifierUnicodeVersion(std::string_view(version.data(), version.size()));
           })
      .def("kwcall.IdentifierUnicodeVersion",
           []() { return ffi::String(std::string(IdentifierUnicodeVersion())); });
}

}  // namespace kwcall
