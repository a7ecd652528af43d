// The companions of an exported function: functions beside it, named by a prefix and the
// function's name, that return text describing it (its signature, its torch operator). How a
// loader finds one, reads its text and says what is missing, the same for every kind.
#ifndef KWCALL_SRC_COMPANION_H_
#define KWCALL_SRC_COMPANION_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <string>

namespace kwcall {

namespace ffi = ::tvm::ffi;

/*! \brief One kind of companion, as errors name it. */
struct CompanionKind {
  const char* prefix;       // the companion's name is prefix + the function's name
  const char* noun;         // what it describes: "signature"
  const char* text;         // what it returns: "the signature's JSON text"
  const char* macro;        // what writes one in C++: "KWCALL_EXPORT_SIGNATURE"
  const char* python_form;  // and from CuTeDSL: "kwcall.cute.export_to_c"
};

extern const CompanionKind kSignatureCompanion;
extern const CompanionKind kTorchOpCompanion;
extern const CompanionKind kDispatchTableCompanion;

/*! \brief "the signature exported for 'name' (__kwcall_signature_name)": how errors name it. */
std::string CompanionWhat(const CompanionKind& kind, const std::string& name);

/*! \brief The companion of the function `name` in `mod`, or nothing. */
ffi::Optional<ffi::Function> FindCompanion(const ffi::Module& mod, const CompanionKind& kind,
                                           const ffi::String& name);

/*!
 * \brief The text a companion returned.
 * \throws ffi::Error of kind TypeError naming `what` when `result` is no string.
 */
ffi::String CompanionText(const ffi::Any& result, const std::string& what,
                          const CompanionKind& kind);

/*! \brief AttributeError from `who`: the module exports no such companion for `name`. */
[[noreturn]] void ThrowNoCompanion(const char* who, const CompanionKind& kind,
                                   const ffi::String& name, const char* instead);

}  // namespace kwcall

#endif  // KWCALL_SRC_COMPANION_H_
