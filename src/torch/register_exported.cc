// An exported function registered as the torch operator exported beside it: LoadFunction's
// signature and ExportedTorchOp's schema, for programs that load kernel libraries.
#include <kwcall/load.h>
#include <kwcall/torch.h>
#include <tvm/ffi/error.h>

#include <optional>
#include <utility>

#include "companion.h"

namespace kwcall {
namespace torch {

Operator RegisterExported(const ffi::Module& mod, const ffi::String& name,
                          std::vector<std::string> device_types) {
  ffi::Function function = LoadFunction(mod, name);
  std::optional<TorchOpSchema> op = ExportedTorchOp(mod, name);
  if (!op.has_value()) {
    ThrowNoCompanion("kwcall::torch::RegisterExported", kTorchOpCompanion, name,
                     "pass a schema to kwcall::torch::RegisterOp");
  }
  return RegisterOp(std::move(function), op->qualified_name, op->schema, std::move(device_types));
}

}  // namespace torch
}  // namespace kwcall
