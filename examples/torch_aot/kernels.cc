// The kernel library: a tvm-ffi function exported with its signature and the torch operator it
// is meant to become, so that a C++ program registers it with one call
// (kwcall::torch::RegisterExported) and Python with kwcall.torch.register.
#include <kwcall/export.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {

namespace ffi = tvm::ffi;

// def axpy_out(x, y, out, *, alpha=1.0): out = alpha * x + y, contiguous float32 CPU tensors.
void AxpyOut(ffi::TensorView x, ffi::TensorView y, ffi::TensorView out, double alpha) {
  for (const ffi::TensorView* t : {&x, &y, &out}) {
    TVM_FFI_CHECK(t->dtype() == DLDataType({kDLFloat, 32, 1}), TypeError)
        << "axpy_out takes float32 tensors";
    TVM_FFI_CHECK(t->device().device_type == kDLCPU, ValueError) << "axpy_out runs on the CPU";
    TVM_FFI_CHECK(t->IsContiguous() && t->numel() == out.numel(), ValueError)
        << "axpy_out takes contiguous tensors of one size";
  }
  const auto* px = static_cast<const float*>(x.data_ptr());
  const auto* py = static_cast<const float*>(y.data_ptr());
  auto* po = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < out.numel(); ++i) po[i] = static_cast<float>(alpha) * px[i] + py[i];
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy_out, AxpyOut);
// What kwcall.Signature(["x", "y", "out"], kwonly_names=["alpha"], kwonly_defaults={"alpha":
// 1.0}, name="axpy_out").to_json() writes.
KWCALL_EXPORT_SIGNATURE(axpy_out, R"({"version": 1, "name": "axpy_out", "params": [
  {"name": "x", "kind": "POSITIONAL_OR_KEYWORD"},
  {"name": "y", "kind": "POSITIONAL_OR_KEYWORD"},
  {"name": "out", "kind": "POSITIONAL_OR_KEYWORD"},
  {"name": "alpha", "kind": "KEYWORD_ONLY", "default": 1.0}]})");
// "kwcall_example::axpy_out" + kwcall.torch.schema_of(f, mutates_args=("out",)).
KWCALL_EXPORT_TORCH_OP(axpy_out,
                       "kwcall_example::axpy_out(Tensor x, Tensor y, Tensor(a!) out, *, "
                       "float alpha=1.0) -> ()");
