// The one keyword-name lookup: which parameter a keyword names. Used by the C++ function
// object for every KWARGS call and by the Python extension for keys that are not the
// signature's own interned strings.
#ifndef KWCALL_SRC_PARAM_NAMES_H_
#define KWCALL_SRC_PARAM_NAMES_H_

#include <kwcall/signature.h>
#include <tvm/ffi/c_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace kwcall {

/*!
 * \brief A name as its length and first eight bytes, so that most compares are two integer
 *        compares: names of eight bytes or fewer need nothing else.
 */
struct NameKey {
  NameKey() = default;
  explicit NameKey(std::string_view name) : data(name.data()), size(name.size()) {
    std::memcpy(&prefix, name.data(), std::min(name.size(), sizeof(prefix)));
  }
  bool operator==(const NameKey& other) const {
    return prefix == other.prefix && size == other.size &&
           (size <= sizeof(prefix) ||
            std::memcmp(data + sizeof(prefix), other.data + sizeof(prefix),
                        size - sizeof(prefix)) == 0);
  }
  std::string_view view() const { return std::string_view(data, size); }

  /*!
   * \brief The name held by a packed argument (any tvm-ffi string kind); false for anything
   *        else. A small string holds its bytes in the 8-byte payload: no copy, no call.
   */
  static bool Read(const TVMFFIAny& value, NameKey* key) {
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "prefix masks assume little-endian");
    switch (value.type_index) {
      case kTVMFFISmallStr:
        key->data = value.v_bytes;
        key->size = value.small_str_len;
        key->prefix = key->size >= 8 ? value.v_uint64
                                     : value.v_uint64 & ((uint64_t{1} << (8 * key->size)) - 1);
        return true;
      case kTVMFFIStr: {
        const TVMFFIByteArray* bytes = TVMFFIBytesGetByteArrayPtr(value.v_obj);
        *key = NameKey(std::string_view(bytes->data, bytes->size));
        return true;
      }
      case kTVMFFIRawStr:
        *key = value.v_c_str != nullptr ? NameKey(value.v_c_str) : NameKey();
        return value.v_c_str != nullptr;
      default:
        return false;
    }
  }

  const char* data = nullptr;
  uint64_t prefix = 0;
  size_t size = 0;
};

/*! \brief A signature's parameter names, searched by keyword. */
class ParamNames {
 public:
  /*! \brief Views into `sig`, which must outlive this object. */
  explicit ParamNames(const Signature& sig) {
    keys_.reserve(sig.num_params());
    for (int32_t i = 0; i < sig.num_params(); ++i) keys_.emplace_back(sig.param_name(i));
  }

  /*!
   * \brief Index of the parameter called `name`, or -1. Keywords usually come in declaration
   *        order, so the search starts at *hint and leaves it just after the match.
   */
  int32_t Find(const NameKey& name, int32_t* hint) const {
    const int32_t n = static_cast<int32_t>(keys_.size());
    const int32_t start = *hint < n ? *hint : 0;
    for (int32_t i = start; i < n; ++i) {
      if (keys_[i] == name) return *hint = i + 1, i;
    }
    for (int32_t i = 0; i < start; ++i) {
      if (keys_[i] == name) return *hint = i + 1, i;
    }
    return -1;
  }

 private:
  std::vector<NameKey> keys_;
};

}  // namespace kwcall

#endif  // KWCALL_SRC_PARAM_NAMES_H_
