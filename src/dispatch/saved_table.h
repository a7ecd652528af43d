// Saved tables: the description a table's library carries beside its entries (the companion
// `__kwcall_dispatch_table_<name>`, KWCALL_EXPORT_DISPATCH_TABLE), written and read here.
//
//   {"version": 1, "name": "rmsnorm", "signature": {...the signature's map form...},
//    "key": ["dtype(x)", "shape(x, -1)"],
//    "entries": [{"key": ["float16", 128], "function": "rmsnorm_0"}, ...]}
//
// Each entry's "function" names a function the same library exports (`__tvm_ffi_rmsnorm_0`).
#ifndef KWCALL_SRC_DISPATCH_SAVED_TABLE_H_
#define KWCALL_SRC_DISPATCH_SAVED_TABLE_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/string.h>

#include <string>

#include "dispatch/table_object.h"

namespace kwcall {

/*! \brief The version of the description this library writes and reads. */
inline constexpr int64_t kTableDescriptionVersion = 1;

/*!
 * \brief The description of `table` whose entries (in the order Keys gives them) are the
 *        library's functions `functions`.
 * \throws ffi::Error of kind ValueError when the counts differ or the signature has a default
 *         JSON cannot hold.
 */
std::string DescribeTable(const DispatchTableObj& table, const ffi::Array<ffi::String>& functions);

}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_SAVED_TABLE_H_
