// A table's key as words: how a call's bound arguments become the key's words (the hot path:
// inline, no allocation, no shared write) and how a key given as values (Add, Get) becomes the
// same words, checked. The words are [None mask, str mask, one word a term]: a term of a None
// argument sets its bit in the first and has the word 0; a str value sets its bit in the second
// and has its bytes' hash as its word (an entry keeps the bytes, compared on a match).
#ifndef KWCALL_SRC_DISPATCH_KEY_READER_H_
#define KWCALL_SRC_DISPATCH_KEY_READER_H_

#include <dlpack/dlpack.h>
#include <kwcall/dispatch.h>
#include <tvm/ffi/c_api.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "binding/param_names.h"
#include "dispatch/cuda_arch.h"
#include "dispatch/key_term.h"

namespace kwcall {

/*! \brief The most words a key has: two masks, then one word a term. */
constexpr int32_t KeyWordsCapacity() { return 2 + kMaxKeyTerms; }

/*! \brief A key's words: two masks, then one word a term. */
struct KeyWords {
  static constexpr int32_t kMasks = 2;
  uint64_t words[KeyWordsCapacity()];
  uint64_t none_mask() const { return words[0]; }
  uint64_t str_mask() const { return words[1]; }
};

/*! \brief The bytes of a str argument (any tvm-ffi string kind); false for anything else. */
inline bool ReadStr(const TVMFFIAny& value, std::string_view* text) {
  NameKey key;
  if (!NameKey::Read(value, &key)) return false;
  *text = key.view();
  return true;
}

/*! \brief FNV-1a over a str value's bytes: its word. */
inline uint64_t HashBytes(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

/*! \brief An odd multiplier for each word of a key (splitmix64's sequence), made once. */
struct WordMultipliers {
  uint64_t of[KeyWordsCapacity()];
  constexpr WordMultipliers() : of() {
    uint64_t state = 0x243f6a8885a308d3ull;
    for (uint64_t& m : of) {
      uint64_t z = (state += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      m = (z ^ (z >> 31)) | 1;
    }
  }
};
inline constexpr WordMultipliers kWordMultipliers{};

/*!
 * \brief The hash of a key's words, for the table's probe: a sum of products, one multiplier a
 *        position (the multiplies run side by side; a chained mix would wait on each), then mixed.
 */
inline uint64_t FinishHash(uint64_t sum) {
  sum ^= sum >> 32;
  sum *= 0x9e3779b97f4a7c15ull;
  return sum ^ (sum >> 29);
}
inline uint64_t HashWords(const uint64_t* words, int32_t count) {
  uint64_t sum = static_cast<uint64_t>(count);
  for (int32_t i = 0; i < count; ++i) sum += words[i] * kWordMultipliers.of[i];
  return FinishHash(sum);
}

/*! \brief Whether two keys' words are equal (a short loop: no call of memcmp). */
inline bool SameWords(const uint64_t* a, const uint64_t* b, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

/*! \brief The DLTensor an argument carries (a DLTensor* or an ffi Tensor), or nullptr. */
inline const DLTensor* TensorOf(const TVMFFIAny& value) {
  if (value.type_index == kTVMFFIDLTensorPtr) return static_cast<const DLTensor*>(value.v_ptr);
  if (value.type_index == kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(value.v_obj);
  return nullptr;
}

class KeyReader {
 public:
  /*!
   * \brief Resolves `terms` against `signature`.
   * \throws ffi::Error of kind ValueError naming a term whose parameter the signature lacks, a
   *         bad number, or too many terms.
   */
  KeyReader(std::string table_name, std::vector<KeyTerm> terms, const Signature& signature);

  int32_t num_terms() const { return num_terms_; }
  int32_t num_words() const { return num_words_; }
  const std::vector<KeyTerm>& terms() const { return terms_; }
  const std::string& table_name() const { return table_name_; }

  /*!
   * \brief The words of a call's key, from its bound arguments (every parameter, in order), and
   *        their hash (HashWords of them, summed as they are read).
   */
  uint64_t Read(const TVMFFIAny* args, KeyWords* out) const {
    uint64_t none_mask = 0, str_mask = 0;
    uint64_t sum = static_cast<uint64_t>(num_words_);
    const int32_t num_terms = num_terms_;
    for (int32_t t = 0; t < num_terms; ++t) {
      const ResolvedTerm& term = resolved_[t];
      const TVMFFIAny& arg = args[term.param];
      const DLTensor* tensor = TensorOf(arg);
      // The common case first: a tensor term of a tensor.
      const uint64_t word = TVM_FFI_PREDICT_TRUE(tensor != nullptr && term.reads_tensor)
                                ? TensorWord(t, term, *tensor)
                                : OtherWord(t, term, arg, &none_mask, &str_mask);
      out->words[KeyWords::kMasks + t] = word;
      sum += word * kWordMultipliers.of[KeyWords::kMasks + t];
    }
    out->words[0] = none_mask;
    out->words[1] = str_mask;
    return FinishHash(sum + none_mask * kWordMultipliers.of[0] + str_mask * kWordMultipliers.of[1]);
  }

  /*! \brief Whether a call's str values are `strs` (one a term; read only where str_mask says). */
  bool StrsAre(const TVMFFIAny* args, uint64_t str_mask,
               const std::vector<std::string>& strs) const;
  /*! \brief A call's str values, one a term ("" where it has none). */
  std::vector<std::string> StrsOf(const TVMFFIAny* args, uint64_t str_mask) const;
  /*! \brief A call's key as values: what key_of returns and compile gets. */
  Key ValuesOf(const KeyWords& words, const TVMFFIAny* args) const;
  /*!
   * \brief A key given as values: its words, its str values and the key as the table keeps it
   *        (dtypes and devices spelled as tvm-ffi spells them, dimensions sorted).
   * \throws ffi::Error of kind ValueError naming the term when the key's length is not the
   *         table's or a value is one its term cannot give.
   */
  void WordsOf(const Key& key, KeyWords* words, std::vector<std::string>* strs,
               Key* canonical) const;
  /*! \brief "dtype(x)='float16', shape(x, -1)=128": a key term by term, for errors. */
  std::string Describe(const Key& key) const;

 private:
  // is_none, value, a None argument, and a tensor term of something else (its error).
  uint64_t OtherWord(int32_t t, const ResolvedTerm& term, const TVMFFIAny& arg, uint64_t* none_mask,
                     uint64_t* str_mask) const {
    if (term.kind == KeyTermKind::kIsNone) return arg.type_index == kTVMFFINone;
    if (arg.type_index == kTVMFFINone) {
      *none_mask |= uint64_t{1} << t;
      return 0;
    }
    if (term.kind == KeyTermKind::kValue) return ValueWord(t, arg, str_mask);
    ThrowNotATensor(t, arg);
  }
  uint64_t ValueWord(int32_t t, const TVMFFIAny& arg, uint64_t* str_mask) const {
    if (arg.type_index == kTVMFFIInt || arg.type_index == kTVMFFIBool) return arg.v_uint64;
    std::string_view text;
    if (TVM_FFI_PREDICT_FALSE(!ReadStr(arg, &text))) ThrowNotAValue(t, arg);
    *str_mask |= uint64_t{1} << t;
    return HashBytes(text);
  }
  uint64_t TensorWord(int32_t t, const ResolvedTerm& term, const DLTensor& tensor) const {
    switch (term.kind) {
      case KeyTermKind::kDtype:
        return DtypeWord(tensor.dtype);
      case KeyTermKind::kNdim:
        return static_cast<uint64_t>(tensor.ndim);
      case KeyTermKind::kShape:
        return static_cast<uint64_t>(tensor.shape[Dim(t, term, tensor)]);
      case KeyTermKind::kStride:
        return static_cast<uint64_t>(StrideOf(tensor, Dim(t, term, tensor)));
      case KeyTermKind::kZeroStrides:
        return ZeroStrides(t, tensor);
      case KeyTermKind::kContiguous:
        return IsContiguous(tensor);
      case KeyTermKind::kDivisible: {
        const int64_t extent = tensor.shape[Dim(t, term, tensor)];
        // A power of two is a mask (no division on the hot path; the table made the mask).
        return term.mask != 0 ? (extent & term.mask) == 0 : extent % term.n == 0;
      }
      case KeyTermKind::kAligned:
        return ((reinterpret_cast<uintptr_t>(tensor.data) + tensor.byte_offset) & term.mask) == 0;
      case KeyTermKind::kDevice:
        return DeviceWord(tensor.device);
      case KeyTermKind::kArch:
        return static_cast<uint64_t>(ArchOf(t, tensor.device));
      default:
        return 0;  // is_none and value never reach here
    }
  }
  int32_t Dim(int32_t t, const ResolvedTerm& term, const DLTensor& tensor) const {
    const int64_t dim = term.index < 0 ? term.index + tensor.ndim : term.index;
    if (TVM_FFI_PREDICT_FALSE(dim < 0 || dim >= tensor.ndim)) ThrowNoDim(t, tensor.ndim);
    return static_cast<int32_t>(dim);
  }
  static int64_t StrideOf(const DLTensor& tensor, int32_t dim) {
    if (tensor.strides != nullptr) return tensor.strides[dim];
    int64_t stride = 1;  // compact row-major, as DLPack means by no strides (torch's rule for 0)
    for (int32_t d = tensor.ndim - 1; d > dim; --d)
      stride *= tensor.shape[d] > 1 ? tensor.shape[d] : 1;
    return stride;
  }
  uint64_t ZeroStrides(int32_t t, const DLTensor& tensor) const {
    if (TVM_FFI_PREDICT_FALSE(tensor.ndim > 64)) ThrowTooManyDims(t, tensor.ndim);
    uint64_t mask = 0;
    for (int32_t d = 0; d < tensor.ndim; ++d) {
      if (StrideOf(tensor, d) == 0) mask |= uint64_t{1} << d;
    }
    return mask;
  }
  // torch's is_contiguous: row-major and compact, ignoring the strides of size-1 dimensions;
  // a tensor with no elements is contiguous.
  static bool IsContiguous(const DLTensor& tensor) {
    if (tensor.strides == nullptr) return true;
    int64_t expected = 1;
    for (int32_t d = tensor.ndim - 1; d >= 0; --d) {
      if (tensor.shape[d] == 0) return true;
      if (tensor.shape[d] != 1 && tensor.strides[d] != expected) return false;
      expected *= tensor.shape[d];
    }
    return true;
  }
  int32_t ArchOf(int32_t t, DLDevice device) const {
    if (device.device_type == kDLCPU) return 0;
    if (device.device_type == kDLCUDA) return CudaArch(device.device_id, terms_[t], table_name_);
    ThrowArchDevice(t, device);
  }

 public:
  static uint64_t DtypeWord(DLDataType dtype) {
    return uint64_t{dtype.code} | uint64_t{dtype.bits} << 8 | uint64_t{dtype.lanes} << 16;
  }
  static uint64_t DeviceWord(DLDevice device) {
    return uint64_t{static_cast<uint32_t>(device.device_type)} << 32 |
           static_cast<uint32_t>(device.device_id);
  }

 private:
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowNotATensor(int32_t t, const TVMFFIAny& arg) const;
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowNotAValue(int32_t t, const TVMFFIAny& arg) const;
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowNoDim(int32_t t, int32_t ndim) const;
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowTooManyDims(int32_t t, int32_t ndim) const;
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowArchDevice(int32_t t, DLDevice device) const;
  [[noreturn]] void ThrowBadValue(int32_t t, const ffi::Any& value, const char* expected) const;
  std::string Where(int32_t t) const;

  std::string table_name_;
  std::vector<KeyTerm> terms_;
  std::vector<ResolvedTerm> resolved_;
  int32_t num_terms_ = 0;
  int32_t num_words_ = KeyWords::kMasks;
  std::vector<std::string> param_names_;
};

}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_KEY_READER_H_
