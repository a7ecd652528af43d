// A C++ program with no Python in the process: it loads a saved dispatch table (run.py saved it
// with DispatchTable.save), checks /proc/self/maps for libpython, and calls the table's function
// positionally and with a keyword on float32 and float64 vectors, each call reaching the entry of
// its dtype and length. Exits non-zero on any wrong result.
//
//   dispatch_app LIBRARY TABLE_NAME
#include <kwcall/dispatch.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/tensor.h>  // DLTensor* arguments
#include <tvm/ffi/extra/module.h>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;

namespace {

bool PythonIsLoaded() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("libpython") != std::string::npos) return true;
  }
  return false;
}

// A host vector viewed as a one-dimensional DLTensor. Its strides are given: CuTeDSL's argument
// decoder reads them (DLPack allows none for a compact tensor; torch always gives them).
template <typename T>
struct Vector {
  std::vector<T> data;
  int64_t length;
  int64_t stride = 1;
  DLTensor tensor;
  explicit Vector(std::vector<T> values) : data(std::move(values)), length(data.size()) {
    tensor = DLTensor{data.data(),
                      {kDLCPU, 0},
                      1,
                      {static_cast<uint8_t>(kDLFloat), static_cast<uint8_t>(8 * sizeof(T)), 1},
                      &length,
                      &stride,
                      0};
  }
};

template <typename T>
bool Expect(const char* what, const Vector<T>& x, const Vector<T>& out, double alpha) {
  for (int64_t i = 0; i < x.length; ++i) {
    if (out.data[i] != static_cast<T>(x.data[i] * static_cast<T>(alpha))) {
      std::cerr << what << ": out[" << i << "] = " << out.data[i] << ", expected "
                << x.data[i] * alpha << "\n";
      return false;
    }
  }
  std::cout << what << ": ok\n";
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: dispatch_app LIBRARY TABLE_NAME\n";
    return 2;
  }
  try {
    ffi::Module library = ffi::Module::LoadFromFile(argv[1]);
    kwcall::DispatchTable table = kwcall::LoadDispatchTable(library, argv[2]);
    ffi::Function scale = table.function();
    std::cout << "table '" << table.name() << "' with " << table.size() << " entries\n";
    if (PythonIsLoaded()) {
      std::cerr << "libpython is loaded in this process\n";
      return 1;
    }
    bool ok = true;
    Vector<float> x4({1, 2, 3, 4}), out4({0, 0, 0, 0});
    scale(&x4.tensor, &out4.tensor, 3.0);  // positional: float32, length 4
    ok &= Expect("float32[4], positional", x4, out4, 3.0);
    Vector<double> x8({1, 2, 3, 4, 5, 6, 7, 8}), out8(std::vector<double>(8, 0.0));
    kwcall::Call(scale, &x8.tensor, &out8.tensor, kwcall::Kw("alpha", 0.5));  // a keyword
    ok &= Expect("float64[8], alpha by keyword", x8, out8, 0.5);
    scale(&x8.tensor, &out8.tensor);  // alpha's default
    ok &= Expect("float64[8], alpha's default", x8, out8, 2.0);
    // A key the table has no entry for, and no compiling without Python: an error.
    Vector<float> x3({1, 2, 3}), out3({0, 0, 0});
    try {
      scale(&x3.tensor, &out3.tensor);
      std::cerr << "float32[3] has no entry, but the call succeeded\n";
      ok = false;
    } catch (const ffi::Error& error) {
      std::cout << "float32[3]: " << error.kind() << ": " << error.message() << "\n";
      ok &= std::string(error.kind()) == "LookupError";
    }
    if (PythonIsLoaded()) {
      std::cerr << "libpython was loaded by the calls\n";
      return 1;
    }
    std::cout << "no libpython in this process\n";
    return ok ? 0 : 1;
  } catch (const ffi::Error& error) {
    std::cerr << error.kind() << ": " << error.message() << "\n";
    return 1;
  }
}
