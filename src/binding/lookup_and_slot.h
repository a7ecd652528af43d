// The two results of the bind pipeline's steps, each an index or one of a few markers: a keyword
// lookup gives the parameter the keyword names or why there is none (ParamLookup); BindSlots
// gives, for each parameter, the call's value that fills it or a marker (Slot). Each is a type
// of its own, whose markers share no value with each other or with an index, so the compiler
// keeps a marker from being read as an index and one kind of code from another.
#ifndef KWCALL_SRC_BINDING_LOOKUP_AND_SLOT_H_
#define KWCALL_SRC_BINDING_LOOKUP_AND_SLOT_H_

#include <cstdint>

namespace kwcall {

/*! \brief An index (0 or more), or a marker of the enum `Marker` (whose values are negative). */
template <typename Marker>
class IndexOr {
 public:
  IndexOr() = default;  // unset: whoever makes an array of them writes each one
  constexpr IndexOr(Marker marker)
      : code_(static_cast<int32_t>(marker)) {}  // NOLINT: a marker is one
  static constexpr IndexOr Index(int32_t index) { return IndexOr(index); }

  bool is_index() const { return code_ >= 0; }
  bool is(Marker marker) const { return code_ == static_cast<int32_t>(marker); }
  /*! \brief The index; only when is_index(). */
  int32_t index() const { return code_; }

 private:
  constexpr explicit IndexOr(int32_t code) : code_(code) {}
  int32_t code_;
};

/*! \brief Why a keyword lookup found no parameter. */
enum class Lookup : int32_t {
  kNoParam = -1,    // the keyword names no parameter
  kFullRules = -2,  // the fast steps cannot tell (a key they do not read): the full rules decide
  kFailed = -3,     // the lookup failed (a Python key's __eq__ raised, a key is not a string);
                    // whoever looked has reported the error
};
/*!
 * \brief What every keyword lookup returns (ParamNames::Find, a call adapter's FindKey, a Keys
 *        object's Find): the index of the parameter the keyword names, or a Lookup.
 */
using ParamLookup = IndexOr<Lookup>;

/*! \brief A parameter BindSlots fills from no value of the call. */
enum class SlotMark : int32_t {
  kUnbound = -1,  // nothing yet
  kDefault = -2,  // the parameter's default
};
/*!
 * \brief Where one parameter's value comes from, as BindSlots decides it: the call's value
 *        `index` (positional argument `index` below nargs, keyword value `index - nargs` from
 *        there), or a SlotMark.
 */
using Slot = IndexOr<SlotMark>;

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_LOOKUP_AND_SLOT_H_
