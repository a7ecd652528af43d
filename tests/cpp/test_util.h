// Helpers shared by the GoogleTest files: an echo target and error capture.
#ifndef KWCALL_TESTS_CPP_TEST_UTIL_H_
#define KWCALL_TESTS_CPP_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>

#include <cstdlib>
#include <functional>
#include <string>

#include "reference/reference_binder.h"

#ifndef KWCALL_TORCH_LIBRARY
#define KWCALL_TORCH_LIBRARY ""
#endif

namespace kwcall {
namespace testing {

// The libtorch_cpu.so the torch tests dlopen: $KWCALL_TORCH_LIBRARY when set (the torch matrix,
// scripts/test_torch_matrix.sh, points one build of the tests at each torch release), else the
// one of the Python's torch when the tests were configured; "" when there is none.
inline std::string TorchLibraryPath() {
  const char* given = std::getenv("KWCALL_TORCH_LIBRARY");
  return given != nullptr && *given != '\0' ? given : KWCALL_TORCH_LIBRARY;
}

// A target that returns its packed arguments as an Array.
using reference::EchoTarget;

// def f(p, /, a, b=10, *, k, m=20) over EchoTarget: every parameter kind, with and without a
// default.
inline ffi::Function MakeF() {
  return MakeFunction(EchoTarget(), SignatureBuilder("f")
                                        .PositionalOnly("p")
                                        .Param("a")
                                        .Param("b", 10)
                                        .KeywordOnly("k")
                                        .KeywordOnly("m", 20)
                                        .Build());
}

// Runs `body`, expects an ffi::Error, and returns "Kind: message".
inline std::string ErrorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const ffi::Error& err) {
    return std::string(err.kind()) + ": " + std::string(err.message());
  }
  ADD_FAILURE() << "expected an ffi::Error";
  return "";
}

inline std::vector<int64_t> Ints(const ffi::Any& value) {
  std::vector<int64_t> out;
  for (const ffi::Any& item : value.cast<ffi::Array<ffi::Any>>())
    out.push_back(item.cast<int64_t>());
  return out;
}

}  // namespace testing
}  // namespace kwcall

#endif  // KWCALL_TESTS_CPP_TEST_UTIL_H_
