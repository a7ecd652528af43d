// The KWARGS sentinel, owned by the C++ side of tvm-ffi's keyword convention (kwargs.h).
#include <kwcall/kwargs.h>

#include <vector>

namespace kwcall {
namespace kwargs_detail {

// Looked up when libkwcall loads (libtvm_ffi, which registers it, is loaded first) and never
// freed: callers may still use it while other libraries unload.
const ffi::ObjectRef* const g_kwargs_sentinel = new ffi::ObjectRef(
    ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")().cast<ffi::ObjectRef>());

void CallWithNamesMade(const ffi::Function& f, const TVMFFIAny* packed, int32_t num_packed,
                       int32_t first_key, ffi::Any* result) {
  std::vector<TVMFFIAny> args(packed, packed + num_packed);
  std::vector<ffi::String> names;
  names.reserve(num_packed / 2);
  // Only a Kw name is a byte array among the keys.
  for (int32_t i = first_key; i < num_packed; i += 2) {
    if (args[i].type_index != ffi::TypeIndex::kTVMFFIByteArrayPtr) continue;
    const auto* bytes = static_cast<const TVMFFIByteArray*>(args[i].v_ptr);
    names.emplace_back(bytes->data, bytes->size);
    const ffi::AnyView view(names.back());
    std::memcpy(&args[i], &view, sizeof(TVMFFIAny));
  }
  f.CallPacked(reinterpret_cast<const ffi::AnyView*>(args.data()), num_packed, result);
}

}  // namespace kwargs_detail
}  // namespace kwcall
