// What BindSlots (binder.h) decides for each parameter, read by its callers and by the
// binding errors (binding_errors.h): a type of its own, so that a marker is never read as an
// index.
#ifndef KWCALL_SRC_BINDING_SLOT_H_
#define KWCALL_SRC_BINDING_SLOT_H_

#include <cstdint>

namespace kwcall {

/*!
 * \brief Where one parameter's value comes from, as BindSlots decides it: value `index` of
 *        the call (positional argument `index` below nargs, keyword value `index - nargs`
 *        from there), the parameter's default, or nothing yet. A marker is not an index.
 */
class Slot {
 public:
  Slot() = default;  // unset: BindSlots writes every slot
  static constexpr Slot Value(int32_t index) { return Slot(index); }
  static constexpr Slot Default() { return Slot(kDefault); }
  static constexpr Slot Unbound() { return Slot(kUnbound); }

  bool has_value() const { return code_ >= 0; }
  bool is_default() const { return code_ == kDefault; }
  bool unbound() const { return code_ == kUnbound; }
  /*! \brief The call's value index; only when has_value(). */
  int32_t value() const { return code_; }

 private:
  static constexpr int32_t kUnbound = -1;
  static constexpr int32_t kDefault = -2;
  constexpr explicit Slot(int32_t code) : code_(code) {}
  int32_t code_;
};

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_SLOT_H_
