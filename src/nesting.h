// How deeply a value or a JSON text nests and how many elements a value holds, measured
// without recursion, so that hostile input is refused before anything recursive (tvm-ffi's
// JSON parser, a deep walk) or anything that copies it touches it.
#ifndef KWCALL_SRC_NESTING_H_
#define KWCALL_SRC_NESTING_H_

#include <tvm/ffi/any.h>

#include <cstdint>
#include <string_view>

namespace kwcall {

/*! \brief What NestingDepth measured. */
struct NestingSize {
  /*! \brief Depth of arrays and maps (a scalar is 0, `[1]` is 1); limit + 1 when past it. */
  int32_t depth = 0;
  /*! \brief Array items and map entries, all levels together; limit + 1 when past it. */
  int64_t elements = 0;
};

/*!
 * \brief Nesting depth of arrays and maps in `value` and how many elements they hold; stops
 *        at the first limit passed (so a container shared many times over costs at most
 *        `element_limit` steps).
 */
NestingSize NestingDepth(const tvm::ffi::Any& value, int32_t depth_limit, int64_t element_limit);

/*!
 * \brief Nesting depth of `[` and `{` in JSON text, strings skipped; stops counting past
 *        `limit` and then returns limit + 1. Says nothing about whether the text is valid.
 */
int32_t JsonNestingDepth(std::string_view json, int32_t limit);

}  // namespace kwcall

#endif  // KWCALL_SRC_NESTING_H_
