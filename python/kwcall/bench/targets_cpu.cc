// The CPU targets the benchmark calls: kernel-like functions with every parameter
// positional, as CuTeDSL's compiled functions are. They do almost nothing, so a
// benchmark measures the calling route, not the work.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {

namespace ffi = tvm::ffi;

// Reading a data pointer is what a launcher does first with each tensor.
int64_t Touch(const ffi::TensorView& t) {
  return reinterpret_cast<intptr_t>(t.data_ptr()) != 0 ? 1 : 0;
}

// def scalars(x, alpha=1.0, beta=0)
int64_t Scalars(int64_t x, double alpha, int64_t beta) {
  return x + static_cast<int64_t>(alpha) + beta;
}

// def tensors3(t0, t1, t2, alpha=1.0, beta=0): returns how many tensors it saw + beta.
int64_t Tensors3(ffi::TensorView t0, ffi::TensorView t1, ffi::TensorView t2, double alpha,
                 int64_t beta) {
  return Touch(t0) + Touch(t1) + Touch(t2) + static_cast<int64_t>(alpha) + beta;
}

// def tensors9(t0, ..., t8, alpha=1.0, beta=0)
int64_t Tensors9(ffi::TensorView t0, ffi::TensorView t1, ffi::TensorView t2, ffi::TensorView t3,
                 ffi::TensorView t4, ffi::TensorView t5, ffi::TensorView t6, ffi::TensorView t7,
                 ffi::TensorView t8, double alpha, int64_t beta) {
  return Touch(t0) + Touch(t1) + Touch(t2) + Touch(t3) + Touch(t4) + Touch(t5) + Touch(t6) +
         Touch(t7) + Touch(t8) + static_cast<int64_t>(alpha) + beta;
}

// def axpy_out(x, y, out, *, alpha=1.0): out = alpha * x + y, the torch routes' operator
// (contiguous float32 CPU tensors of one size; a few elements, so the route dominates).
void AxpyOut(ffi::TensorView x, ffi::TensorView y, ffi::TensorView out, double alpha) {
  for (const ffi::TensorView* t : {&x, &y, &out}) {
    TVM_FFI_CHECK(t->IsContiguous() && t->dtype() == DLDataType({kDLFloat, 32, 1}) &&
                      t->device().device_type == kDLCPU && t->numel() == out.numel(),
                  ValueError)
        << "axpy_out takes contiguous float32 CPU tensors of one size";
  }
  const auto* px = static_cast<const float*>(x.data_ptr());
  const auto* py = static_cast<const float*>(y.data_ptr());
  auto* po = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < out.numel(); ++i) po[i] = static_cast<float>(alpha) * px[i] + py[i];
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(scalars, Scalars);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensors3, Tensors3);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensors9, Tensors9);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy_out, AxpyOut);
