// The one test for tvm-ffi's KWARGS sentinel in a packed argument list: a pointer compare
// against the object kwcall::KwargsSentinel() holds (cached by callers as `sentinel`).
#ifndef KWCALL_SRC_KWARGS_SENTINEL_H_
#define KWCALL_SRC_KWARGS_SENTINEL_H_

#include <tvm/ffi/c_api.h>

#include <cstdint>

namespace kwcall {

/*! \brief Whether `value` is the KWARGS sentinel object `sentinel`. */
inline bool IsKwargsSentinel(const TVMFFIAny& value, const void* sentinel) {
  return value.type_index == kTVMFFIObject && value.v_obj == sentinel;
}

/*! \brief Index of the first KWARGS sentinel in `args`, or `num_args` when there is none. */
inline int32_t FindKwargsSentinel(const TVMFFIAny* args, int32_t num_args, const void* sentinel) {
  int32_t i = 0;
  while (i < num_args && !IsKwargsSentinel(args[i], sentinel)) ++i;
  return i;
}

}  // namespace kwcall

#endif  // KWCALL_SRC_KWARGS_SENTINEL_H_
