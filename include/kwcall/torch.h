/*!
 * \file kwcall/torch.h
 * \brief A tvm-ffi function (a kwcall function, a CuTeDSL kernel) as a PyTorch operator with a
 *        C++ kernel: `torch.ops.ns.name` from Python, the dispatcher from C++, Inductor and
 *        AOTInductor graphs, none of them entering Python.
 *
 *   kwcall::torch::Operator op = kwcall::torch::RegisterOp(
 *       axpy, "mylib::axpy_out", "(Tensor x, Tensor y, Tensor(a!) out, *, float alpha=1.0) -> ()");
 *   // torch.ops.mylib.axpy_out(x, y, out, alpha=2.0) calls axpy(x, y, out, 2.0)
 *
 * Built on torch's stable C shim (`torch/csrc/stable/c/shim.h`,
 * `torch/csrc/inductor/aoti_torch/c/shim.h`): kwcall declares the few C functions it uses and
 * resolves them from the libtorch already loaded in the process when the first operator is
 * registered, so building kwcall needs no torch and one build serves every torch release that
 * has those functions (2.10 and newer; docs/torch.md lists them).
 *
 * The kernel is boxed and stateless: it turns the dispatcher's stack into the function's
 * arguments (a tensor becomes a non-owning DLTensor view; int, float, bool, str, None and
 * optional values as they are), sets the current CUDA stream of the tensors' device as
 * tvm-ffi's environment stream and guards that device for a CUDA call, and calls the function
 * with every parameter in declaration order. A Meta kernel (no work) lets FakeTensorMode and
 * torch.compile trace the operator. The operator writes into tensors its schema marks as
 * mutated (`Tensor(a!)`), and returns the tensors its Output rules describe: the kernel
 * allocates each (the Meta kernel on the meta device) and passes it to the function.
 */
#ifndef KWCALL_TORCH_H_
#define KWCALL_TORCH_H_

#include <kwcall/visibility.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <memory>
#include <string>
#include <vector>

namespace kwcall {
namespace ffi = ::tvm::ffi;
namespace torch {

class OperatorState;

/*!
 * \brief A tensor the operator returns: its kernel allocates it (contiguous) and passes it to
 *        the function's parameter `name`, which the schema leaves out of its arguments.
 *
 *   // lse = a new float32 tensor of q's dimensions 0, 2, 1 (q: (b, s, h, d) -> (b, h, s))
 *   kwcall::torch::Output{"lse", "q", {0, 2, 1}, "float32"}
 */
struct Output {
  /*! \brief The function's parameter that gets the new tensor. */
  std::string name;
  /*! \brief The schema argument (a Tensor) whose shape, dtype and device it takes. */
  std::string like;
  /*! \brief `like`'s dimensions it has, in this order (negative ones count from the end);
   *         empty: all of them. A call whose `like` has too few is refused (RuntimeError). */
  std::vector<int64_t> dims = {};
  /*! \brief Its dtype ("float32", "bfloat16", "int64", ...) when not `like`'s. */
  std::string dtype = "";
};

/*!
 * \brief A registered operator. Move-only; destroying it (or Reset) unregisters the operator:
 *        the torch library fragments it holds are deleted. No call of the operator may be in
 *        flight then.
 */
class KWCALL_API Operator {
 public:
  Operator() = default;
  Operator(Operator&&) noexcept;
  Operator& operator=(Operator&&) noexcept;
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;
  ~Operator();

  /*! \brief Whether this handle holds a registered operator. */
  explicit operator bool() const { return state_ != nullptr; }
  /*! \brief "ns::name", as registered. */
  const std::string& qualified_name() const;
  /*! \brief The schema as torch got it: "name(...) -> ()". */
  const std::string& schema() const;
  /*! \brief Unregisters now (a handle that holds nothing is left). */
  void Reset();
  /*!
   * \brief Adds a kernel for each of `device_types` (dispatch keys the operator has no kernel
   *        for yet) that calls `function` instead: a further device's implementation of the
   *        same operator. It lives as long as this handle. Throws ffi::Error (RuntimeError)
   *        when torch refuses, or `function`'s signature does not match (ValueError).
   */
  void AddKernels(ffi::Function function, std::vector<std::string> device_types);

 private:
  friend Operator RegisterOp(ffi::Function, const std::string&, const std::string&,
                             std::vector<std::string>, std::vector<Output>);
  explicit Operator(std::unique_ptr<OperatorState> state);
  std::unique_ptr<OperatorState> state_;
};

/*! \brief The device types an operator gets a kernel for unless told otherwise. */
inline std::vector<std::string> DefaultDeviceTypes() { return {"CPU", "CUDA"}; }

/*!
 * \brief Registers `function` as the operator `qualified_name` ("ns::name", or
 *        "ns::name.overload") with `schema` ("(Tensor x, Tensor(a!) out, *, float alpha=1.0)
 *        -> ()": the arguments and the results, without the name), with a kernel for each of
 *        `device_types` (torch's dispatch key names "CPU" and "CUDA", the devices whose
 *        tensors the kernel passes) and a Meta kernel. The kernel refuses a tensor that has
 *        elements and no data (a fake tensor).
 *
 * Argument types: Tensor, int, float, bool, str, each optionally `?`; a Tensor may carry an
 * alias annotation (`Tensor(a!)`). Without `outputs` the schema returns nothing (`-> ()`) and
 * the function is called with every argument in schema order. With `outputs` the schema
 * returns one `Tensor` per output (`-> Tensor`, `-> (Tensor, Tensor)`, in their order), and
 * `function` must be a kwcall function (kwcall::GetSignature) whose parameters are the
 * schema's arguments with the outputs' names among them: it is called with every parameter in
 * its own order, each output a new tensor.
 *
 * \throws ffi::Error of kind RuntimeError when torch is not loaded in the process or lacks a
 *         shim function kwcall needs (naming them and the torch release that has them), or
 *         when torch refuses the registration (the name exists already, say) or the
 *         namespace is one a TORCH_LIBRARY defines (torch's aten, say); of kind
 *         ValueError when the name, the schema or a device type is not one kwcall can register
 *         (naming what).
 */
KWCALL_API Operator RegisterOp(ffi::Function function, const std::string& qualified_name,
                               const std::string& schema,
                               std::vector<std::string> device_types = DefaultDeviceTypes(),
                               std::vector<Output> outputs = {});

/*!
 * \brief Registers `mod`'s function `name` bound to the signature exported beside it
 *        (kwcall::LoadFunction) as the torch operator exported beside it too
 *        (KWCALL_EXPORT_TORCH_OP, or kwcall.cute.export_to_c(..., torch_op=...);
 *        kwcall::ExportedTorchOp reads it): what a libtorch or AOTInductor program does with a
 *        kernel library, in one call.
 *
 *   ffi::Module kernels = ffi::Module::LoadFromFile("libkernels.so");
 *   kwcall::torch::Operator op = kwcall::torch::RegisterExported(kernels, "axpy_out");
 *
 * \throws ffi::Error of kind AttributeError naming the function when the module has no such
 *         function or exports no signature or no torch operator for it; RegisterOp's errors.
 */
KWCALL_API Operator RegisterExported(const ffi::Module& mod, const ffi::String& name,
                                     std::vector<std::string> device_types = DefaultDeviceTypes());

}  // namespace torch
}  // namespace kwcall

#endif  // KWCALL_TORCH_H_
