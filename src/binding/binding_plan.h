// What binding a call to one kwcall function needs beyond its Signature, computed once when
// the function is made, never changed after, and shared by both front ends: the C++ function
// object owns it (function_object.h), and a kwcall.Function reaches it through the C++ function
// it wraps (KwFunctionOf there). Parameter names, the masks and default values of the one-pass
// bind, and which calls need no lookup at all live here, so a binding rule is one edit for both
// languages. What the pipeline learns from calls, the keyword shapes, is kept beside the plan
// (keyword_shapes.h), by the same owner.
#ifndef KWCALL_SRC_BINDING_BINDING_PLAN_H_
#define KWCALL_SRC_BINDING_BINDING_PLAN_H_

#include <kwcall/signature.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <vector>

#include "binding/param_names.h"

namespace kwcall {

/*!
 * \brief How calls to one function run, fixed by its signature: computed once by its plan,
 *        and mapped by each front end to its entry point when the function is made.
 */
enum class CallKind : uint8_t {
  kNative,       // a full-arity positional call passes through as it is
  kKeywordOnly,  // keyword-only parameters: a Python call always binds (C++ forwards full
                 // arity)
  kUnpack,       // parameters to unpack: a Python call always binds, then unpacks
};

class BindingPlan {
 public:
  /*! \brief Signatures up to this many parameters bind with bitmasks and remember shapes. */
  static constexpr int32_t kMaxMaskArity = 64;
  /*!
   * \brief The C++ function object binds values of signatures up to this many parameters in
   *        a stack array of its out-of-line bind (256 bytes of its frame), wider ones in one
   *        of kMaxMaskArity, on the heap beyond that. Not CallSite::kInlineArity: a call
   *        site's array sits in the caller's own inlined frame.
   */
  static constexpr int32_t kStackArity = 16;

  explicit BindingPlan(Signature signature);
  BindingPlan(const BindingPlan&) = delete;
  BindingPlan& operator=(const BindingPlan&) = delete;

  const Signature& signature() const { return signature_; }
  int32_t arity() const { return arity_; }
  int32_t num_positional() const { return num_positional_; }
  int32_t posonly_count() const { return posonly_count_; }
  const ParamNames& names() const { return names_; }

  /*!
   * \brief Whether a call of `nargs` positional arguments and no keywords leaves out only
   *        trailing parameters that have defaults: it binds without looking anything up.
   */
  bool TakesTrailingDefaults(int64_t nargs) const {
    return nargs >= defaults_from_ && nargs <= num_positional_;
  }
  /*! \brief See CallKind. */
  CallKind call_kind() const { return call_kind_; }
  /*! \brief More than kStackArity parameters. */
  bool wide() const { return arity_ > kStackArity; }

  /*! \brief One entry per parameter: its default (a view into the signature) where it has one. */
  const TVMFFIAny* default_views() const { return default_views_.data(); }
  /*! \brief Whether the masks below cover every parameter (bit i is parameter i). */
  bool fits_masks() const { return arity_ <= kMaxMaskArity; }
  uint64_t required_mask() const { return required_mask_; }  // parameters without a default
  uint64_t all_mask() const { return all_mask_; }

 private:
  Signature signature_;
  int32_t arity_;
  int32_t num_positional_;
  int32_t posonly_count_;
  int32_t defaults_from_;  // parameters from this index on all have defaults
  CallKind call_kind_;
  ParamNames names_;
  std::vector<TVMFFIAny> default_views_;  // borrowed from signature_'s defaults
  uint64_t required_mask_ = 0;
  uint64_t all_mask_ = 0;
};

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_BINDING_PLAN_H_
