// The kwcall function object: a native forward for full-arity calls, CPython binding for
// the rest.
#include <kwcall/binder.h>
#include <kwcall/function.h>
#include <kwcall/kwargs.h>
#include <tvm/ffi/error.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "small_array.h"

namespace kwcall {
namespace {

// Reads a keyword name from a packed argument without copying; false for non-strings.
bool ReadName(const TVMFFIAny& value, std::string_view* name) {
  switch (value.type_index) {
    case ffi::TypeIndex::kTVMFFISmallStr:
      *name = std::string_view(value.v_bytes, value.small_str_len);
      return true;
    case ffi::TypeIndex::kTVMFFIStr: {
      const auto* bytes = reinterpret_cast<const TVMFFIByteArray*>(
          reinterpret_cast<const char*>(value.v_obj) + sizeof(TVMFFIObject));
      *name = std::string_view(bytes->data, bytes->size);
      return true;
    }
    case ffi::TypeIndex::kTVMFFIRawStr:
      *name = std::string_view(value.v_c_str);
      return true;
    default:
      return false;
  }
}

// A name as its length and first eight bytes, so that most compares are two integer
// compares: names of eight bytes or fewer need nothing else.
struct NameKey {
  NameKey() = default;
  explicit NameKey(std::string_view name)
      : data(name.data()), size(static_cast<uint32_t>(name.size())) {
    std::memcpy(&prefix, name.data(), std::min<size_t>(name.size(), sizeof(prefix)));
  }
  bool operator==(const NameKey& other) const {
    return prefix == other.prefix && size == other.size &&
           (size <= sizeof(prefix) ||
            std::memcmp(data + sizeof(prefix), other.data + sizeof(prefix),
                        size - sizeof(prefix)) == 0);
  }
  std::string_view view() const { return std::string_view(data, size); }

  // A keyword name from a packed argument; false for non-strings. A small string already
  // holds its bytes in the 8-byte payload: no copy, no call.
  static bool Read(const TVMFFIAny& value, NameKey* key) {
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "prefix masks assume little-endian");
    if (value.type_index == ffi::TypeIndex::kTVMFFISmallStr) {
      key->data = value.v_bytes;
      key->size = value.small_str_len;
      key->prefix =
          key->size >= 8 ? value.v_uint64 : value.v_uint64 & ((uint64_t{1} << (8 * key->size)) - 1);
      return true;
    }
    std::string_view name;
    if (!ReadName(value, &name)) return false;
    *key = NameKey(name);
    return true;
  }

  const char* data = nullptr;
  uint64_t prefix = 0;
  uint32_t size = 0;
};

// Index of the parameter called `name`, or -1. Keywords usually come in declaration order,
// so each search starts at *hint, just after the previous match.
int32_t FindParam(const std::vector<NameKey>& params, const NameKey& name, int32_t* hint) {
  const NameKey* first = params.data();
  const int32_t n = static_cast<int32_t>(params.size());
  auto found = [&](int32_t i) {
    *hint = i + 1 == n ? 0 : i + 1;
    return i;
  };
  for (int32_t i = *hint; i < n; ++i) {
    if (first[i] == name) return found(i);
  }
  for (int32_t i = 0; i < *hint; ++i) {
    if (first[i] == name) return found(i);
  }
  return -1;
}

// The keyword names of one call, for BindSlots.
class PackedKeys {
 public:
  PackedKeys(const std::vector<NameKey>& params, const NameKey* names, int32_t count)
      : params_(params), names_(names), count_(count) {}
  int32_t size() const { return count_; }
  int32_t Find(int32_t k) const { return FindParam(params_, names_[k], &hint_); }
  std::string_view Text(int32_t k) const { return names_[k].view(); }

 private:
  const std::vector<NameKey>& params_;
  const NameKey* names_;
  int32_t count_;
  mutable int32_t hint_ = 0;
};

class KwFunctionObj : public ffi::FunctionObj {
 public:
  KwFunctionObj(ffi::Function target, Signature signature)
      : target_(std::move(target)),
        signature_(std::move(signature)),
        target_obj_(target_.get()),
        target_call_(target_obj_->cpp_call ? reinterpret_cast<FCall>(target_obj_->cpp_call)
                                           : CallThroughSafeCall),
        sentinel_(KwargsSentinel().get()),
        arity_(signature_.num_params()) {
    this->safe_call = SafeCall;
    this->cpp_call = reinterpret_cast<void*>(CppCall);
    // Views into signature_, which this object keeps alive.
    for (int32_t i = 0; i < arity_; ++i) {
      param_names_.emplace_back(std::string_view(signature_.param_name(i)));
      TVMFFIAny view{};
      if (signature_.has_default(i)) {
        view = *reinterpret_cast<const TVMFFIAny*>(&signature_.default_value(i));
      }
      default_views_.push_back(view);
      if (i < kMaxFastArity) {
        all_mask_ |= uint64_t{1} << i;
        if (!signature_.has_default(i)) required_mask_ |= uint64_t{1} << i;
      }
    }
  }

