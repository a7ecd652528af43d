// The keyword-call shapes a function has bound: what the bind pipeline learns from its calls,
// beside the plan it is made with (binding_plan.h), which never changes. Keyword calls from one
// call site pass the same names in the same order every time, so remembering which parameter
// each keyword named lets a repeat call check one name per keyword instead of searching for it:
// by text from C++, by interned pointer from Python (one cache for both, owned by the C++
// function object beside its plan). Shapes are immutable once published and live as long as
// the function, so concurrent callers read them without locks.
#ifndef KWCALL_SRC_BINDING_KEYWORD_SHAPES_H_
#define KWCALL_SRC_BINDING_KEYWORD_SHAPES_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "binding/lookup_and_slot.h"

namespace kwcall {

class KeywordShapes {
 public:
  /*! \brief Calls with more keywords than this are bound without the cache. */
  static constexpr int32_t kMaxKeywords = 8;
  /*! \brief Shapes remembered per function; later new shapes are bound every time. */
  static constexpr int32_t kMaxShapes = 8;

  struct Shape {
    int32_t nargs = 0;
    int32_t num_keywords = 0;
    uint64_t defaults = 0;  // bit i: parameter i takes its default
    int32_t params[kMaxKeywords] = {};
  };

  /*!
   * \brief The cache of a function whose parameters `fit_masks` (a shape's defaults are a mask
   *        of 64 bits, BindingPlan::fits_masks): otherwise it remembers nothing.
   */
  explicit KeywordShapes(bool fit_masks) : fit_masks_(fit_masks) {}
  KeywordShapes(const KeywordShapes&) = delete;
  KeywordShapes& operator=(const KeywordShapes&) = delete;
  ~KeywordShapes() {
    for (auto& shape : shapes_) delete shape.load(std::memory_order_relaxed);
  }

  /*!
   * \brief The one policy, for both languages: calls with 1 to kMaxKeywords keywords, of a
   *        signature that fits the masks.
   */
  bool Remembers(int64_t num_keywords) const {
    return num_keywords > 0 && num_keywords <= kMaxKeywords && fit_masks_;
  }

  // A lookup (the bind pipeline's, bind_call.h) tries the shapes in this order: the last one
  // used first (n = 0), then each other one in order, until a null: shapes fill the slots in
  // order.
  /*! \brief The slot of the `n`-th shape a lookup tries, when the last one used is `last`. */
  static int32_t InSearchOrder(int32_t n, int32_t last) {
    return n == 0 ? last : (n - 1 < last ? n - 1 : n);
  }
  int32_t last() const { return last_.load(std::memory_order_relaxed); }
  /*! \brief The shape in slot `i`, or nullptr: no shape in this slot or any after it. */
  const Shape* Get(int32_t i) const { return shapes_[i].load(std::memory_order_acquire); }
  /*! \brief Make slot `i`, which a lookup found, the one tried first: a write to the line every
   *         caller reads, made only when another shape was found. */
  void MakeLast(int32_t i) const { last_.store(i, std::memory_order_relaxed); }

  /*! \brief Remember a shape that bound, when the policy covers it (or make an equal one the
   *         last). */
  void Remember(const Shape& shape) {
    if (!Remembers(shape.num_keywords)) return;
    // Known shapes are found without the lock: a caller whose keys miss the pointer compare
    // (names that are not interned) binds the same shape on every call, and then writes
    // nothing, since every thread reads last_.
    int32_t i = 0;
    for (; i < kMaxShapes; ++i) {
      const Shape* known = shapes_[i].load(std::memory_order_acquire);
      if (known == nullptr) break;
      if (Same(*known, shape)) {
        if (last() != i) MakeLast(i);
        return;
      }
    }
    if (i == kMaxShapes) return;  // full: later new shapes are bound every time
    std::lock_guard<std::mutex> lock(mu_);
    for (i = 0; i < kMaxShapes; ++i) {
      const Shape* known = shapes_[i].load(std::memory_order_relaxed);
      if (known == nullptr) {
        shapes_[i].store(new Shape(shape), std::memory_order_release);
        break;
      }
      if (Same(*known, shape)) break;
    }
    if (i < kMaxShapes && last() != i) MakeLast(i);
  }

  /*!
   * \brief Remember the shape of a call that BindSlots (binder.h) bound into `slots` (`arity`
   *        of them), when the policy covers it.
   */
  void RememberSlots(const Slot* slots, int32_t arity, int32_t nargs, int32_t num_keywords) {
    if (!Remembers(num_keywords)) return;
    Shape shape;
    shape.nargs = nargs;
    shape.num_keywords = num_keywords;
    for (int32_t i = 0; i < arity; ++i) {
      if (slots[i].is(SlotMark::kDefault)) {
        shape.defaults |= uint64_t{1} << i;
      } else if (slots[i].index() >= nargs) {
        shape.params[slots[i].index() - nargs] = i;
      }
    }
    Remember(shape);
  }

 private:
  static bool Same(const Shape& a, const Shape& b) {
    return a.nargs == b.nargs && a.num_keywords == b.num_keywords &&
           std::memcmp(a.params, b.params, sizeof(a.params)) == 0;
  }

  std::atomic<const Shape*> shapes_[kMaxShapes] = {};
  mutable std::atomic<int32_t> last_{0};
  std::mutex mu_;
  const bool fit_masks_;  // after the rest: the shapes every caller reads start the object
};

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_KEYWORD_SHAPES_H_
