// The one reader of tvm-ffi's KWARGS convention, `[pos..., KWARGS, "k0", v0, "k1", v1, ...]`,
// for packed C++ arguments (TVMFFIAny) and Python arguments (PyObject*) alike: where the tail
// starts, whether it is made of pairs, and the first malformed pair.
#ifndef KWCALL_SRC_BINDING_KWARGS_TAIL_H_
#define KWCALL_SRC_BINDING_KWARGS_TAIL_H_

#include <tvm/ffi/c_api.h>

#include <cstdint>

namespace kwcall {

/*! \brief Whether the packed argument `value` is the KWARGS sentinel object `sentinel`. */
inline bool IsKwargsSentinel(const TVMFFIAny& value, const void* sentinel) {
  // The pointer first: it is rarely equal, so most arguments cost one compare.
  return value.v_obj == sentinel && value.type_index == kTVMFFIObject;
}

/*! \brief Index of the first argument for which `is_sentinel` holds, or `num_args`. */
template <typename T, typename N, typename IsSentinel>
inline N FindKwargsSentinel(const T* args, N num_args, IsSentinel is_sentinel) {
  N i = 0;
  while (i < num_args && !is_sentinel(args[i])) ++i;
  return i;
}

/*!
 * \brief Whether a call of `num_args` arguments goes to the target as it is (step 1 of the
 *        bind pipeline, bind_call.h): full arity and no KWARGS sentinel anywhere (a sentinel
 *        at any position is a tail, well formed or not, so every position is read).
 */
template <typename T, typename N, typename IsSentinel>
inline bool ForwardsAsIs(const T* args, N num_args, int32_t arity, IsSentinel is_sentinel) {
  // Scanned to `arity`: a constant in entries made for one, so the scan unrolls.
  return num_args == arity && FindKwargsSentinel(args, arity, is_sentinel) == arity;
}

/*! \brief The packed-argument form: the sentinel is the object `sentinel`. */
inline int32_t FindKwargsSentinel(const TVMFFIAny* args, int32_t num_args, const void* sentinel) {
  return FindKwargsSentinel(
      args, num_args, [sentinel](const TVMFFIAny& a) { return IsKwargsSentinel(a, sentinel); });
}

/*! \brief A call split at its sentinel. */
struct KwargsTail {
  int64_t nargs = 0;         // positional arguments, before the sentinel
  int64_t num_keywords = 0;  // name/value pairs after it
  bool odd = false;          // the tail is not made of pairs (values after the sentinel: `size`)
  int64_t size = 0;
};

/*! \brief Split a call of `num_args` arguments at the sentinel at `sentinel_at` (num_args: none).
 */
inline KwargsTail SplitKwargsTail(int64_t num_args, int64_t sentinel_at) {
  KwargsTail tail;
  tail.nargs = sentinel_at;
  tail.size = sentinel_at < num_args ? num_args - sentinel_at - 1 : 0;
  tail.odd = tail.size % 2 != 0;
  tail.num_keywords = tail.size / 2;
  return tail;
}

/*! \brief What is wrong with a tail's pairs, in the order they are checked. */
enum class TailFault { kNone, kSentinelTwice, kKeyNotString, kSentinelAsValue };

/*!
 * \brief The first malformed pair of `pairs` (names at even, values at odd positions): its
 *        index in *at, and what is wrong with it.
 */
template <typename T, typename IsSentinel, typename IsString>
TailFault CheckKwargsPairs(const T* pairs, int64_t num_keywords, IsSentinel is_sentinel,
                           IsString is_string, int64_t* at) {
  for (int64_t k = 0; k < num_keywords; ++k) {
    *at = k;
    if (is_sentinel(pairs[2 * k])) return TailFault::kSentinelTwice;
    if (!is_string(pairs[2 * k])) return TailFault::kKeyNotString;
    if (is_sentinel(pairs[2 * k + 1])) return TailFault::kSentinelAsValue;
  }
  return TailFault::kNone;
}

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_KWARGS_TAIL_H_