  static bool Owns(const ffi::FunctionObj* f) {
    return f->cpp_call == reinterpret_cast<void*>(CppCall);
  }

  const ffi::Function& target() const { return target_; }
  const Signature& signature() const { return signature_; }

 private:
  // The hot path: a full-arity call without KWARGS is forwarded untouched.
  static void CppCall(const ffi::FunctionObj* func, const ffi::AnyView* args, int32_t num_args,
                      ffi::Any* result) {
    const auto* self = static_cast<const KwFunctionObj*>(func);
    if (TVM_FFI_PREDICT_TRUE(num_args == self->arity_) && !self->HasSentinel(args, num_args)) {
      self->target_call_(self->target_obj_, args, num_args, result);
      return;
    }
    self->BindAndCall(args, num_args, result);
  }

  // How FunctionObj::CallPacked calls a target that has no C++ entry point (a C-ABI
  // function, such as CuTeDSL's): through safe_call, rethrowing its error.
  static void CallThroughSafeCall(const ffi::FunctionObj* func, const ffi::AnyView* args,
                                  int32_t num_args, ffi::Any* result) {
    TVM_FFI_CHECK_SAFE_CALL(func->safe_call(const_cast<ffi::FunctionObj*>(func),
                                            reinterpret_cast<const TVMFFIAny*>(args), num_args,
                                            reinterpret_cast<TVMFFIAny*>(result)));
  }

  static int SafeCall(void* func, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
    TVM_FFI_SAFE_CALL_BEGIN();
    CppCall(static_cast<const ffi::FunctionObj*>(func), reinterpret_cast<const ffi::AnyView*>(args),
            num_args, reinterpret_cast<ffi::Any*>(result));
    TVM_FFI_SAFE_CALL_END();
  }

  bool HasSentinel(const ffi::AnyView* args, int32_t num_args) const {
    const auto* raw = reinterpret_cast<const TVMFFIAny*>(args);
    for (int32_t i = 0; i < num_args; ++i) {
      if (IsKwargsSentinel(raw[i], sentinel_)) return true;
    }
    return false;
  }

  void BindAndCall(const ffi::AnyView* args, int32_t num_args, ffi::Any* result) const;
  bool FastBind(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs, int32_t num_keywords,
                TVMFFIAny* bound) const;
  void BindOrThrow(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                   int32_t num_keywords, TVMFFIAny* bound) const;

  static constexpr int32_t kMaxFastArity = 64;

