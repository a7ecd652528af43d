// The one keyword-name lookup: which parameter a keyword names. Used by the C++ function
// object for every KWARGS call and by the Python extension for keys that are not the
// signature's own interned strings.
#ifndef KWCALL_SRC_BINDING_PARAM_NAMES_H_
#define KWCALL_SRC_BINDING_PARAM_NAMES_H_

#include <kwcall/kwargs.h>
#include <kwcall/signature.h>
#include <tvm/ffi/c_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "binding/lookup_and_slot.h"

namespace kwcall {

/*!
 * \brief A name as its length and first eight bytes, so that most compares are one or two
 *        integer compares: names of eight bytes or fewer need nothing else.
 */
struct NameKey {
  NameKey() = default;
  explicit NameKey(std::string_view name) : data(name.data()), size(name.size()) {
    std::memcpy(&prefix, name.data(), std::min(name.size(), sizeof(prefix)));
  }
  std::string_view view() const { return std::string_view(data, size); }

  /*!
   * \brief The name held by a packed argument (any tvm-ffi string kind); false for anything
   *        else. A small string holds its bytes in the 8-byte payload: no copy, no call.
   */
  static bool Read(const TVMFFIAny& value, NameKey* key) {
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "prefix masks assume little-endian");
    if (value.type_index == kTVMFFISmallStr) {
      key->data = value.v_bytes;
      key->size = value.small_str_len;
      key->prefix =
          key->size >= 8 ? value.v_uint64 : value.v_uint64 & ((uint64_t{1} << (8 * key->size)) - 1);
      return true;
    }
    if (value.type_index == kTVMFFIStr) {
      const TVMFFIByteArray* bytes = TVMFFIBytesGetByteArrayPtr(value.v_obj);
      *key = NameKey(std::string_view(bytes->data, bytes->size));
      return true;
    }
    if (value.type_index == kTVMFFIRawStr && value.v_c_str != nullptr) {
      // A C string literal, as generic tvm-ffi callers pass names: the prefix and the length
      // in one scan of the short names keywords have.
      const char* text = value.v_c_str;
      uint64_t prefix = 0;
      size_t size = 0;
      while (size < sizeof(prefix) && text[size] != '\0') {
        prefix |= uint64_t{static_cast<unsigned char>(text[size])} << (8 * size);
        ++size;
      }
      if (size == sizeof(prefix)) size += std::strlen(text + size);
      key->data = text;
      key->prefix = prefix;
      key->size = size;
      return true;
    }
    return false;
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
    for (int32_t i = 0; i < sig.num_params(); ++i) {
      NameKey key(sig.param_name(i));
      tags_.push_back(Tag(key));
      names_.push_back(key);
      packed_.push_back(PackedSmallStr(key));
    }
  }

  /*!
   * \brief Whether the packed key `key` is parameter `param`'s name as tvm-ffi and kwcall::Kw
   *        pack a name of fewer than 8 bytes: a small string, its unused bytes zero. Two word
   *        compares; false tells nothing (the key may still name `param` in another form).
   */
  bool IsPackedForm(int32_t param, const TVMFFIAny& key) const {
    uint64_t words[2];
    std::memcpy(words, &key, sizeof(words));
    return words[0] == packed_[param].words[0] && words[1] == packed_[param].words[1];
  }

  /*!
   * \brief The parameter called `name`, or Lookup::kNoParam. Keywords usually come in declaration
   *        order, so the search starts at *hint and leaves it just after the match.
   */
  ParamLookup Find(const NameKey& name, int32_t* hint) const {
    const uint64_t tag = Tag(name);
    const uint64_t* tags = tags_.data();
    const int32_t n = static_cast<int32_t>(tags_.size());
    const int32_t start = *hint < n ? *hint : 0;
    const bool short_name = name.size < sizeof(name.prefix);
    for (int32_t i = start; i < n; ++i) {
      if (tags[i] == tag && (short_name || Same(names_[i], name))) return Found(i, hint);
    }
    for (int32_t i = 0; i < start; ++i) {
      if (tags[i] == tag && (short_name || Same(names_[i], name))) return Found(i, hint);
    }
    return Lookup::kNoParam;
  }

  /*! \brief Whether `name` is parameter `param`'s name. */
  bool Is(int32_t param, const NameKey& name) const {
    // A tag holds all of a name shorter than eight bytes, and no identifier byte is below
    // 8, so equal tags of a short key mean equal names.
    return tags_[param] == Tag(name) &&
           (name.size < sizeof(name.prefix) || Same(names_[param], name));
  }

 private:
  static ParamLookup Found(int32_t i, int32_t* hint) {
    *hint = i + 1;
    return ParamLookup::Index(i);
  }
  // The prefix, with the length in the top byte when the name is shorter than eight bytes
  // (whose top byte is then free): one compare tells most names apart.
  static uint64_t Tag(const NameKey& key) {
    return key.size < sizeof(key.prefix) ? key.prefix | (uint64_t{key.size} << 56) : key.prefix;
  }
  static bool Same(const NameKey& a, const NameKey& b) {
    return a.size == b.size && (a.size <= sizeof(a.prefix) ||
                                std::memcmp(a.data + sizeof(a.prefix), b.data + sizeof(b.prefix),
                                            a.size - sizeof(a.prefix)) == 0);
  }

  // A name's packed small string, as two words: the type index and length, then the bytes.
  struct PackedWords {
    uint64_t words[2];
  };
  static PackedWords PackedSmallStr(const NameKey& key) {
    if (key.size >= sizeof(key.prefix)) {
      // A name of 8 bytes or more has no such form: a length no small string has.
      return {{uint64_t{kTVMFFISmallStr} | (uint64_t{UINT32_MAX} << 32), key.prefix}};
    }
    // Made as kwcall::Kw makes it, so the two cannot disagree.
    const TVMFFIAny packed = kwargs_detail::SmallStrWords(
        key.data, key.size, std::make_index_sequence<sizeof(key.prefix) - 1>());
    PackedWords words;
    std::memcpy(words.words, &packed, sizeof(words.words));
    return words;
  }

  std::vector<uint64_t> tags_;
  std::vector<NameKey> names_;
  std::vector<PackedWords> packed_;
};

/*!
 * \brief The keyword names of one call (or call site), as BindSlots (binder.h) reads them:
 *        the C++ front end's Keys.
 */
class KeywordNames {
 public:
  /*! \brief Views `names` (`count` of them) and `params`, which must outlive this object. */
  KeywordNames(const ParamNames& params, const NameKey* names, int32_t count)
      : params_(params), names_(names), count_(count) {}
  int32_t size() const { return count_; }
  ParamLookup Find(int32_t k) const { return params_.Find(names_[k], &hint_); }
  int Names(int32_t k, int32_t param) const { return params_.Is(param, names_[k]) ? 1 : 0; }
  // A C++ key is its text: shown as it is, and never fails.
  bool Shown(int32_t k, std::string_view* text) const {
    *text = Text(k);
    return true;
  }
  std::string_view Text(int32_t k) const { return names_[k].view(); }

 private:
  const ParamNames& params_;
  const NameKey* names_;
  int32_t count_;
  mutable int32_t hint_ = 0;
};

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_PARAM_NAMES_H_
