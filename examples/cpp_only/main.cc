// Loads the kernel library, binds its function to the signature it exports, and calls it the
// ways a C++ server does. No Python is involved: kwcall binds the keywords in C++.
#include <kwcall/kwcall.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>

#include <iostream>

namespace ffi = tvm::ffi;

int main(int argc, char** argv) {
  const char* library = argc > 1 ? argv[1] : KERNELS_LIBRARY;
  ffi::Module kernels = ffi::Module::LoadFromFile(library);
  ffi::Function axpy = kwcall::LoadFunction(kernels, "axpy");
  std::cout << "signature: " << kwcall::GetSignature(axpy)->ToJson() << "\n";

  // Every parameter in order, as C++ has always called exported kernels: a direct call.
  std::cout << "axpy(2, 3, 4, 1) = " << axpy(2.0, 3.0, 4.0, 1.0).cast<double>() << "\n";
  // Defaults left out.
  std::cout << "axpy(2, 3) = " << axpy(2.0, 3.0).cast<double>() << "\n";
  // Keywords, in any order, through tvm-ffi's KWARGS convention.
  std::cout << "axpy(2, 3, beta=1, alpha=4) = "
            << kwcall::Call(axpy, 2.0, 3.0, kwcall::Kw("beta", 1.0), kwcall::Kw("alpha", 4.0))
                   .cast<double>()
            << "\n";
  // A bad call fails as Python would fail it.
  try {
    kwcall::Call(axpy, 2.0, kwcall::Kw("y", 3.0));
  } catch (const ffi::Error& error) {
    std::cout << error.kind() << ": " << error.message() << "\n";
  }
  return 0;
}
