// A C++ server's view of a CuTeDSL kernel exported ahead of time with kwcall.cute.export_to_c
// and linked into a shared library as CuTeDSL's tutorial does: no Python in the process. It
// binds the kernel to the signature shipped inside the library, launches it positionally,
// with `alpha` left to its default and with `alpha` by keyword, writes each result for the
// driver (cute_aot.py) to check against PyTorch, and times launches against the library's bare
// exported function.
//
//   cute_app LIBRARY FUNCTION DATA_DIR N
//     reads DATA_DIR/a.bin and b.bin (N fp16 values each), writes c_default.bin (alpha's
//     default), c_keyword.bin (alpha=2.5 by keyword) and c_positional.bin (alpha=-1.5).
#include <cuda_runtime.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;

namespace {

void Check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::cerr << what << ": " << cudaGetErrorString(status) << "\n";
    std::exit(1);
  }
}

// Device memory for an ffi::Tensor, freed with it.
struct CudaAlloc {
  void AllocData(DLTensor* tensor) {
    Check(cudaMalloc(&tensor->data, ffi::GetDataSize(*tensor)), "cudaMalloc");
  }
  void FreeData(DLTensor* tensor) { cudaFree(tensor->data); }
};

ffi::Tensor Fp16Vector(int64_t n) {
  return ffi::Tensor::FromNDAlloc(CudaAlloc(), ffi::Shape({n}), DLDataType{kDLFloat, 16, 1},
                                  DLDevice{kDLCUDA, 0});
}

void Load(const std::string& path, const ffi::Tensor& tensor) {
  std::vector<char> host(ffi::GetDataSize(tensor));
  std::ifstream(path, std::ios::binary).read(host.data(), host.size());
  Check(cudaMemcpy(tensor.data_ptr(), host.data(), host.size(), cudaMemcpyHostToDevice), "upload");
}

void Save(const std::string& path, const ffi::Tensor& tensor) {
  std::vector<char> host(ffi::GetDataSize(tensor));
  Check(cudaDeviceSynchronize(), "synchronize");
  Check(cudaMemcpy(host.data(), tensor.data_ptr(), host.size(), cudaMemcpyDeviceToHost),
        "download");
  std::ofstream(path, std::ios::binary).write(host.data(), host.size());
}

// CPU nanoseconds per launch: median over `repeats` batches of `launches`.
template <typename Launch>
double NsPerLaunch(Launch launch, int launches, int repeats) {
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    Check(cudaDeviceSynchronize(), "synchronize");
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) launch();
    std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
    samples.push_back(elapsed.count() / launches);
  }
  Check(cudaDeviceSynchronize(), "synchronize");
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: cute_app LIBRARY FUNCTION DATA_DIR N\n";
    return 2;
  }
  const std::string dir = argv[3];
  const int64_t n = std::stoll(argv[4]);
  ffi::Module library = ffi::Module::LoadFromFile(argv[1]);
  ffi::Function bare = *library->GetFunction(argv[2]);
  ffi::Function kernel = kwcall::LoadFunction(library, argv[2]);
  std::cout << "signature: " << kwcall::GetSignature(kernel)->ToJson() << "\n";

  ffi::Tensor a = Fp16Vector(n), b = Fp16Vector(n), c = Fp16Vector(n);
  Load(dir + "/a.bin", a);
  Load(dir + "/b.bin", b);
  kernel(a, b, c);  // alpha left to its default, bound in C++
  Save(dir + "/c_default.bin", c);
  kwcall::Call(kernel, a, b, c, kwcall::Kw("alpha", 2.5));  // alpha by keyword
  Save(dir + "/c_keyword.bin", c);
  kernel(a, b, c, -1.5);  // every parameter: the native call
  Save(dir + "/c_positional.bin", c);
  try {
    kwcall::Call(kernel, a, b, kwcall::Kw("alpah", 2.5));
  } catch (const ffi::Error& error) {
    std::cout << error.kind() << ": " << error.message() << "\n";
  }

  const int launches = 5000, repeats = 15;
  const double base = NsPerLaunch([&] { bare(a, b, c, 1.0); }, launches, repeats);
  const double native = NsPerLaunch([&] { kernel(a, b, c, 1.0); }, launches, repeats);
  const double defaults = NsPerLaunch([&] { kernel(a, b, c); }, launches, repeats);
  const double keyword = NsPerLaunch(
      [&] { kwcall::Call(kernel, a, b, c, kwcall::Kw("alpha", 1.0)); }, launches, repeats);
  std::cout << "| route | ns/launch | ratio to the bare exported function |\n|---|---:|---:|\n"
            << "| bare exported function, a, b, c, alpha | " << base << " | 1.000 |\n"
            << "| kwcall, a, b, c, alpha (native call) | " << native << " | " << native / base
            << " |\n"
            << "| kwcall, a, b, c (alpha's default) | " << defaults << " | " << defaults / base
            << " |\n"
            << "| kwcall, alpha by keyword | " << keyword << " | " << keyword / base << " |\n";
  return 0;
}
