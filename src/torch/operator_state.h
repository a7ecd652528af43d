// What one registered operator holds: the function its kernel calls, the argument kinds the
// kernel unboxes, how it calls the function (outputs), its kernel slot and the torch library
// objects that register it; kernels added for further devices, each a state of its own.
#ifndef KWCALL_SRC_TORCH_OPERATOR_STATE_H_
#define KWCALL_SRC_TORCH_OPERATOR_STATE_H_

#include <kwcall/torch.h>
#include <tvm/ffi/function.h>

#include <memory>
#include <string>
#include <vector>

#include "torch/op_schema.h"
#include "torch/output_plan.h"
#include "torch/shim.h"

namespace kwcall {
namespace torch {

// How many arguments an operator may have (the kernel's stack arrays hold that many).
inline constexpr size_t kMaxOperatorArgs = 64;

class OperatorState {
 public:
  OperatorState(ffi::Function function, std::string qualified_name, std::string schema,
                std::vector<ArgKind> kinds, std::vector<Output> rules, CallPlan plan)
      : function_(std::move(function)),
        qualified_name_(std::move(qualified_name)),
        schema_(std::move(schema)),
        kinds_(std::move(kinds)),
        rules_(std::move(rules)),
        plan_(std::move(plan)) {}
  // Unregisters: the added kernels first, then deletes the library objects (torch drops the
  // schema and kernels), then frees the kernel slot.
  ~OperatorState();
  OperatorState(const OperatorState&) = delete;
  OperatorState& operator=(const OperatorState&) = delete;

  const ffi::Function& function() const { return function_; }
  const std::string& qualified_name() const { return qualified_name_; }
  const std::string& schema() const { return schema_; }
  const std::vector<ArgKind>& kinds() const { return kinds_; }
  const std::vector<Output>& rules() const { return rules_; }
  const CallPlan& plan() const { return plan_; }

  int slot = -1;
  std::vector<LibraryHandle> libraries;
  std::vector<std::string> device_types;                  // the keys of its kernels
  std::vector<std::unique_ptr<OperatorState>> additions;  // Operator::AddKernels

 private:
  ffi::Function function_;
  std::string qualified_name_;
  std::string schema_;
  std::vector<ArgKind> kinds_;
  std::vector<Output> rules_;
  CallPlan plan_;
};

// A state for `function` as the operator `qualified_name` with `schema` (its arguments and
// results) and `outputs`, registered nowhere yet (no slot, no library). Throws ffi::Error
// (ValueError) for a name, a schema or rules kwcall cannot register.
std::unique_ptr<OperatorState> MakeOperatorState(ffi::Function function,
                                                 const std::string& qualified_name,
                                                 const std::string& schema,
                                                 std::vector<Output> outputs);

}  // namespace torch
}  // namespace kwcall

#endif  // KWCALL_SRC_TORCH_OPERATOR_STATE_H_
