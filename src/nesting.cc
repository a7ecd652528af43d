// Nesting depth and element counts without recursion: an explicit stack for values, a counter
// for JSON text.
#include "nesting.h"

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace kwcall {

NestingSize NestingDepth(const tvm::ffi::Any& value, int32_t depth_limit, int64_t element_limit) {
  namespace ffi = ::tvm::ffi;
  NestingSize size;
  // Not built from an initializer list: GCC 12 then warns, wrongly, when LTO inlines this
  // (-Wfree-nonheap-object on the vector's storage).
  std::vector<std::pair<ffi::Any, int32_t>> pending;
  pending.emplace_back(value, 0);
  while (!pending.empty()) {
    auto [item, depth] = std::move(pending.back());
    pending.pop_back();
    const int32_t index = item.type_index();
    if (index != ffi::TypeIndex::kTVMFFIArray && index != ffi::TypeIndex::kTVMFFIMap) continue;
    if (depth + 1 > depth_limit) {
      size.depth = depth_limit + 1;
      return size;
    }
    size.depth = std::max(size.depth, depth + 1);
    if (index == ffi::TypeIndex::kTVMFFIArray) {
      auto items = item.cast<ffi::Array<ffi::Any>>();
      size.elements += static_cast<int64_t>(items.size());
      if (size.elements > element_limit) break;
      for (const ffi::Any& child : items) pending.emplace_back(child, depth + 1);
    } else {
      auto entries = item.cast<ffi::Map<ffi::Any, ffi::Any>>();
      size.elements += static_cast<int64_t>(entries.size());
      if (size.elements > element_limit) break;
      for (const auto& [key, child] : entries) {
        pending.emplace_back(key, depth + 1);
        pending.emplace_back(child, depth + 1);
      }
    }
  }
  if (size.elements > element_limit) size.elements = element_limit + 1;
  return size;
}

int32_t JsonNestingDepth(std::string_view json, int32_t limit) {
  int32_t depth = 0;
  int32_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return limit + 1;
      deepest = std::max(deepest, depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace kwcall
