/*
 * kwcall: what differs between the apache-tvm-ffi releases kwcall supports (0.1.10 on).
 */
#ifndef KWCALL_SRC_COMPAT_H_
#define KWCALL_SRC_COMPAT_H_

// Renamed from base_details.h in apache-tvm-ffi 0.1.15.post1.
#if __has_include(<tvm/ffi/base_detail.h>)
#include <tvm/ffi/base_detail.h>
#else
#include <tvm/ffi/base_details.h>
#endif

// DLDevice's conversions to and from Any: tvm/ffi/device.h in later releases (0.1.15), before
// that type_traits.h, which any.h includes (0.1.12 has no device.h).
#if __has_include(<tvm/ffi/device.h>)
#include <tvm/ffi/device.h>
#endif

// Added in apache-tvm-ffi 0.1.12.
#ifndef TVM_FFI_PREDICT_FALSE
#define TVM_FFI_PREDICT_FALSE(cond) (__builtin_expect(static_cast<bool>(cond), 0))
#define TVM_FFI_PREDICT_TRUE(cond) (__builtin_expect(static_cast<bool>(cond), 1))
#endif
#ifndef TVM_FFI_COLD_CODE
#define TVM_FFI_COLD_CODE [[gnu::cold]]
#endif

#endif  // KWCALL_SRC_COMPAT_H_
