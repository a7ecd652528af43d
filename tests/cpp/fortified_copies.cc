// Compiled by CTest with _FORTIFY_SOURCE=3 (tests/cpp/CMakeLists.txt), as Ubuntu's GCC compiles
// every program: a keyword call from C++ that kwcall::Call packs. Test Fortify.CopiesStayInline
// reads this object and the bind path's for __memcpy_chk.
#include <kwcall/kwcall.h>

tvm::ffi::Any CallWithTwoKeywords(const tvm::ffi::Function& f, const tvm::ffi::Any& x, double alpha,
                                  int64_t beta) {
  return kwcall::Call(f, x, kwcall::Kw("alpha", alpha), kwcall::Kw("beta", beta));
}
