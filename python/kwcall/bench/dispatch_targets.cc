// The dispatch routes' native side (dispatch_routes.py): an entry that takes four tensors and a
// bool and does nothing (what a call costs, not a kernel), and a C++ caller that calls a function
// with DLTensor views of four tensors, as kwcall's torch kernel and C++ programs do.
//
//   dispatch_entry(q, k, v, out, causal)
//   dispatch_call_n(f, q, k, v, out, causal, n) -> elapsed ns of n calls f(q, k, v, out, causal)
#include <dlpack/dlpack.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

#include <chrono>
#include <cstdint>

namespace {

namespace ffi = tvm::ffi;

void Entry(DLTensor* q, DLTensor* k, DLTensor* v, DLTensor* out, bool causal) {}

int64_t CallN(ffi::Function f, ffi::Tensor q, ffi::Tensor k, ffi::Tensor v, ffi::Tensor out,
              bool causal, int64_t n) {
  DLTensor views[4] = {*q.GetDLTensorPtr(), *k.GetDLTensorPtr(), *v.GetDLTensorPtr(),
                       *out.GetDLTensorPtr()};
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < n; ++i) f(&views[0], &views[1], &views[2], &views[3], causal);
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(dispatch_entry, Entry);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dispatch_call_n, CallN);
