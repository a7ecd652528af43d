// The C++ side of run_cpu.py: a tvm-ffi function that writes alpha * x + y into out, for
// contiguous CPU tensors of float32 or float64 (torch's DLPack views, as kwcall's operator
// kernel passes them). No torch and no CuTeDSL: kwcall.libinfo.build_module compiles it.
#include <dlpack/dlpack.h>
#include <tvm/ffi/container/tensor.h>  // DLTensor* arguments
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {

int64_t Numel(const DLTensor* t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

bool Contiguous(const DLTensor* t) {
  int64_t expected = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    if (t->strides != nullptr && t->shape[d] != 1 && t->strides[d] != expected) return false;
    expected *= t->shape[d];
  }
  return true;
}

template <typename T>
void Compute(const DLTensor* x, const DLTensor* y, DLTensor* out, double alpha) {
  const T* px = static_cast<const T*>(x->data);
  const T* py = static_cast<const T*>(y->data);
  T* po = static_cast<T*>(out->data);
  for (int64_t i = 0, n = Numel(out); i < n; ++i) po[i] = static_cast<T>(alpha) * px[i] + py[i];
}

void AxpyOut(DLTensor* x, DLTensor* y, DLTensor* out, double alpha) {
  for (const DLTensor* t : {x, y, out}) {
    TVM_FFI_CHECK(t->device.device_type == kDLCPU, ValueError) << "axpy_out runs on the CPU";
    TVM_FFI_CHECK(t->dtype.code == out->dtype.code && t->dtype.bits == out->dtype.bits, TypeError)
        << "axpy_out's tensors differ in dtype";
    TVM_FFI_CHECK(Numel(t) == Numel(out) && Contiguous(t), ValueError)
        << "axpy_out takes contiguous tensors of one size";
  }
  TVM_FFI_CHECK(out->dtype.code == kDLFloat && (out->dtype.bits == 32 || out->dtype.bits == 64),
                TypeError)
      << "axpy_out takes float32 or float64 tensors";
  if (out->dtype.bits == 32) return Compute<float>(x, y, out, alpha);
  Compute<double>(x, y, out, alpha);
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy_out, AxpyOut);
