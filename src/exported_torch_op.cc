// The torch operator an exported function carries (KWCALL_EXPORT_TORCH_OP): its companion
// `__kwcall_torch_op_<name>` returns torch's full schema text, split here into the qualified
// name and the schema kwcall::torch::RegisterOp takes. Only the form is checked: torch parses
// the schema itself when the operator is registered.
#include <kwcall/export.h>
#include <kwcall/load.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/reflection/registry.h>

#include <string>
#include <string_view>

#include "companion.h"

namespace kwcall {
namespace {

// How much of a bad schema an error quotes.
constexpr size_t kQuotedBytes = 200;

bool IsIdentifier(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return false;
  for (char c : text) {
    const bool word =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) return false;
  }
  return true;
}

std::string Quoted(std::string_view text) {
  if (text.size() <= kQuotedBytes) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kQuotedBytes)) + "...' (" + std::to_string(text.size()) +
         " bytes)";
}

// "ns::name(arguments) -> returns" split at the first '(', or nothing when it has not that form.
std::optional<TorchOpSchema> Split(std::string_view text) {
  const size_t open = text.find('(');
  if (open == std::string_view::npos || text.find("->", open) == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view qualified = text.substr(0, open);
  const size_t colons = qualified.find("::");
  if (colons == std::string_view::npos || !IsIdentifier(qualified.substr(0, colons)) ||
      !IsIdentifier(qualified.substr(colons + 2))) {
    return std::nullopt;
  }
  return TorchOpSchema{std::string(qualified), std::string(text.substr(open))};
}

TorchOpSchema TorchOpFromResult(const ffi::Any& result, const std::string& what) {
  const ffi::String text = CompanionText(result, what, kTorchOpCompanion);
  const std::string_view view(text.data(), text.size());
  std::optional<TorchOpSchema> op = Split(view);
  if (!op.has_value()) {
    TVM_FFI_THROW(ValueError) << "kwcall: " << what << " is not valid: " << Quoted(view)
                              << " is not a schema 'namespace::name(arguments) -> returns'";
  }
  return *std::move(op);
}

ffi::Array<ffi::String> ToArray(const TorchOpSchema& op) {
  return {ffi::String(op.qualified_name), ffi::String(op.schema)};
}

}  // namespace

std::optional<TorchOpSchema> ExportedTorchOp(const ffi::Module& mod, const ffi::String& name) {
  ffi::Optional<ffi::Function> companion = FindCompanion(mod, kTorchOpCompanion, name);
  if (!companion.has_value()) return std::nullopt;
  return TorchOpFromResult((*companion)(), CompanionWhat(kTorchOpCompanion, name));
}

TorchOpSchema ExportedTorchOp(TVMFFISafeCallType torch_op_symbol) {
  if (torch_op_symbol == nullptr) {
    TVM_FFI_THROW(TypeError) << "kwcall::ExportedTorchOp: the symbol is null";
  }
  ffi::Function companion = ffi::Function::FromExternC(nullptr, torch_op_symbol, nullptr);
  return TorchOpFromResult(companion(),
                           "the torch operator symbol given to kwcall::ExportedTorchOp");
}

TVM_FFI_STATIC_INIT_BLOCK() {
  ffi::reflection::GlobalDef()
      // [qualified name, schema], or None when the module exports no operator for `name`.
      .def("kwcall.ExportedTorchOp",
           [](ffi::Module mod, ffi::String name) -> ffi::Optional<ffi::Array<ffi::String>> {
             if (auto op = ExportedTorchOp(mod, name)) return ToArray(*op);
             return std::nullopt;
           })
      // What kwcall.cute.export_to_c checks before it writes a schema: the loader's rules.
      .def("kwcall.ExportedTorchOpFromResult", [](ffi::Any result, ffi::String name) {
        return ToArray(
            TorchOpFromResult(result, CompanionWhat(kTorchOpCompanion, std::string(name))));
      });
}

}  // namespace kwcall
