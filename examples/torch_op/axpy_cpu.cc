// The C++ side of run_cpu.py: a tvm-ffi function that writes alpha * x + y into out, for
// contiguous CPU tensors of float32 or float64 (tvm-ffi views of the DLPack tensors kwcall's
// operator kernel passes). No torch and no CuTeDSL: kwcall.libinfo.build_module compiles it.
#include <dlpack/dlpack.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {

namespace ffi = tvm::ffi;

template <typename T>
void Compute(const ffi::TensorView& x, const ffi::TensorView& y, const ffi::TensorView& out,
             double alpha) {
  const T* px = static_cast<const T*>(x.data_ptr());
  const T* py = static_cast<const T*>(y.data_ptr());
  T* po = static_cast<T*>(out.data_ptr());
  for (int64_t i = 0; i < out.numel(); ++i) po[i] = static_cast<T>(alpha) * px[i] + py[i];
}

void AxpyOut(ffi::TensorView x, ffi::TensorView y, ffi::TensorView out, double alpha) {
  for (const ffi::TensorView* t : {&x, &y, &out}) {
    TVM_FFI_CHECK(t->device().device_type == kDLCPU, ValueError) << "axpy_out runs on the CPU";
    TVM_FFI_CHECK(t->dtype() == out.dtype(), TypeError) << "axpy_out's tensors differ in dtype";
    TVM_FFI_CHECK(t->numel() == out.numel() && t->IsContiguous(), ValueError)
        << "axpy_out takes contiguous tensors of one size";
  }
  TVM_FFI_CHECK(out.dtype().code == kDLFloat && (out.dtype().bits == 32 || out.dtype().bits == 64),
                TypeError)
      << "axpy_out takes float32 or float64 tensors";
  if (out.dtype().bits == 32) return Compute<float>(x, y, out, alpha);
  Compute<double>(x, y, out, alpha);
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy_out, AxpyOut);
