// The KWARGS sentinel, owned by the C++ side of tvm-ffi's keyword convention (kwargs.h).
#include <kwcall/kwargs.h>

namespace kwcall {
namespace kwargs_detail {

// Looked up when libkwcall loads (libtvm_ffi, which registers it, is loaded first) and never
// freed: callers may still use it while other libraries unload.
const ffi::ObjectRef* const g_kwargs_sentinel = new ffi::ObjectRef(
    ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")().cast<ffi::ObjectRef>());

}  // namespace kwargs_detail
}  // namespace kwcall
