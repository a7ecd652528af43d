// How deeply a value or a JSON text nests, measured without recursion, so that hostile input
// is refused before anything recursive (tvm-ffi's JSON parser, a deep walk) touches it.
#ifndef KWCALL_SRC_NESTING_H_
#define KWCALL_SRC_NESTING_H_

#include <tvm/ffi/any.h>

#include <cstdint>
#include <string_view>

namespace kwcall {

/*!
 * \brief Nesting depth of arrays and maps in `value` (a scalar is 0, `[1]` is 1); stops
 *        counting past `limit` and then returns limit + 1.
 */
int32_t NestingDepth(const tvm::ffi::Any& value, int32_t limit);

/*!
 * \brief Nesting depth of `[` and `{` in JSON text, strings skipped; stops counting past
 *        `limit` and then returns limit + 1. Says nothing about whether the text is valid.
 */
int32_t JsonNestingDepth(std::string_view json, int32_t limit);

}  // namespace kwcall

#endif  // KWCALL_SRC_NESTING_H_
