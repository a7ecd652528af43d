// What a key term reads from a DLTensor, as the word the table hashes and compares: a dtype, a
// device, a stride (DLPack's compact strides when it gives none), the zero-stride dimensions and
// torch's contiguity; and a str argument's bytes and their word. key_reader.h reads calls'
// arguments with them; key_values.cc turns the values a key is given as into the same words.
#ifndef KWCALL_SRC_DISPATCH_TERM_WORDS_H_
#define KWCALL_SRC_DISPATCH_TERM_WORDS_H_

#include <dlpack/dlpack.h>
#include <tvm/ffi/c_api.h>

#include <cstdint>
#include <string_view>

#include "binding/param_names.h"

namespace kwcall {
namespace term_words {

/*! \brief The bytes of a str argument (any tvm-ffi string kind); false for anything else. */
inline bool ReadStr(const TVMFFIAny& value, std::string_view* text) {
  NameKey key;
  if (!NameKey::Read(value, &key)) return false;
  *text = key.view();
  return true;
}

/*! \brief FNV-1a over a str value's bytes: its word. */
inline uint64_t Str(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

inline uint64_t Dtype(DLDataType dtype) {
  return uint64_t{dtype.code} | uint64_t{dtype.bits} << 8 | uint64_t{dtype.lanes} << 16;
}

inline uint64_t Device(DLDevice device) {
  return uint64_t{static_cast<uint32_t>(device.device_type)} << 32 |
         static_cast<uint32_t>(device.device_id);
}

/*! \brief Dimension `dim`'s stride; compact row-major when DLPack gives none (torch's rule for 0).
 */
inline int64_t StrideOf(const DLTensor& tensor, int32_t dim) {
  if (tensor.strides != nullptr) return tensor.strides[dim];
  int64_t stride = 1;
  for (int32_t d = tensor.ndim - 1; d > dim; --d)
    stride *= tensor.shape[d] > 1 ? tensor.shape[d] : 1;
  return stride;
}

/*! \brief The dimensions whose stride is 0, one bit each (the tensor has at most 64). */
inline uint64_t ZeroStrides(const DLTensor& tensor) {
  uint64_t mask = 0;
  for (int32_t d = 0; d < tensor.ndim; ++d) {
    if (StrideOf(tensor, d) == 0) mask |= uint64_t{1} << d;
  }
  return mask;
}

/*!
 * \brief torch's is_contiguous: row-major and compact, ignoring the strides of size-1 dimensions;
 *        a tensor with no elements is contiguous.
 */
inline bool IsContiguous(const DLTensor& tensor) {
  if (tensor.strides == nullptr) return true;
  int64_t expected = 1;
  for (int32_t d = tensor.ndim - 1; d >= 0; --d) {
    if (tensor.shape[d] == 0) return true;
    if (tensor.shape[d] != 1 && tensor.strides[d] != expected) return false;
    expected *= tensor.shape[d];
  }
  return true;
}

}  // namespace term_words
}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_TERM_WORDS_H_
