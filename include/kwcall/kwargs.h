/*!
 * \file kwcall/kwargs.h
 * \brief tvm-ffi's KWARGS packed-call convention, from C++.
 *
 * A keyword call is the packed argument list `[pos..., KWARGS, "k0", v0, "k1", v1, ...]`,
 * where KWARGS is the sentinel object returned by the global `ffi.GetKwargsObject`
 * (Python: `tvm_ffi.core.KWARGS`). tvm-ffi has no C++ helper for it; this is one:
 *
 *   ffi::Any out = kwcall::Call(f, x, y, kwcall::Kw("alpha", 2.0), kwcall::Kw("beta", 1));
 *
 * works for any function that understands KWARGS (kwcall functions, tvm-ffi dataclass
 * constructors).
 */
#ifndef KWCALL_KWARGS_H_
#define KWCALL_KWARGS_H_

#include <kwcall/visibility.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace kwcall {

namespace ffi = ::tvm::ffi;

namespace kwargs_detail {
// Defined in src/kwargs.cc: looked up once, when libkwcall loads (after libtvm_ffi, which
// registers it). Kept here so that Call packs it without a function call.
KWCALL_API extern const ffi::ObjectRef* const g_kwargs_sentinel;
}  // namespace kwargs_detail

/*! \brief The KWARGS sentinel object (`ffi.GetKwargsObject()`, Python's `tvm_ffi.core.KWARGS`). */
inline const ffi::ObjectRef& KwargsSentinel() { return *kwargs_detail::g_kwargs_sentinel; }

namespace kwargs_detail {
// The sentinel as a packed argument (a plain ffi.Object), without reading its header.
inline TVMFFIAny SentinelView() {
  TVMFFIAny view{};
  view.type_index = ffi::TypeIndex::kTVMFFIObject;
  view.v_obj =
      const_cast<TVMFFIObject*>(reinterpret_cast<const TVMFFIObject*>(g_kwargs_sentinel->get()));
  return view;
}

/*!
 * \brief Copy one packed argument as two 8-byte words. Packed arguments are written as two
 *        8-byte stores (type, then value); one 16-byte load across two such stores cannot take
 *        their values from the store buffer and waits for them to reach the cache (a stall of
 *        about a call's length), where two 8-byte loads can. The builtin, not std::memcpy:
 *        with _FORTIFY_SOURCE (on by default in Ubuntu's GCC), a copy into an array at an index
 *        known only at run time becomes a call of __memcpy_chk.
 */
[[gnu::always_inline]] inline void CopyWords(TVMFFIAny* dst, const TVMFFIAny& src) {
  uint64_t words[2];
  __builtin_memcpy(words, &src, sizeof(words));
  asm("" : "+r"(words[0]), "+r"(words[1]));  // two scalar loads, not one vector load
  __builtin_memcpy(dst, words, sizeof(words));
}

/*!
 * \brief A name of fewer than 8 bytes as a packed small string, made of two 8-byte words (the
 *        type and length, the bytes) computed in registers: for a string literal, two
 *        constants.
 */
template <size_t... I>
[[gnu::always_inline]] inline TVMFFIAny SmallStrWords(const char* data, size_t size,
                                                      std::index_sequence<I...>) {
  static_assert(offsetof(TVMFFIAny, small_str_len) == 4 && offsetof(TVMFFIAny, v_uint64) == 8 &&
                    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "a packed small string is its type index, its length, then its bytes");
  // Each byte read only below `size`; written out rather than a loop, which -O2 may not unroll.
  const uint64_t words[2] = {
      static_cast<uint64_t>(ffi::TypeIndex::kTVMFFISmallStr) | (uint64_t{size} << 32),
      (uint64_t{0} | ... |
       (I < size ? uint64_t{static_cast<unsigned char>(data[I])} << (8 * I) : uint64_t{0}))};
  TVMFFIAny any;
  std::memcpy(&any, words, sizeof(any));
  return any;
}
}  // namespace kwargs_detail

