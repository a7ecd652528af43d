/*!
 * \file kwcall/dispatch.h
 * \brief Dispatch tables: a kernel family (one compiled specialization per key) as one kwcall
 *        function whose specialization is chosen in C++ from the call's arguments.
 *
 *   kwcall::DispatchTable table(signature, {kwcall::key::Dtype("x"), kwcall::key::Shape("x", -1)},
 *                               "rmsnorm");
 *   table.Add({ffi::String("float16"), 128}, rmsnorm_f16_128);   // an entry: any tvm-ffi function
 *   ffi::Function f = table.function();                            // a kwcall function
 *   f(x, w, out, 1e-6);                 // the key (float16, 128) is read from x; its entry runs
 *   kwcall::Call(f, x, w, out, kwcall::Kw("eps", 1e-5));          // keywords, as for any function
 *
 * A key is a list of terms, each read in C++ from one bound argument (after keywords and
 * defaults are bound); a key value is an ffi::Array of what each term gives: a dtype as tvm-ffi
 * spells it ("bfloat16"), a device as "cuda:0", integers, bools, a tuple of dimensions (the
 * zero strides), a bool/int/str argument's value, or None (every term of a None argument but
 * is_none). A table's function binds like any kwcall function and calls the chosen entry with
 * every parameter in declaration order. A call whose key has no entry compiles one when the
 * table has a compile function (once per key, however many threads miss it) and is an error
 * naming the key and the nearest keys the table has otherwise. docs/dispatch.md has the details.
 */
#ifndef KWCALL_DISPATCH_H_
#define KWCALL_DISPATCH_H_

#include <kwcall/signature.h>
#include <kwcall/visibility.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kwcall {

/*! \brief What a key term reads from its argument. */
enum class KeyTermKind : int32_t {
  kDtype,        //!< dtype(p): the tensor's dtype, "bfloat16"
  kNdim,         //!< ndim(p)
  kShape,        //!< shape(p, i): dimension i's extent (negative i from the end)
  kStride,       //!< stride(p, i): dimension i's stride in elements
  kZeroStrides,  //!< zero_strides(p): the dimensions whose stride is 0, a tuple
  kContiguous,   //!< contiguous(p): row-major and compact (size-1 dimensions' strides ignored)
  kDivisible,    //!< divisible(p, i, n): shape(p, i) % n == 0
  kAligned,      //!< aligned(p, n): the data pointer (with its byte offset) % n == 0
  kDevice,       //!< device(p): "cuda:0"
  kArch,         //!< arch(p): the CUDA compute capability of the tensor's device (90); 0 on CPU
  kIsNone,       //!< is_none(p): whether the argument is None (any argument)
  kValue,        //!< value(p): a bool, int or str argument's value
};

/*! \brief One term of a key: a kind, the parameter it reads and its numbers. */
struct KeyTerm {
  KeyTermKind kind = KeyTermKind::kIsNone;
  std::string param;
  int64_t index = 0;  //!< shape, stride, divisible: the dimension
  int64_t n = 0;      //!< divisible: the divisor; aligned: the alignment in bytes

  /*! \brief The term as written in Python and in a saved table: "divisible(x, -1, 16)". */
  KWCALL_API std::string ToString() const;
  /*!
   * \brief The term `text` spells (ToString's form; spaces optional).
   * \throws ffi::Error of kind ValueError naming the text when it is no term.
   */
  KWCALL_API static KeyTerm Parse(std::string_view text);
};

