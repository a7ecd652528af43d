// A fixed-size array that lives on the stack up to kInline elements and on the heap
// beyond, so ordinary calls allocate nothing.
#ifndef KWCALL_SRC_SMALL_ARRAY_H_
#define KWCALL_SRC_SMALL_ARRAY_H_

#include <cstdint>
#include <memory>

namespace kwcall {

template <typename T, int32_t kInline = 16>
class SmallArray {
 public:
  explicit SmallArray(int32_t size)
      : heap_(size > kInline ? new T[size] : nullptr), data_(heap_ ? heap_.get() : inline_) {}
  SmallArray(const SmallArray&) = delete;
  SmallArray& operator=(const SmallArray&) = delete;

  T& operator[](int32_t i) { return data_[i]; }
  const T& operator[](int32_t i) const { return data_[i]; }
  T* data() { return data_; }

 private:
  T inline_[kInline];
  std::unique_ptr<T[]> heap_;
  T* data_;
};

}  // namespace kwcall

#endif  // KWCALL_SRC_SMALL_ARRAY_H_
