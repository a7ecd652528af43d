// A C++ program with a CuTeDSL object linked in statically (test_cute_cache.py): the kernel
// exported by the compiled function's own export_to_c method, bound with FromExternC to the
// signature linked beside it, called positionally, with defaults left out, with a keyword
// and with a bad keyword. Prints one result per line.
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>

#include <cstdlib>
#include <iostream>

namespace ffi = tvm::ffi;

extern "C" int __tvm_ffi_func(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);
extern "C" int __tvm_ffi___kwcall_signature_func(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);

namespace {

struct CpuAlloc {
  void AllocData(DLTensor* tensor) { tensor->data = std::calloc(ffi::GetDataSize(*tensor), 1); }
  void FreeData(DLTensor* tensor) { std::free(tensor->data); }
};

}  // namespace

int main() {
  ffi::Function f = kwcall::FromExternC(__tvm_ffi_func, __tvm_ffi___kwcall_signature_func);
  ffi::Tensor out = ffi::Tensor::FromNDAlloc(CpuAlloc(), ffi::Shape({4}),
                                             DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  const float* value = static_cast<const float*>(out.data_ptr());
  f(out, 3, 4, 5);
  std::cout << value[0] << "\n";
  f(out, 3);
  std::cout << value[0] << "\n";
  kwcall::Call(f, out, 2, kwcall::Kw("k", 5));
  std::cout << value[0] << "\n";
  try {
    kwcall::Call(f, out, 2, kwcall::Kw("kk", 5));
  } catch (const ffi::Error& error) {
    std::cout << error.kind() << ": " << error.message() << "\n";
  }
  return 0;
}
