// A libtorch program that runs a packaged AOTInductor graph calling a kwcall operator, with no
// Python in the process:
//
//   runner KERNELS_LIBRARY MODEL_PT2
//
// loads the kernel library, registers its function `axpy_out` as the torch operator the library
// exports beside it (kwcall::torch::RegisterExported: the signature and the schema travel with
// the code), loads the .pt2 that export_model.py wrote, runs it on inputs of another length than
// the graph was traced with, checks every value against the same arithmetic done here, and checks
// that no libpython is mapped into the process. Prints "ok" and exits 0 when all holds.
#include <ATen/ops/from_blob.h>
#include <kwcall/kwcall.h>
#include <kwcall/torch.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

namespace {

// What export_model.py's Model computes: out = 2x + y, then out2 = out + y, relu(out2) + 1.
float Expected(float x, float y) { return std::max(2.0f * x + y + y, 0.0f) + 1.0f; }

// The libpython files mapped into this process, from /proc/self/maps.
std::set<std::string> MappedLibpython() {
  std::set<std::string> found;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const size_t path = line.find('/');
    if (path == std::string::npos) continue;
    const std::string file = line.substr(path);
    if (file.substr(file.rfind('/') + 1).rfind("libpython", 0) == 0) found.insert(file);
  }
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: runner KERNELS_LIBRARY MODEL_PT2\n";
    return 2;
  }
  try {
    tvm::ffi::Module kernels = tvm::ffi::Module::LoadFromFile(argv[1]);
    kwcall::torch::Operator op = kwcall::torch::RegisterExported(kernels, "axpy_out");
    std::cout << "registered " << op.qualified_name() << ": " << op.schema() << "\n";

    torch::inductor::AOTIModelPackageLoader loader(argv[2]);
    const int64_t n = 1000;  // the graph was traced with 8 values: its length is dynamic
    std::vector<float> x(n), y(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = 0.01f * static_cast<float>(i) - 3.0f;
      y[i] = 1.0f - 0.002f * static_cast<float>(i);
    }
    std::vector<at::Tensor> inputs{at::from_blob(x.data(), {n}, at::kFloat),
                                   at::from_blob(y.data(), {n}, at::kFloat)};
    std::vector<at::Tensor> outputs = loader.run(inputs);
    if (outputs.size() != 1 || outputs[0].numel() != n || !outputs[0].is_contiguous()) {
      std::cerr << "the graph returned " << outputs.size() << " outputs, not one of " << n
                << " values\n";
      return 1;
    }
    const float* got = outputs[0].const_data_ptr<float>();
    for (int64_t i = 0; i < n; ++i) {
      if (std::abs(got[i] - Expected(x[i], y[i])) > 1e-5f) {
        std::cerr << "value " << i << ": got " << got[i] << ", expected " << Expected(x[i], y[i])
                  << "\n";
        return 1;
      }
    }
    std::cout << n << " values match\n";
  } catch (const tvm::ffi::Error& error) {
    std::cerr << error.kind() << ": " << error.message() << "\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << error.what() << "\n";
    return 1;
  }
  const std::set<std::string> libpython = MappedLibpython();
  for (const std::string& file : libpython) std::cout << "libpython mapped: " << file << "\n";
  if (!libpython.empty()) return 1;
  std::cout << "libpython mapped: none\nok\n";
  return 0;
}
