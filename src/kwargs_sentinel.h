// The one test for tvm-ffi's KWARGS sentinel in a packed argument list: a pointer compare
// against the object kwcall::KwargsSentinel() holds (cached by callers as `sentinel`).
#ifndef KWCALL_SRC_KWARGS_SENTINEL_H_
#define KWCALL_SRC_KWARGS_SENTINEL_H_

#include <tvm/ffi/c_api.h>

#include <cstdint>
#include <cstring>

namespace kwcall {

/*! \brief Whether `value` is the KWARGS sentinel object `sentinel`. */
inline bool IsKwargsSentinel(const TVMFFIAny& value, const void* sentinel) {
  return value.type_index == kTVMFFIObject && value.v_obj == sentinel;
}

/*!
 * \brief Copy one packed argument. Callers write packed arguments as two 8-byte stores (type,
 *        then value); copying them as two 8-byte words lets the CPU forward those stores, where
 *        one 16-byte load across them would stall for the length of a call.
 */
inline void CopyAny(TVMFFIAny* dst, const TVMFFIAny* src) {
  uint64_t words[2];
  std::memcpy(words, src, sizeof(words));
  asm("" : "+r"(words[0]), "+r"(words[1]));  // two scalar loads, not one vector load
  std::memcpy(dst, words, sizeof(words));
}

/*! \brief Index of the first KWARGS sentinel in `args`, or `num_args` when there is none. */
inline int32_t FindKwargsSentinel(const TVMFFIAny* args, int32_t num_args, const void* sentinel) {
  int32_t i = 0;
  while (i < num_args && !IsKwargsSentinel(args[i], sentinel)) ++i;
  return i;
}

}  // namespace kwcall

#endif  // KWCALL_SRC_KWARGS_SENTINEL_H_
