// Nesting depth without recursion: an explicit stack for values, a counter for JSON text.
#include "nesting.h"

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>

#include <utility>
#include <vector>

namespace kwcall {

int32_t NestingDepth(const tvm::ffi::Any& value, int32_t limit) {
  namespace ffi = ::tvm::ffi;
  int32_t deepest = 0;
  std::vector<std::pair<ffi::Any, int32_t>> pending = {{value, 0}};
  while (!pending.empty()) {
    auto [item, depth] = std::move(pending.back());
    pending.pop_back();
    const int32_t index = item.type_index();
    if (index != ffi::TypeIndex::kTVMFFIArray && index != ffi::TypeIndex::kTVMFFIMap) continue;
    if (depth + 1 > limit) return limit + 1;
    deepest = std::max(deepest, depth + 1);
    if (index == ffi::TypeIndex::kTVMFFIArray) {
      for (const ffi::Any& child : item.cast<ffi::Array<ffi::Any>>()) {
        pending.emplace_back(child, depth + 1);
      }
    } else {
      for (const auto& [key, child] : item.cast<ffi::Map<ffi::Any, ffi::Any>>()) {
        pending.emplace_back(key, depth + 1);
        pending.emplace_back(child, depth + 1);
      }
    }
  }
  return deepest;
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