  ffi::Function target_;
  Signature signature_;
  const ffi::FunctionObj* target_obj_;
  FCall target_call_;  // what target_obj_->CallPacked would call, chosen once
  const void* sentinel_;
  int32_t arity_;
  std::vector<NameKey> param_names_;
  std::vector<TVMFFIAny> default_views_;  // borrowed from signature_'s defaults
  // For FastBind (signatures of at most 64 parameters): bit i is parameter i.
  uint64_t required_mask_ = 0;  // parameters without a default
  uint64_t all_mask_ = 0;
};

void KwFunctionObj::BindAndCall(const ffi::AnyView* args, int32_t num_args,
                                ffi::Any* result) const {
  const auto* raw = reinterpret_cast<const TVMFFIAny*>(args);
  int32_t nargs = 0;
  while (nargs < num_args && !IsKwargsSentinel(raw[nargs], sentinel_)) ++nargs;
  const int32_t tail = nargs < num_args ? num_args - nargs - 1 : 0;
  if (TVM_FFI_PREDICT_FALSE(tail % 2 != 0)) {
    TVM_FFI_THROW(TypeError) << signature_.name()
                             << "(): KWARGS must be followed by name/value pairs, got " << tail
                             << " values after it";
  }
  const TVMFFIAny* pairs = raw + nargs + 1;
  SmallArray<TVMFFIAny> bound(arity_);
  if (!FastBind(raw, nargs, pairs, tail / 2, bound.data())) {
    BindOrThrow(raw, nargs, pairs, tail / 2, bound.data());
  }
  target_call_(target_obj_, reinterpret_cast<const ffi::AnyView*>(bound.data()), arity_, result);
}

// One pass with a bitmask for calls that bind cleanly; false on anything else (an error,
// or a signature too wide for the mask), which BindOrThrow then handles by the full rules.
bool KwFunctionObj::FastBind(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                             int32_t num_keywords, TVMFFIAny* bound) const {
  if (arity_ > kMaxFastArity || nargs > signature_.num_positional()) return false;
  uint64_t filled = nargs == 64 ? ~uint64_t{0} : (uint64_t{1} << nargs) - 1;
  for (int32_t i = 0; i < nargs; ++i) bound[i] = raw[i];
  // Keywords name the parameters after the positional arguments, usually in order.
  int32_t hint = nargs < arity_ ? nargs : 0;
  for (int32_t k = 0; k < num_keywords; ++k) {
    NameKey name;
    if (!NameKey::Read(pairs[2 * k], &name) || IsKwargsSentinel(pairs[2 * k + 1], sentinel_)) {
      return false;
    }
    const int32_t param = FindParam(param_names_, name, &hint);
    if (param < signature_.posonly_count() || ((filled >> param) & 1)) return false;
    bound[param] = pairs[2 * k + 1];
    filled |= uint64_t{1} << param;
  }
  if (required_mask_ & ~filled) return false;
  for (uint64_t rest = all_mask_ & ~filled; rest != 0; rest &= rest - 1) {
    const int i = __builtin_ctzll(rest);
    bound[i] = default_views_[i];
  }
  return true;
}

// CPython's rules in full (binder.h): binds or throws CPython's TypeError.
void KwFunctionObj::BindOrThrow(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                                int32_t num_keywords, TVMFFIAny* bound) const {
  SmallArray<NameKey> names(num_keywords);
  for (int32_t k = 0; k < num_keywords; ++k) {
    const TVMFFIAny& key = pairs[2 * k];
    if (TVM_FFI_PREDICT_FALSE(!NameKey::Read(key, &names[k]))) {
      if (IsKwargsSentinel(key, sentinel_)) {
        TVM_FFI_THROW(TypeError) << signature_.name() << "(): the KWARGS sentinel appears twice";
      }
      TVM_FFI_THROW(TypeError) << signature_.name() << "(): keyword " << k
                               << " after KWARGS must be a string, got "
                               << reinterpret_cast<const ffi::AnyView&>(key).GetTypeKey();
    }
    if (TVM_FFI_PREDICT_FALSE(IsKwargsSentinel(pairs[2 * k + 1], sentinel_))) {
      TVM_FFI_THROW(TypeError) << signature_.name() << "(): the KWARGS sentinel cannot be the "
                               << "value of keyword '" << names[k].view() << "'";
    }
  }
  SmallArray<int32_t> slots(arity_);
  std::string error;
  if (!BindSlots(signature_, nargs, PackedKeys(param_names_, names.data(), num_keywords),
                 slots.data(), &error)) {
    TVM_FFI_THROW(TypeError) << error;
  }
  for (int32_t i = 0; i < arity_; ++i) {
    const int32_t slot = slots[i];
    if (slot == kUseDefault) {
      bound[i] = default_views_[i];
    } else if (slot < nargs) {
      bound[i] = raw[slot];
    } else {
      bound[i] = pairs[2 * (slot - nargs) + 1];
    }
  }
}

}  // namespace

namespace kwargs_detail {
// Never freed: callers may still use it while other libraries unload.
const ffi::ObjectRef* g_kwargs_sentinel = new ffi::ObjectRef(
    ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")().cast<ffi::ObjectRef>());
}  // namespace kwargs_detail

ffi::Function MakeFunction(ffi::Function target, Signature signature) {
  if (target == nullptr) {
    TVM_FFI_THROW(TypeError) << "kwcall::MakeFunction: the target function is null";
  }
  ffi::ObjectPtr<ffi::Object> obj =
      ffi::make_object<KwFunctionObj>(std::move(target), std::move(signature));
  return ffi::details::ObjectUnsafe::ObjectRefFromObjectPtr<ffi::Function>(std::move(obj));
}

std::optional<Signature> GetSignature(const ffi::Function& f) {
  if (f == nullptr || !KwFunctionObj::Owns(f.get())) return std::nullopt;
  return static_cast<const KwFunctionObj*>(f.get())->signature();
}

ffi::Optional<ffi::Function> GetTarget(const ffi::Function& f) {
  if (f == nullptr || !KwFunctionObj::Owns(f.get())) return std::nullopt;
  return static_cast<const KwFunctionObj*>(f.get())->target();
}

}  // namespace kwcall
