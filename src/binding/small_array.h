// A fixed-size array that lives on the stack up to kInline elements and on the heap
// beyond, so ordinary calls allocate nothing. Elements start uninitialized: callers write
// every element they read, and nothing is paid for the ones they don't use.
#ifndef KWCALL_SRC_BINDING_SMALL_ARRAY_H_
#define KWCALL_SRC_BINDING_SMALL_ARRAY_H_

#include <cstdint>
#include <memory>
#include <type_traits>

namespace kwcall {

template <typename T, int32_t kInline = 16>
class SmallArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "SmallArray holds plain values only");

 public:
  explicit SmallArray(int32_t size) {
    if (size > kInline) heap_.reset(new T[size]);
    data_ = heap_ ? heap_.get() : reinterpret_cast<T*>(inline_);
  }
  SmallArray(const SmallArray&) = delete;
  SmallArray& operator=(const SmallArray&) = delete;

  T& operator[](int32_t i) { return data_[i]; }
  const T& operator[](int32_t i) const { return data_[i]; }
  T* data() { return data_; }

 private:
  alignas(T) unsigned char inline_[kInline * sizeof(T)];
  std::unique_ptr<T[]> heap_;
  T* data_;
};

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_SMALL_ARRAY_H_
