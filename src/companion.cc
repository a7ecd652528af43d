// The companions of exported functions (companion.h).
#include "companion.h"

#include <kwcall/export.h>
#include <tvm/ffi/error.h>

namespace kwcall {

const CompanionKind kSignatureCompanion = {KWCALL_SIGNATURE_FUNCTION_PREFIX, "signature",
                                           "the signature's JSON text", "KWCALL_EXPORT_SIGNATURE",
                                           "kwcall.cute.export_to_c"};
const CompanionKind kTorchOpCompanion = {KWCALL_TORCH_OP_FUNCTION_PREFIX, "torch operator",
                                         "the operator's schema text", "KWCALL_EXPORT_TORCH_OP",
                                         "kwcall.cute.export_to_c(..., torch_op=...)"};
const CompanionKind kDispatchTableCompanion = {
    KWCALL_DISPATCH_TABLE_FUNCTION_PREFIX, "dispatch table", "the table's JSON description",
    "KWCALL_EXPORT_DISPATCH_TABLE", "kwcall.DispatchTable.save"};

std::string CompanionWhat(const CompanionKind& kind, const std::string& name) {
  return std::string("the ") + kind.noun + " exported for '" + name + "' (" + kind.prefix + name +
         ")";
}

ffi::Optional<ffi::Function> FindCompanion(const ffi::Module& mod, const CompanionKind& kind,
                                           const ffi::String& name) {
  return mod->GetFunction(ffi::String(std::string(kind.prefix) + name.c_str()));
}

ffi::String CompanionText(const ffi::Any& result, const std::string& what,
                          const CompanionKind& kind) {
  const int32_t index = result.type_index();
  if (index != ffi::TypeIndex::kTVMFFISmallStr && index != ffi::TypeIndex::kTVMFFIStr) {
    TVM_FFI_THROW(TypeError) << "kwcall: " << what << " returned " << result.GetTypeKey()
                             << ", not " << kind.text << " (" << kind.macro
                             << " writes the function that returns it)";
  }
  return result.cast<ffi::String>();
}

void ThrowNoCompanion(const char* who, const CompanionKind& kind, const ffi::String& name,
                      const char* instead) {
  TVM_FFI_THROW(AttributeError) << who << ": the module exports no " << kind.noun << " for '"
                                << name << "'; export one with " << kind.macro << " (or "
                                << kind.python_form << "), or " << instead;
}

}  // namespace kwcall
