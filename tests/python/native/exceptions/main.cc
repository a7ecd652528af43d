// Exceptions thrown by C++ targets reach the C++ caller through kwcall on each of its routes.
// A wheel's libkwcall may carry its own static libstdc++ while this program and libtvm_ffi
// use the system's, so every exception here is thrown on one side of that boundary and
// caught on the other. Each line is "route: outcome"; the direct call of the target (no
// kwcall) is the reference the test compares with.
#include <kwcall/kwcall.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>

namespace ffi = tvm::ffi;

static void Report(const std::string& route, const std::function<void()>& call) {
  std::cout << route << ": ";
  try {
    call();
    std::cout << "returned\n";
  } catch (const ffi::Error& error) {
    std::cout << "ffi::Error " << error.kind() << ": " << error.message() << "\n";
  } catch (const std::out_of_range& error) {
    std::cout << "std::out_of_range: " << error.what() << "\n";
  } catch (const std::exception& error) {
    std::cout << "std::exception: " << error.what() << "\n";
  } catch (...) {
    std::cout << "unknown exception\n";
  }
}

int main() {
  kwcall::Signature sig =
      kwcall::SignatureBuilder("target").Param("x").Param("y").KeywordOnly("alpha", 1.0).Build();
  struct Target {
    const char* name;
    ffi::Function function;
  };
  Target targets[] = {
      {"ffi_error", ffi::Function::FromTyped([](double x, double, double) -> double {
         TVM_FFI_THROW(ValueError) << "target refused x=" << x;
       })},
      {"std_error", ffi::Function::FromTyped([](double, double, double) -> double {
         throw std::out_of_range("index out of range in the target");
       })},
  };
  for (const Target& target : targets) {
    ffi::Function f = kwcall::MakeFunction(target.function, sig);
    std::string name = target.name;
    Report(name + " direct", [&] { target.function(1.0, 2.0, 3.0); });
    Report(name + " positional", [&] { f(1.0, 2.0, 3.0); });
    Report(name + " defaults", [&] { f(1.0, 2.0); });
    Report(name + " keywords", [&] { kwcall::Call(f, 1.0, 2.0, kwcall::Kw("alpha", 3.0)); });
    Report(name + " kwcall's own", [&] { kwcall::Call(f, 1.0, kwcall::Kw("z", 3.0)); });
  }
  return 0;
}