/*! \brief The terms, one function each, as Python's kwcall.key writes them. */
namespace key {
inline KeyTerm Dtype(std::string p) { return {KeyTermKind::kDtype, std::move(p)}; }
inline KeyTerm Ndim(std::string p) { return {KeyTermKind::kNdim, std::move(p)}; }
inline KeyTerm Shape(std::string p, int64_t i) { return {KeyTermKind::kShape, std::move(p), i}; }
inline KeyTerm Stride(std::string p, int64_t i) { return {KeyTermKind::kStride, std::move(p), i}; }
inline KeyTerm ZeroStrides(std::string p) { return {KeyTermKind::kZeroStrides, std::move(p)}; }
inline KeyTerm Contiguous(std::string p) { return {KeyTermKind::kContiguous, std::move(p)}; }
inline KeyTerm Divisible(std::string p, int64_t i, int64_t n) {
  return {KeyTermKind::kDivisible, std::move(p), i, n};
}
inline KeyTerm Aligned(std::string p, int64_t n) {
  return {KeyTermKind::kAligned, std::move(p), 0, n};
}
inline KeyTerm Device(std::string p) { return {KeyTermKind::kDevice, std::move(p)}; }
inline KeyTerm Arch(std::string p) { return {KeyTermKind::kArch, std::move(p)}; }
inline KeyTerm IsNone(std::string p) { return {KeyTermKind::kIsNone, std::move(p)}; }
inline KeyTerm Value(std::string p) { return {KeyTermKind::kValue, std::move(p)}; }
}  // namespace key

/*! \brief The most terms a key may have. */
inline constexpr int32_t kMaxKeyTerms = 64;

/*! \brief A key: one value per term, in the terms' order. */
using Key = ffi::Array<ffi::Any>;

/*!
 * \brief A dispatch table: a handle to a shared, thread-safe table (copies share it). Entries
 *        are added, never removed or replaced; calls read the table without a lock.
 */
class KWCALL_API DispatchTable {
 public:
  /*!
   * \brief A table over `signature` keyed by `terms`, shown in errors as `name` (the
   *        signature's name when empty). With `compile`, a call whose key has no entry calls
   *        `compile(key, *args)` (the bound arguments in declaration order) once for that key and
   *        adds the function it returns.
   * \throws ffi::Error of kind ValueError naming a term whose parameter the signature lacks, a
   *         bad number in a term, or more than kMaxKeyTerms terms.
   */
  DispatchTable(Signature signature, std::vector<KeyTerm> terms, std::string name = "",
                ffi::Optional<ffi::Function> compile = std::nullopt);

  /*!
   * \brief Adds `entry` (a tvm-ffi function taking every parameter in declaration order) for
   *        `key`; safe while other threads call the table.
   * \throws ffi::Error of kind ValueError when the key has the wrong length, holds a value its
   *         term cannot give, or is in the table already; TypeError when `entry` is a kwcall
   *         function whose parameters differ from the table's.
   */
  void Add(const Key& key, ffi::Function entry) const;
  /*! \brief The entry for `key`, or none; the key is checked as Add checks it. */
  ffi::Optional<ffi::Function> Get(const Key& key) const;
  /*! \brief Every key, in the order they were added. */
  std::vector<Key> Keys() const;
  /*! \brief How many entries the table has. */
  int64_t size() const;
  /*! \brief The key a call selects, from its bound arguments (every parameter, in order). */
  Key KeyOf(ffi::PackedArgs args) const;
  /*!
   * \brief The table as one kwcall function with the table's signature: positional calls,
   *        keywords, defaults and KWARGS callers bind as for any kwcall function; the entry of
   *        the call's key gets every parameter in declaration order. It keeps the table alive.
   */
  ffi::Function function() const;
  const Signature& signature() const;
  const std::vector<KeyTerm>& terms() const;
  const std::string& name() const;

  /*! \brief The table as a tvm-ffi object (type key "kwcall.DispatchTable"), for other languages.
   */
  const ffi::ObjectRef& object() const { return object_; }
  /*!
   * \brief The table `object` is.
   * \throws ffi::Error of kind TypeError when it is no dispatch table.
   */
  explicit DispatchTable(ffi::ObjectRef object);

 private:
  ffi::ObjectRef object_;
};

/*!
 * \brief The table `mod` exports as `name` (KWCALL_EXPORT_DISPATCH_TABLE, or Python's
 *        DispatchTable.save), its entries the module's functions the description names: no
 *        compiling, no Python.
 * \throws ffi::Error of kind AttributeError when the module exports no such table or lacks an
 *         entry it names; ValueError when the description is not valid (naming what).
 */
KWCALL_API DispatchTable LoadDispatchTable(const ffi::Module& mod, const ffi::String& name);

}  // namespace kwcall

#endif  // KWCALL_DISPATCH_H_
