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
#include "dispatch/term_words.h"

namespace kwcall {

/*! \brief The most words a key has: two masks, then one word a term. */
constexpr int32_t KeyWordsCapacity() { return 2 + kMaxKeyTerms; }

/*! \brief A key's words: two masks, then one word a term (and a 0 to make their number even). */
struct KeyWords {
  static constexpr int32_t kMasks = 2;
  /*! \brief How many words a key of `num_words` is compared as (SameWords). */
  static constexpr int32_t Compared(int32_t num_words) { return (num_words + 1) & ~1; }
  uint64_t words[KeyWordsCapacity()];
  uint64_t none_mask() const { return words[0]; }
  uint64_t str_mask() const { return words[1]; }
};

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
 * \brief The hash of a key's words, for the table's probe: a sum of products of the terms' words,
 *        one multiplier a position (the multiplies run side by side; a chained mix would wait on
 *        each), times a last odd multiplier whose top bits choose the slot (Fibonacci hashing:
 *        every bit of the sum reaches them). The masks are left out: keys that differ only there
 *        (a None against a 0) share a probe chain, and the compare of every word tells them apart.
 */
inline uint64_t FinishHash(uint64_t sum) { return sum * 0x9e3779b97f4a7c15ull; }
inline uint64_t HashWords(const uint64_t* words, int32_t count) {
  uint64_t sum = 0;
  for (int32_t i = KeyWords::kMasks; i < count; ++i) sum += words[i] * kWordMultipliers.of[i];
  return FinishHash(sum);
}

/*!
 * \brief Whether two keys' words are equal, `count` of them rounded up to an even number (both
 *        padded with a 0): two words a step and one branch for both (the early exit also keeps
 *        compilers from vectorizing a loop this short, which costs more than it saves).
 */
inline bool SameWords(const uint64_t* a, const uint64_t* b, int32_t count) {
  for (const uint64_t* end = a + count; a != end; a += 2, b += 2) {
    if (((a[0] ^ b[0]) | (a[1] ^ b[1])) != 0) return false;
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
   *
   * Each tensor parameter's DLTensor is found once for all its terms, and nothing is checked
   * that a usual call passes: a call with anything else (a term that does not fit its argument,
   * a CUDA device whose arch is not cached yet) is read again term by term in key order, which
   * throws the first term's error as it always did.
   */
  TVM_FFI_INLINE uint64_t Read(const TVMFFIAny* args, KeyWords* out) const {
    uint64_t none_mask = 0, str_mask = 0, sum = 0;
    bool unusual = false;
    out->words[pad_word_] = 0;  // the pad, unless a term's word is there
    const DLTensor* tensor = nullptr;
    for (const ResolvedTerm& term : tensor_terms_) {
      if (term.first_of_param) tensor = TensorOf(args[term.param]);
      uint64_t word = 0;
      if (TVM_FFI_PREDICT_TRUE(tensor != nullptr)) {
        word = TensorWord<false>(term, *tensor, &unusual);
      } else {
        // An absent optional tensor: the term is None, its word 0.
        unusual |= args[term.param].type_index != kTVMFFINone;
        none_mask |= uint64_t{1} << term.term;
      }
      out->words[term.word] = word;
      sum += word * term.multiplier;
    }
    for (const ResolvedTerm& term : other_terms_) {
      const uint64_t word =
          OtherWord<false>(term, args[term.param], &none_mask, &str_mask, &unusual);
      out->words[term.word] = word;
      sum += word * term.multiplier;
    }
    if (TVM_FFI_PREDICT_FALSE(unusual)) return ReadCarefully(args, out);
    out->words[0] = none_mask;
    out->words[1] = str_mask;
    return FinishHash(sum);
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
  // Read's other way: term by term in key order, each checked (key_reader.cc).
  [[gnu::noinline]] uint64_t ReadCarefully(const TVMFFIAny* args, KeyWords* out) const;

  // A term that cannot be read as a usual call is: kCareful throws its error; the quick read
  // sets *unusual (and reads nothing it cannot), so that the call is read carefully.
  template <bool kCareful, typename Throw>
  static uint64_t Unusual(bool* unusual, Throw throw_error) {
    if constexpr (kCareful) {
      throw_error();
    } else {
      *unusual = true;
    }
    return 0;
  }

  // is_none and value of any argument.
  template <bool kCareful>
  uint64_t OtherWord(const ResolvedTerm& term, const TVMFFIAny& arg, uint64_t* none_mask,
                     uint64_t* str_mask, bool* unusual) const {
    if (term.kind == KeyTermKind::kIsNone) return arg.type_index == kTVMFFINone;
    if (arg.type_index == kTVMFFIInt || arg.type_index == kTVMFFIBool) return arg.v_uint64;
    if (arg.type_index == kTVMFFINone) {
      *none_mask |= uint64_t{1} << term.term;
      return 0;
    }
    std::string_view text;
    if (TVM_FFI_PREDICT_FALSE(!term_words::ReadStr(arg, &text))) {
      return Unusual<kCareful>(unusual, [&] { ThrowNotAValue(term.term, arg); });
    }
    *str_mask |= uint64_t{1} << term.term;
    return term_words::Str(text);
  }

  template <bool kCareful>
  uint64_t TensorWord(const ResolvedTerm& term, const DLTensor& tensor, bool* unusual) const {
    switch (term.kind) {
      case KeyTermKind::kDtype:
        return term_words::Dtype(tensor.dtype);
      case KeyTermKind::kNdim:
        return static_cast<uint64_t>(tensor.ndim);
      case KeyTermKind::kShape: {
        int32_t dim;
        if (TVM_FFI_PREDICT_FALSE(!Dim(term, tensor, &dim)))
          return NoDim<kCareful>(term, tensor, unusual);
        return static_cast<uint64_t>(tensor.shape[dim]);
      }
      case KeyTermKind::kStride: {
        int32_t dim;
        if (TVM_FFI_PREDICT_FALSE(!Dim(term, tensor, &dim)))
          return NoDim<kCareful>(term, tensor, unusual);
        return static_cast<uint64_t>(term_words::StrideOf(tensor, dim));
      }
      case KeyTermKind::kDivisible: {
        int32_t dim;
        if (TVM_FFI_PREDICT_FALSE(!Dim(term, tensor, &dim)))
          return NoDim<kCareful>(term, tensor, unusual);
        // A power of two is a mask (no division on the hot path; the table made the mask).
        const int64_t extent = tensor.shape[dim];
        return term.mask != 0 ? (extent & term.mask) == 0 : extent % term.n == 0;
      }
      case KeyTermKind::kZeroStrides:
        if (TVM_FFI_PREDICT_FALSE(tensor.ndim > 64)) {
          return Unusual<kCareful>(unusual, [&] { ThrowTooManyDims(term.term, tensor.ndim); });
        }
        return term_words::ZeroStrides(tensor);
      case KeyTermKind::kContiguous:
        return term_words::IsContiguous(tensor);
      case KeyTermKind::kAligned:
        return ((reinterpret_cast<uintptr_t>(tensor.data) + tensor.byte_offset) & term.mask) == 0;
      case KeyTermKind::kDevice:
        return term_words::Device(tensor.device);
      case KeyTermKind::kArch:
        return ArchWord<kCareful>(term, tensor.device, unusual);
      case KeyTermKind::kIsNone:
      case KeyTermKind::kValue:
        break;
    }
    TVM_FFI_UNREACHABLE();  // is_none and value are read by OtherWord; no other kind is made
  }

  // The dimension `term` reads (its index, or from the end when negative), if the tensor has it.
  static bool Dim(const ResolvedTerm& term, const DLTensor& tensor, int32_t* dim) {
    const int64_t d = term.index < 0 ? term.index + tensor.ndim : term.index;
    *dim = static_cast<int32_t>(d);
    return static_cast<uint64_t>(d) < static_cast<uint64_t>(tensor.ndim);
  }
  template <bool kCareful>
  uint64_t NoDim(const ResolvedTerm& term, const DLTensor& tensor, bool* unusual) const {
    return Unusual<kCareful>(unusual, [&] { ThrowNoDim(term.term, tensor.ndim); });
  }

  // The quick read takes an arch from the cache only; the careful one asks the driver.
  template <bool kCareful>
  uint64_t ArchWord(const ResolvedTerm& term, DLDevice device, bool* unusual) const {
    if (device.device_type == kDLCPU) return 0;
    if (device.device_type == kDLCUDA) {
      if constexpr (kCareful) {
        return static_cast<uint64_t>(CudaArch(device.device_id, terms_[term.term], table_name_));
      } else {
        if (const int32_t arch = CachedCudaArch(device.device_id); arch >= 0) return arch;
      }
    }
    return Unusual<kCareful>(unusual, [&] { ThrowArchDevice(term.term, device); });
  }

  [[noreturn]] TVM_FFI_COLD_CODE void ThrowNotATensor(int32_t t, const TVMFFIAny& arg) const;
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowNotAValue(int32_t t, const TVMFFIAny& arg) const;
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowNoDim(int32_t t, int32_t ndim) const;
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowTooManyDims(int32_t t, int32_t ndim) const;
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowArchDevice(int32_t t, DLDevice device) const;
  [[noreturn]] void ThrowBadValue(int32_t t, const ffi::Any& value, const char* expected) const;
  std::string Where(int32_t t) const;

  std::string table_name_;
  std::vector<KeyTerm> terms_;
  std::vector<ResolvedTerm> resolved_;  // in key order
  // Read's order: the tensor terms, each parameter's together (its DLTensor found once) in the
  // order of their first term; then the is_none and value terms.
  std::vector<ResolvedTerm> tensor_terms_;
  std::vector<ResolvedTerm> other_terms_;
  int32_t num_terms_ = 0;
  int32_t num_words_ = KeyWords::kMasks;
  int32_t pad_word_ = 0;  // KeyWords::Compared(num_words_) - 1
  std::vector<std::string> param_names_;
};

}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_KEY_READER_H_
