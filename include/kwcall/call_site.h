/*!
 * \file kwcall/call_site.h
 * \brief A keyword call bound once, for callers that make the same call many times.
 *
 *   // def scale(x, y, *, alpha=1.0, beta=0.0, gamma=2.0)
 *   kwcall::CallSite site(f, 2, {"beta", "alpha"});   // 2 positional values, then beta, alpha
 *   site(x, y, 0.5, 3.0);                             // scale(x, y, beta=0.5, alpha=3.0)
 *
 * A site is made from a kwcall function, the number of positional values and the keyword
 * names, and binds that shape once, with CPython's rules: which parameter each value fills
 * and which defaults fill the rest. A call then writes each value where the target wants it
 * and calls the target with every parameter in declaration order: no KWARGS tail, no name
 * compares, no heap (up to kInlineArity parameters), no GIL.
 */
#ifndef KWCALL_CALL_SITE_H_
#define KWCALL_CALL_SITE_H_

#include <kwcall/kwargs.h>
#include <kwcall/signature.h>
#include <kwcall/visibility.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kwcall {

/*!
 * \brief A prepared call of a kwcall function: `num_positional` positional values, then one
 *        value for each keyword name, in the order the names were given.
 *
 * The count of positional values is part of the site: a signature with defaults accepts
 * several counts, and the site fixes one when it is made, so that every call binds the same
 * way. A site holds the function's target and signature; it may be copied, and called from any
 * number of threads at once (a moved-from site may only be assigned to or destroyed).
 */
class KWCALL_API CallSite {
 public:
  /*! \brief Parameters bound on the stack; a wider target's values go to a heap array. */
  static constexpr int32_t kInlineArity = 64;

  /*!
   * \brief Bind `num_positional` positional values and the keywords `keywords` to `f`'s
   *        signature.
   * \throws ffi::Error of kind TypeError with exactly the text the same call through KWARGS
   *         (kwcall::Call) raises when the shape does not bind (an unknown or duplicate
   *         keyword, a positional-only parameter by keyword, multiple values, too many
   *         positional values, a missing required parameter); of kind TypeError when `f` is
   *         null or not a kwcall function; of kind ValueError when `num_positional` < 0.
   */
  CallSite(ffi::Function f, int32_t num_positional, std::vector<std::string> keywords = {});

  /*!
   * \brief Call the target with `values`: num_positional() positional values, then one per
   *        keyword, in order.
   * \throws ffi::Error of kind TypeError naming the site's shape when the number of values
   *         differs from num_values(); whatever the target throws.
   */
  template <typename... Values>
  ffi::Any operator()(Values&&... values) const {
    static_assert(
        !(kwargs_detail::kIsKw<Values> || ...),
        "kwcall::CallSite takes values only: its keyword names are given when it is made");
    constexpr int32_t kNumValues = static_cast<int32_t>(sizeof...(Values));
    if (__builtin_expect(kNumValues == num_in_order_, 1)) {
      // The values are the first parameters, in order: written as a direct call writes them.
      // Raw slots, each written once: AnyView's constructor would zero them first.
      TVMFFIAny bound[kInlineArity];
      TVMFFIAny* next = bound;
      auto put = [&](const ffi::AnyView& view) {
        *next++ = reinterpret_cast<const TVMFFIAny&>(view);
      };
      (put(std::forward<Values>(values)), ...);
      return FillAndCall(bound);
    }
    return CallScattered(std::forward<Values>(values)...);
  }

  /*! \brief How many values a call passes: num_positional() plus one per keyword. */
  int32_t num_values() const { return num_values_; }
  int32_t num_positional() const { return num_positional_; }
  const std::vector<std::string>& keywords() const { return keywords_; }
  /*! \brief The signature the site was bound to. */
  const Signature& signature() const { return signature_; }

 private:
  /*! \brief A parameter no value fills, and its default (a view into signature_). */
  struct Default {
    int32_t param;
    TVMFFIAny value;
  };

  // Values that go to other parameters than the first ones, in order.
  template <typename... Values>
  ffi::Any CallScattered(Values&&... values) const {
    constexpr int32_t kNumValues = static_cast<int32_t>(sizeof...(Values));
    if (kNumValues != num_values_) ThrowValueCount(kNumValues);
    if (arity_ > kInlineArity) {
      std::unique_ptr<TVMFFIAny[]> wide(new TVMFFIAny[arity_]);
      return Scatter(wide.get(), std::forward<Values>(values)...);
    }
    TVMFFIAny bound[kInlineArity];
    return Scatter(bound, std::forward<Values>(values)...);
  }

  // Write each value into the slot (of arity_ in `bound`) of the parameter it binds.
  template <typename... Values>
  ffi::Any Scatter(TVMFFIAny* bound, Values&&... values) const {
    const int32_t* param = param_of_value_.data();
    auto put = [&](const ffi::AnyView& view) {
      bound[*param++] = reinterpret_cast<const TVMFFIAny&>(view);
    };
    (put(std::forward<Values>(values)), ...);
    return FillAndCall(bound);
  }

  // Add the defaults the shape leaves out to `bound` and call the target with it.
  ffi::Any FillAndCall(TVMFFIAny* bound) const {
    for (const Default& fill : defaults_) bound[fill.param] = fill.value;
    ffi::Any result;
    target_.CallPacked(reinterpret_cast<const ffi::AnyView*>(bound), arity_, &result);
    return result;
  }

  [[noreturn, gnu::noinline, gnu::cold]] void ThrowValueCount(int32_t given) const;

  ffi::Function target_;  // called with every parameter in declaration order
  Signature signature_;   // owns the defaults viewed by defaults_
  int32_t num_in_order_;  // num_values_ when values v fill parameters v (arity_ <= kInlineArity)
  int32_t num_values_;
  int32_t arity_;
  int32_t num_positional_;
  std::vector<int32_t> param_of_value_;  // value v fills parameter param_of_value_[v]
  std::vector<Default> defaults_;        // the parameters no value fills
  std::vector<std::string> keywords_;
};

}  // namespace kwcall

#endif  // KWCALL_CALL_SITE_H_