/*!
 * \brief One keyword argument, a name and a value (held by value), for kwcall::Call.
 *
 * Names shorter than 16 bytes are copied into the Kw; a longer name is viewed, not copied:
 * its bytes must stay alive and unchanged until the call returns, as a string literal's or a
 * named string's do. A temporary std::string or ffi::String would be gone before the call,
 * so those forms do not compile. A name is its bytes: a std::string's or ffi::String's
 * length counts, embedded NUL bytes included (such a name is no parameter's, and the call
 * fails naming it).
 *
 * A Kw has no destructor to run: one that owned a string object kept the compiler from
 * holding the name in registers across the call, and made each keyword cost nanoseconds.
 */
template <typename T>
struct Kw {
  Kw(const char* name, T value) : Kw(std::string_view(name), name, std::move(value)) {}
  Kw(const std::string& name, T value)
      : Kw(std::string_view(name), name.c_str(), std::move(value)) {}
  Kw(const ffi::String& name, T value)
      : Kw(std::string_view(name.data(), name.size()), name.c_str(), std::move(value)) {}
  // Rvalue strings (const or not) bind here rather than above: refused at compile time.
  Kw(const std::string&& name, T value) = delete;
  Kw(const ffi::String&& name, T value) = delete;
  Kw(const Kw& other) : name(other.name), value(other.value) { CopyText(other); }
  Kw(Kw&& other) : name(other.name), value(std::move(other.value)) { CopyText(other); }
  Kw& operator=(const Kw& other) {
    if (this != &other) {
      name = other.name;
      value = other.value;
      CopyText(other);
    }
    return *this;
  }
  Kw& operator=(Kw&& other) {
    if (this != &other) {
      name = other.name;
      value = std::move(other.value);
      CopyText(other);
    }
    return *this;
  }

  /*!
   * \brief The name as a packed string: inline when shorter than 8 bytes, so binding reads no
   *        memory; a C string in this Kw up to 15 bytes; the caller's bytes beyond. A name of
   *        8 bytes or more with a NUL byte is a byte array here, which kwcall::Call makes a
   *        string object for (no C string holds it).
   */
  TVMFFIAny name;
  T value;

 private:
  // A name of this many bytes or more is viewed; a shorter one is copied.
  static constexpr size_t kCopiedBelow = 16;

  Kw(std::string_view text, const char* c_str, T value) : value(std::move(value)) {
    if (text.size() < sizeof(name.v_bytes)) {
      name = kwargs_detail::SmallStrWords(text.data(), text.size(),
                                          std::make_index_sequence<sizeof(name.v_bytes) - 1>());
    } else if (std::memchr(text.data(), '\0', text.size()) != nullptr) {
      bytes_ = TVMFFIByteArray{text.data(), text.size()};
      name = TVMFFIAny{};
      name.type_index = ffi::TypeIndex::kTVMFFIByteArrayPtr;
      name.v_ptr = &bytes_;
    } else if (text.size() < kCopiedBelow) {
      std::memset(text_, 0, sizeof(text_));  // the terminator, and nothing uninitialized
      std::memcpy(text_, text.data(), text.size());
      name = TVMFFIAny{};
      name.type_index = ffi::TypeIndex::kTVMFFIRawStr;
      name.v_c_str = text_;
    } else {
      name = TVMFFIAny{};
      name.type_index = ffi::TypeIndex::kTVMFFIRawStr;
      name.v_c_str = c_str;
    }
  }
  // After `name` was copied from `other`'s: a name `other` points into itself for points
  // into this Kw instead.
  void CopyText(const Kw& other) {
    if (name.type_index == ffi::TypeIndex::kTVMFFIRawStr && name.v_c_str == other.text_) {
      std::memcpy(text_, other.text_, sizeof(text_));
      name.v_c_str = text_;
    } else if (name.type_index == ffi::TypeIndex::kTVMFFIByteArrayPtr &&
               name.v_ptr == &other.bytes_) {
      bytes_ = other.bytes_;
      name.v_ptr = &bytes_;
    }
  }

  union {
    char text_[kCopiedBelow];  // a copied name of 8 to 15 bytes, NUL-terminated
    TVMFFIByteArray bytes_;    // the caller's bytes of a name with a NUL byte
  };
};
template <typename T>
Kw(const char*, T) -> Kw<T>;
template <typename T>
Kw(const std::string&, T) -> Kw<T>;
template <typename T>
Kw(const ffi::String&, T) -> Kw<T>;

