// A C++ program with no Python that calls a saved dispatch table on a CUDA GPU (the GPU scripts,
// bench/dispatch_quack_rmsnorm.py and bench/dispatch_fa4.py, build it with common.py's
// build_call_table and drive it). It loads the table (kwcall::LoadDispatchTable), uploads the
// arguments a manifest lists, calls the table's function positionally, writes the outputs back,
// and times N more calls (CPU time per call: N stays under the launch queue's depth, so no launch
// waits for the GPU).
//
//   call_table LIBRARY TABLE MANIFEST N
//
// MANIFEST, one argument a line, in the table's parameter order:
//   tensor PATH DTYPE D0 D1 ...   an input: PATH's bytes uploaded into a contiguous tensor
//   output PATH DTYPE D0 D1 ...   an output: allocated, written to PATH after the first call
//   none | float V | int V | bool V
//   nones N                       an array of N Nones (a NamedTuple of absent values, unpacked)
// DTYPE as tvm-ffi spells it (bfloat16, float16, float32, int32).
#include <cuda_runtime.h>
#include <kwcall/dispatch.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/extra/module.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
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

struct CudaAlloc {
  void AllocData(DLTensor* t) { Check(cudaMalloc(&t->data, ffi::GetDataSize(*t)), "cudaMalloc"); }
  void FreeData(DLTensor* t) { cudaFree(t->data); }
};

struct Argument {
  ffi::Any value;
  std::string output_path;  // set for outputs
};

bool PythonIsLoaded() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("libpython") != std::string::npos) return true;
  }
  return false;
}

std::vector<Argument> ReadManifest(const std::string& path) {
  std::vector<Argument> args;
  std::ifstream manifest(path);
  for (std::string line; std::getline(manifest, line);) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    Argument arg;
    if (kind == "tensor" || kind == "output") {
      std::string file, dtype;
      words >> file >> dtype;
      std::vector<int64_t> shape;
      for (int64_t d; words >> d;) shape.push_back(d);
      ffi::Tensor t = ffi::Tensor::FromNDAlloc(CudaAlloc(), ffi::Shape(shape),
                                               ffi::StringToDLDataType(dtype), {kDLCUDA, 0});
      if (kind == "tensor") {
        std::vector<char> host(ffi::GetDataSize(t));
        std::ifstream(file, std::ios::binary).read(host.data(), host.size());
        Check(cudaMemcpy(t.data_ptr(), host.data(), host.size(), cudaMemcpyHostToDevice), "upload");
      } else {
        arg.output_path = file;
      }
      arg.value = t;
    } else if (kind == "float") {
      double v;
      words >> v;
      arg.value = v;
    } else if (kind == "int") {
      int64_t v;
      words >> v;
      arg.value = v;
    } else if (kind == "bool") {
      int v;
      words >> v;
      arg.value = v != 0;
    } else if (kind == "nones") {
      int64_t n;
      words >> n;
      arg.value = ffi::Array<ffi::Any>(std::vector<ffi::Any>(n, ffi::Any(nullptr)));
    } else if (kind != "none") {
      std::cerr << "manifest: unknown argument kind '" << kind << "'\n";
      std::exit(2);
    }
    args.push_back(std::move(arg));
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: call_table LIBRARY TABLE MANIFEST N\n";
    return 2;
  }
  try {
    // The primary context current before the table's code loads (CuTeDSL's runtime launches
    // through the driver API, in the context that is current).
    Check(cudaSetDevice(0), "cudaSetDevice");
    Check(cudaFree(nullptr), "CUDA context");
    ffi::Module library = ffi::Module::LoadFromFile(argv[1]);
    kwcall::DispatchTable table = kwcall::LoadDispatchTable(library, argv[2]);
    ffi::Function f = table.function();
    std::vector<Argument> args = ReadManifest(argv[3]);
    std::vector<ffi::AnyView> packed(args.size());
    for (size_t i = 0; i < args.size(); ++i) packed[i] = args[i].value;
    ffi::Any result;
    f.CallPacked(packed.data(), static_cast<int32_t>(packed.size()), &result);
    Check(cudaDeviceSynchronize(), "synchronize");
    for (const Argument& arg : args) {
      if (arg.output_path.empty()) continue;
      auto t = arg.value.cast<ffi::Tensor>();
      std::vector<char> host(ffi::GetDataSize(t));
      Check(cudaMemcpy(host.data(), t.data_ptr(), host.size(), cudaMemcpyDeviceToHost), "download");
      std::ofstream(arg.output_path, std::ios::binary).write(host.data(), host.size());
    }
    const int64_t n = std::stoll(argv[4]);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) {
      f.CallPacked(packed.data(), static_cast<int32_t>(packed.size()), &result);
    }
    const auto stop = std::chrono::steady_clock::now();
    Check(cudaDeviceSynchronize(), "synchronize");
    const double ns = std::chrono::duration<double, std::nano>(stop - start).count() / n;
    std::cout << "table '" << table.name() << "', " << table.size() << " entries\n";
    std::cout << "cpu_ns_per_call " << ns << "\n";
    std::cout << (PythonIsLoaded() ? "libpython is loaded\n" : "no libpython in this process\n");
    return PythonIsLoaded() ? 1 : 0;
  } catch (const ffi::Error& error) {
    std::cerr << error.kind() << ": " << error.message() << "\n";
    return 1;
  }
}
