// Key values: what each term's word means as a value (a dtype as tvm-ffi spells it, "cuda:0",
// an int, a bool, a tuple of dimensions), a value given for a term read back into its word, and
// values written as Python writes them, for errors.
#ifndef KWCALL_SRC_DISPATCH_KEY_VALUES_H_
#define KWCALL_SRC_DISPATCH_KEY_VALUES_H_

#include <dlpack/dlpack.h>
#include <kwcall/dispatch.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>

#include <cstdint>
#include <string>

namespace kwcall {

/*! \brief The value a term's word stands for (any term but value(p), whose word is a hash). */
ffi::Any ValueOfWord(KeyTermKind kind, uint64_t word);

/*! \brief A bool, int or str argument as a key value. */
ffi::Any ValueOfArgument(const TVMFFIAny& arg);

/*! \brief A value given for a term: its word, or what the term gives instead. */
struct WordOfValue {
  uint64_t word = 0;
  bool none = false;
  bool str = false;
  std::string text;                // a str value's bytes
  ffi::Any canonical;              // the value as the table keeps it
  const char* expected = nullptr;  // set when the value is not one the term gives
};

/*! \brief Reads `value` as a key value of a term of `kind`. */
WordOfValue ReadKeyValue(KeyTermKind kind, const ffi::Any& value);

/*! \brief `value` as Python's repr writes it: 'float16', 128, True, None, (0, 2). */
std::string Repr(const ffi::Any& value);

/*! \brief "cuda:0", as tvm-ffi's Python spells a device. */
std::string DeviceName(DLDevice device);

/*! \brief "Tensor", "int", "float", "None", ...: an argument's type, for errors. */
std::string ArgumentTypeName(const TVMFFIAny& arg);

}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_KEY_VALUES_H_