namespace kwargs_detail {
template <typename T>
struct IsKw : std::false_type {};
template <typename T>
struct IsKw<Kw<T>> : std::true_type {};
template <typename T>
inline constexpr bool kIsKw = IsKw<std::decay_t<T>>::value;

// True when no positional argument follows a keyword one, as in Python call syntax.
template <typename... Args>
constexpr bool KeywordsLast() {
  bool seen_keyword = false;
  bool ok = true;
  ((kIsKw<Args> ? (seen_keyword = true) : (ok = ok && !seen_keyword)), ...);
  return ok;
}

// Calls f with the keys (every other slot from `first_key`) that are byte arrays, Kw names of
// 8 bytes or more with a NUL byte, made string objects held for the call. Defined in
// src/kwargs.cc: off every caller's inlined path, which tests one type index per name.
KWCALL_API void CallWithNamesMade(const ffi::Function& f, const TVMFFIAny* packed,
                                  int32_t num_packed, int32_t first_key, ffi::Any* result);
}  // namespace kwargs_detail

namespace kwargs_detail {
// One argument of a call with kNumPositional positional arguments, stored in its slot: a
// positional one at I, keyword j = I - kNumPositional as its name at kNumPositional + 1 + 2j and
// its value after it. Every slot is a constant, so each store goes straight to the array.
// Returns whether the argument is a Kw whose name kwcall::Call must make a string for.
template <size_t I, size_t kNumPositional, typename Arg>
[[gnu::always_inline]] inline bool Pack(TVMFFIAny* packed, const Arg& arg) {
  if constexpr (kIsKw<Arg>) {
    constexpr size_t kName = kNumPositional + 1 + 2 * (I - kNumPositional);
    CopyWords(&packed[kName], arg.name);
    const ffi::AnyView value(arg.value);
    packed[kName + 1] = reinterpret_cast<const TVMFFIAny&>(value);
    return arg.name.type_index == ffi::TypeIndex::kTVMFFIByteArrayPtr;
  } else {
    const ffi::AnyView value(arg);
    packed[I] = reinterpret_cast<const TVMFFIAny&>(value);
    return false;
  }
}

// Every argument and, before the keywords, the sentinel; whether a name must be made.
template <size_t kNumPositional, size_t... I, typename... Args>
[[gnu::always_inline]] inline bool PackAll(TVMFFIAny* packed, std::index_sequence<I...>,
                                           const Args&... args) {
  if constexpr (sizeof...(Args) > kNumPositional) packed[kNumPositional] = SentinelView();
  return (false | ... | Pack<I, kNumPositional>(packed, args));
}
}  // namespace kwargs_detail

/*!
 * \brief Call `f` with positional arguments followed by kwcall::Kw keyword arguments,
 *        packed in tvm-ffi's KWARGS convention. No heap allocation. Always inlined: the
 *        names and values are then stored straight into the packed array, with no frame or
 *        PLT call of its own in the caller.
 */
template <typename... Args>
[[gnu::always_inline]] inline ffi::Any Call(const ffi::Function& f, Args&&... args) {
  static_assert(kwargs_detail::KeywordsLast<Args...>(),
                "kwcall::Call: positional arguments must come before kwcall::Kw arguments");
  constexpr size_t kNumKeywords = (size_t{0} + ... + (kwargs_detail::kIsKw<Args> ? 1 : 0));
  constexpr size_t kNumPositional = sizeof...(Args) - kNumKeywords;
  constexpr size_t kNumPacked =
      sizeof...(Args) + kNumKeywords + (kNumKeywords ? 1 : 0);  // name + sentinel
  // Raw slots, each written once: AnyView's constructor would zero them first.
  TVMFFIAny packed[kNumPacked == 0 ? 1 : kNumPacked];
  // Known false at compile time for names given as literals.
  const bool names_to_make =
      kwargs_detail::PackAll<kNumPositional>(packed, std::index_sequence_for<Args...>(), args...);
  ffi::Any result;
  if (names_to_make) {
    constexpr auto kFirstKey = static_cast<int32_t>(kNumPositional + 1);
    kwargs_detail::CallWithNamesMade(f, packed, static_cast<int32_t>(kNumPacked), kFirstKey,
                                     &result);
  } else {
    f.CallPacked(reinterpret_cast<const ffi::AnyView*>(packed), static_cast<int32_t>(kNumPacked),
                 &result);
  }
  return result;
}

}  // namespace kwcall

#endif  // KWCALL_KWARGS_H_
