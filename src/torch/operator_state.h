// What one registered operator holds: the function its kernel calls, the argument kinds the
// kernel unboxes, its kernel slot and the torch library objects that register it.
#ifndef KWCALL_SRC_TORCH_OPERATOR_STATE_H_
#define KWCALL_SRC_TORCH_OPERATOR_STATE_H_

#include <kwcall/torch.h>
#include <tvm/ffi/function.h>

#include <string>
#include <vector>

#include "torch/op_schema.h"
#include "torch/shim.h"

namespace kwcall {
namespace torch {

class OperatorState {
 public:
  OperatorState(ffi::Function function, std::string qualified_name, std::string schema,
                std::vector<ArgKind> kinds)
      : function_(std::move(function)),
        qualified_name_(std::move(qualified_name)),
        schema_(std::move(schema)),
        kinds_(std::move(kinds)) {}
  // Unregisters: deletes the library objects (torch drops the schema and kernels), then frees
  // the kernel slot.
  ~OperatorState();
  OperatorState(const OperatorState&) = delete;
  OperatorState& operator=(const OperatorState&) = delete;

  const ffi::Function& function() const { return function_; }
  const std::string& qualified_name() const { return qualified_name_; }
  const std::string& schema() const { return schema_; }
  const std::vector<ArgKind>& kinds() const { return kinds_; }

  int slot = -1;
  std::vector<LibraryHandle> libraries;

 private:
  ffi::Function function_;
  std::string qualified_name_;
  std::string schema_;
  std::vector<ArgKind> kinds_;
};

}  // namespace torch
}  // namespace kwcall

#endif  // KWCALL_SRC_TORCH_OPERATOR_STATE_H_
