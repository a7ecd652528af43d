// The CUDA targets (GPU runs only): the same signatures as targets_cpu.cc, but each call
// checks its tensors and launches a real one-block kernel on the thread's tvm-ffi current
// stream, as a CuTeDSL launcher does. Plus the stream helpers the C++ caller needs, so
// that caller.cc stays free of CUDA headers.
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {

namespace ffi = tvm::ffi;

void Check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    TVM_FFI_THROW(RuntimeError) << what << ": " << cudaGetErrorString(err);
  }
}

template <int N>
struct Pointers {
  float* p[N];
};

// Adds alpha to the first element of each tensor. Concurrent launches on several streams
// race on those elements; the values are never read, only the launch cost matters.
template <int N>
__global__ void AddFirst(Pointers<N> ptrs, float alpha) {
  if (threadIdx.x < N) ptrs.p[threadIdx.x][0] += alpha;
}

template <int N>
int64_t Launch(const ffi::TensorView* const (&tensors)[N], double alpha, int64_t beta) {
  Pointers<N> ptrs;
  DLDevice device = tensors[0]->device();
  for (int i = 0; i < N; ++i) {
    const ffi::TensorView& t = *tensors[i];
    TVM_FFI_ICHECK(t.device().device_type == kDLCUDA && t.device().device_id == device.device_id)
        << "tensor " << i << " must be a CUDA tensor on device " << device.device_id;
    TVM_FFI_ICHECK(t.dtype().code == kDLFloat && t.dtype().bits == 32)
        << "tensor " << i << " must be float32";
    ptrs.p[i] = static_cast<float*>(t.data_ptr());
  }
  auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device.device_id));
  AddFirst<N><<<1, 32, 0, stream>>>(ptrs, static_cast<float>(alpha));
  Check(cudaGetLastError(), "kernel launch");
  return N + beta;
}

int64_t Tensors3(ffi::TensorView t0, ffi::TensorView t1, ffi::TensorView t2, double alpha,
                 int64_t beta) {
  const ffi::TensorView* const tensors[3] = {&t0, &t1, &t2};
  return Launch<3>(tensors, alpha, beta) + static_cast<int64_t>(alpha);
}

int64_t Tensors9(ffi::TensorView t0, ffi::TensorView t1, ffi::TensorView t2, ffi::TensorView t3,
                 ffi::TensorView t4, ffi::TensorView t5, ffi::TensorView t6, ffi::TensorView t7,
                 ffi::TensorView t8, double alpha, int64_t beta) {
  const ffi::TensorView* const tensors[9] = {&t0, &t1, &t2, &t3, &t4, &t5, &t6, &t7, &t8};
  return Launch<9>(tensors, alpha, beta) + static_cast<int64_t>(alpha);
}

// Streams travel as int64 handles; 0 is the legacy default stream.
int64_t StreamCreate() {
  cudaStream_t stream = nullptr;
  Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  return reinterpret_cast<int64_t>(stream);
}

void StreamDestroy(int64_t stream) {
  Check(cudaStreamDestroy(reinterpret_cast<cudaStream_t>(stream)), "cudaStreamDestroy");
}

void StreamSync(int64_t stream) {
  Check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensors3, Tensors3);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensors9, Tensors9);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(stream_create, StreamCreate);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(stream_destroy, StreamDestroy);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(stream_sync, StreamSync);
