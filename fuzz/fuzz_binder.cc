// libFuzzer target for the C++ binder: a random signature, then random packed calls of the real
// kwcall function (around an echo target), each checked against the reference binder
// (tests/reference/reference_binder.h, written apart from src/ straight from CPython's rules,
// and shared with tests/cpp/test_reference_binder.cc). Any disagreement aborts.
//
// The input drives everything through FuzzedDataProvider: the signature (up to 90 parameters
// of every kind, with or without defaults, names of every tvm-ffi string length class), then
// calls until the input runs out: positional arguments, the KWARGS sentinel anywhere, keyword
// names in every packed form, malformed tails, and repeats of a call with other names at the
// same keyword positions (the keyword-shape cache).
#include <fuzzer/FuzzedDataProvider.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reference/reference_binder.h"

namespace kwcall {
namespace {

using reference::EchoTarget;
using reference::Expected;
using reference::Outcome;
using reference::Raw;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_binder: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Parameter names, one or more of each length class a packed name can take: up to 7 bytes
// (a small string), exactly 8 (the whole compare prefix), longer (some sharing an 8-byte
// prefix), and unicode identifiers of several byte lengths.
const std::vector<std::string>& NamePool() {
  static const std::vector<std::string> pool = [] {
    // ASCII, one space between names.
    const std::string ascii =
        "a b c k m x _ __ self alpha beta gamma alpha_7 stream0 abcdefgh alpha_88 stream_8 "
        "abcdefgh1 abcdefgh2 abcdefghij alpha_888 stream_8_long a_rather_long_parameter_name "
        "a_rather_long_parameter_namf";
    std::vector<std::string> names;
    for (size_t begin = 0, end = 0; begin < ascii.size(); begin = end + 1) {
      end = std::min(ascii.find(' ', begin), ascii.size());
      names.push_back(ascii.substr(begin, end - begin));
    }
    // Unicode identifiers (NFKC-normal) of 2, 4, 2, 6, 8, 10, 6, 12 and 16 bytes.
    for (const char* name :
         {"\u00e9", "\u00f1_x", "\u03a9", "\u03b1\u03b2\u03b3", "\u03b1\u03b2\u03b3\u03b4",
          "\u03b1\u03b2\u03b3\u03b4\u03b5", "\u53d8\u91cf", "\u540d\u524d\u3067\u3059",
          "\u043f\u0435\u0440\u0435\u043c\u0435\u043d\u043d"}) {
      names.push_back(name);
    }
    names.push_back(std::string(100, 'q'));
    names.push_back("z" + std::string(kMaxNameBytes - 1, '9'));  // the longest name allowed
    return names;
  }();
  return pool;
}

// Keywords that name no parameter but come close to some: case, one byte, a NUL byte, a cut
// UTF-8 sequence, invalid UTF-8, the empty name, one byte over the name limit.
const std::vector<std::string>& NearMisses() {
  static const std::vector<std::string> keys = {"Alpha",
                                                "alhpa",
                                                "ALPHA",
                                                "alpha_8",
                                                "abcdefgi",
                                                "",
                                                std::string("a\0", 2),
                                                std::string("al\0pha", 6),
                                                std::string("abcdefgh\0", 9),
                                                std::string("abcdefgh\0"
                                                            "1",
                                                            10),
                                                "\xff",
                                                "alpha\x80",
                                                "\xce",
                                                "\u03b1\u03b2\u03b3\xce",
                                                "\xc0\x80",
                                                std::string(101, 'q'),
                                                std::string(kMaxNameBytes + 1, 'z'),
                                                "p0\x01",
                                                "self\x7f"};
  return keys;
}

// What one packed argument is.
// kObject is a string object ("value_<id>"), kArray an object that is not a string.
enum class ItemKind { kInt, kFloat, kNone, kBool, kObject, kArray, kSentinel, kName, kNullRawStr };
constexpr int kNumItemKinds = 9;
// The packed forms of a keyword name.
enum class NameForm {
  kRawStr,       // a C string
  kSmallStr,     // a small string packed by hand (names of up to 7 bytes)
  kString,       // ffi::String(data, size): small up to 7 bytes, an object beyond
  kHeapString,   // ffi::String(std::string&&): always a string object
  kKwCStr,       // kwcall::Kw(const char*, v).name
  kKwStdString,  // kwcall::Kw(std::string, v).name
  kKwString,     // kwcall::Kw(ffi::String, v).name
};
constexpr int kNumNameForms = 7;

struct Item {
  ItemKind kind = ItemKind::kInt;
  int64_t id = 0;
  NameForm form = NameForm::kRawStr;
  std::string text;  // kName: the bytes given
  // kName forms that point at a C string: one buffer per item, reused when the item's text
  // changes, so that a repeat passes the same pointer with another name behind it.
  std::shared_ptr<std::vector<char>> buffer;
};

// Forms that are read as C strings stop at the first NUL byte (a std::string's Kw keeps all
// its bytes).
bool ReadsAsCString(NameForm form) {
  return form == NameForm::kRawStr || form == NameForm::kKwCStr;
}

std::string ObjectText(int64_t id) { return "value_" + std::to_string(id); }

// The name a string item gives as a keyword.
std::string EffectiveText(const Item& item) {
  if (item.kind == ItemKind::kObject) return ObjectText(item.id);
  if (!ReadsAsCString(item.form)) return item.text;
  return item.text.substr(0, item.text.find('\0'));
}

// The packed array of one call, with everything it points at.
struct Packed {
  std::vector<TVMFFIAny> args;
  std::deque<std::string> strings;
  std::vector<ffi::String> objects;
  std::vector<ffi::Array<ffi::Any>> arrays;
  std::deque<Kw<int64_t>> kws;  // a Kw holds its name when it copied it (below 16 bytes)
};

const char* FillBuffer(Item* item) {
  if (item->buffer == nullptr)
    item->buffer = std::make_shared<std::vector<char>>(2 * kMaxNameBytes);
  std::memcpy(item->buffer->data(), item->text.data(), item->text.size());
  (*item->buffer)[item->text.size()] = '\0';
  return item->buffer->data();
}

// The last Kw's name as a packed array holds it. A name of 8 bytes or more with a NUL byte is
// a byte array in the Kw: kwcall::Call (the kKwcallCall entry) makes a string object of these
// bytes for the call; a packed array of its own does the same.
TVMFFIAny KwNameAsPacked(Packed* packed) {
  const TVMFFIAny& name = packed->kws.back().name;
  if (name.type_index != kTVMFFIByteArrayPtr) return name;
  const auto* bytes = static_cast<const TVMFFIByteArray*>(name.v_ptr);
  packed->objects.push_back(ffi::String(bytes->data, bytes->size));
  return Raw(packed->objects.back());
}

TVMFFIAny PackName(Item* item, Packed* packed) {
  const std::string& text = item->text;
  switch (item->form) {
    case NameForm::kRawStr: {
      TVMFFIAny raw{};
      raw.type_index = kTVMFFIRawStr;
      raw.v_c_str = FillBuffer(item);
      return raw;
    }
    case NameForm::kSmallStr:
      if (text.size() < sizeof(TVMFFIAny::v_bytes)) {
        TVMFFIAny raw{};
        raw.type_index = kTVMFFISmallStr;
        raw.small_str_len = static_cast<uint32_t>(text.size());
        std::memcpy(raw.v_bytes, text.data(), text.size());
        return raw;
      }
      [[fallthrough]];
    case NameForm::kString:
      packed->objects.push_back(ffi::String(text.data(), text.size()));
      return Raw(packed->objects.back());
    case NameForm::kHeapString:
      packed->objects.push_back(ffi::String(std::string(text)));
      return Raw(packed->objects.back());
    case NameForm::kKwCStr:
      packed->kws.emplace_back(FillBuffer(item), 0);
      return packed->kws.back().name;
    case NameForm::kKwStdString:
      packed->strings.push_back(text);
      packed->kws.emplace_back(packed->strings.back(), 0);
      return KwNameAsPacked(packed);
    case NameForm::kKwString:
      packed->objects.push_back(ffi::String(text.data(), text.size()));
      packed->kws.emplace_back(packed->objects.back(), 0);
      return KwNameAsPacked(packed);
  }
  Fail("unknown name form");
}

TVMFFIAny PackItem(Item* item, Packed* packed) {
  TVMFFIAny raw{};
  switch (item->kind) {
    case ItemKind::kInt:
      raw.type_index = kTVMFFIInt;
      raw.v_int64 = item->id;
      return raw;
    case ItemKind::kFloat:
      raw.type_index = kTVMFFIFloat;
      raw.v_float64 = 0.5 + static_cast<double>(item->id);
      return raw;
    case ItemKind::kNone:
      raw.type_index = kTVMFFINone;
      return raw;
    case ItemKind::kBool:
      raw.type_index = kTVMFFIBool;
      raw.v_int64 = item->id & 1;
      return raw;
    case ItemKind::kObject:
      packed->objects.push_back(ffi::String(ObjectText(item->id)));
      return Raw(packed->objects.back());
    case ItemKind::kArray:
      packed->arrays.push_back(ffi::Array<ffi::Any>({item->id}));
      return Raw(packed->arrays.back());
    case ItemKind::kSentinel:
      return Raw(ffi::AnyView(KwargsSentinel()));
    case ItemKind::kName:
      return PackName(item, packed);
    case ItemKind::kNullRawStr:
      raw.type_index = kTVMFFIRawStr;
      raw.v_c_str = nullptr;
      return raw;
  }
  Fail("unknown item kind");
}

// ---------------------------------------------------------------------------------------------
// Running a call.

// The entry points a caller can use.
enum class Entry { kCallPacked, kSafeCall, kKwcallCall, kNullArgs, kNegativeCount };

Outcome Run(const ffi::Function& f, Entry entry, const std::vector<Item>& items,
            const std::vector<TVMFFIAny>& args) {
  Outcome out;
  try {
    switch (entry) {
      case Entry::kCallPacked:
        f.CallPacked(reinterpret_cast<const ffi::AnyView*>(args.data()),
                     static_cast<int32_t>(args.size()), &out.result);
        break;
      case Entry::kSafeCall: {
        // Through the C ABI (safe_call), with a private copy: the callee may not write to it,
        // but the C signature takes it non-const.
        std::vector<TVMFFIAny> copy = args;
        TVMFFIAny result{};
        result.type_index = kTVMFFINone;
        TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionCall(const_cast<ffi::FunctionObj*>(f.get()),
                                                   copy.empty() ? nullptr : copy.data(),
                                                   static_cast<int32_t>(copy.size()), &result));
        out.result = ffi::details::AnyUnsafe::MoveTVMFFIAnyToAny(&result);
        break;
      }
      case Entry::kKwcallCall: {
        // Only for calls of this exact shape (FitsKwcallCall): up to two integers, the
        // sentinel, one or two kwcall::Kw keywords with integer values.
        const size_t nargs = static_cast<size_t>(
            std::find_if(items.begin(), items.end(),
                         [](const Item& item) { return item.kind == ItemKind::kSentinel; }) -
            items.begin());
        const bool two = items.size() - nargs == 5;
        // Kw views a std::string or ffi::String name of 16 bytes or more: these keep them alive.
        std::deque<std::string> names;
        std::deque<ffi::String> strings;
        auto kw = [&](size_t i) {
          const Item& key = items[i];
          const int64_t value = items[i + 1].id;
          if (key.form == NameForm::kKwStdString) {
            names.push_back(key.text);
            return Kw<int64_t>(names.back(), value);
          }
          if (key.form == NameForm::kKwString) {
            strings.push_back(ffi::String(key.text.data(), key.text.size()));
            return Kw<int64_t>(strings.back(), value);
          }
          return Kw<int64_t>(key.buffer->data(), value);  // filled when the call was packed
        };
        const int64_t p0 = nargs > 0 ? items[0].id : 0;
        const int64_t p1 = nargs > 1 ? items[1].id : 0;
        if (nargs == 0) {
          out.result = two ? Call(f, kw(1), kw(3)) : Call(f, kw(1));
        } else if (nargs == 1) {
          out.result = two ? Call(f, p0, kw(2), kw(4)) : Call(f, p0, kw(2));
        } else {
          out.result = two ? Call(f, p0, p1, kw(3), kw(5)) : Call(f, p0, p1, kw(3));
        }
        break;
      }
      case Entry::kNullArgs:
        f.CallPacked(nullptr, 0, &out.result);
        break;
      case Entry::kNegativeCount:
        f.CallPacked(nullptr, -1, &out.result);
        break;
    }
    out.ok = true;
  } catch (const ffi::Error& err) {
    out.kind = err.kind();
    out.message = err.message();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Decoding the input.

ffi::Any MakeDefault(FuzzedDataProvider& in, int32_t i) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return ffi::String(std::string("a default string ") + std::to_string(i));  // an object
    case 1:
      return ffi::String("d" + std::to_string(i % 100));  // small
    case 2:
      return nullptr;
    case 3:
      return 0.25 + i;
    case 4:
      return ffi::Array<ffi::Any>({i, ffi::String("x")});
    default:
      return int64_t{300000} + i;
  }
}

std::optional<Signature> DecodeSignature(FuzzedDataProvider& in) {
  // Mostly signatures the keyword-shape cache serves (up to 16 parameters), also wide ones:
  // the heap fallback and, beyond 64, the path without bitmasks.
  const int32_t num_params = in.ConsumeIntegralInRange<int>(0, 7) == 0
                                 ? in.ConsumeIntegralInRange<int>(17, 90)
                                 : in.ConsumeIntegralInRange<int>(0, 16);
  const int32_t num_posonly = in.ConsumeIntegralInRange<int>(0, num_params);
  const int32_t num_positional = in.ConsumeIntegralInRange<int>(num_posonly, num_params);
  const int32_t first_default = in.ConsumeIntegralInRange<int>(0, num_positional);
  const std::vector<std::string>& pool = NamePool();
  std::vector<Param> params;
  std::vector<bool> used(pool.size());
  for (int32_t i = 0; i < num_params; ++i) {
    Param param;
    const size_t pick = in.ConsumeIntegralInRange<size_t>(0, pool.size() + 3);
    if (pick < pool.size() && !used[pick]) {
      used[pick] = true;
      param.name = pool[pick];
    } else {
      param.name = "p" + std::to_string(i);  // no pool name looks like this
    }
    param.kind = i < num_posonly      ? ParamKind::kPositionalOnly
                 : i < num_positional ? ParamKind::kPositionalOrKeyword
                                      : ParamKind::kKeywordOnly;
    const bool with_default = i < num_positional ? i >= first_default : in.ConsumeBool();
    if (with_default) param.default_value = MakeDefault(in, i);
    param.unpack = in.ConsumeIntegralInRange<int>(0, 7) == 0;
    params.push_back(std::move(param));
  }
  static const char* const kNames[] = {"", "f", "kernel", "\u51fd\u6570",
                                       "a_display_name_of_some_length"};
  const std::string name = kNames[in.ConsumeIntegralInRange<int>(0, 4)];
  try {
    return Signature::Make(name, std::move(params));
  } catch (const ffi::Error& err) {
    Fail(std::string("a valid signature was refused: ") + err.what());
  }
}

std::string KeyText(FuzzedDataProvider& in, const Signature& sig, int32_t preferred) {
  const int32_t num_params = sig.num_params();
  std::string name;
  if (num_params > 0) {
    name = sig.param_name(preferred >= 0 ? preferred
                                         : in.ConsumeIntegralInRange<int>(0, num_params - 1));
  }
  const int choice = in.ConsumeIntegralInRange<int>(0, 15);
  if (num_params == 0 || choice == 10) {
    return NamePool()[in.ConsumeIntegralInRange<size_t>(0, NamePool().size() - 1)];
  }
  switch (choice) {
    case 11:
      return NearMisses()[in.ConsumeIntegralInRange<size_t>(0, NearMisses().size() - 1)];
    case 12:  // a NUL byte and more after the name
      return name + std::string(1, '\0') + in.ConsumeBytesAsString(2);
    case 13:  // the last byte changed
      name.back() = static_cast<char>(name.back() + in.ConsumeIntegralInRange<int>(1, 255));
      return name;
    case 14:  // one byte short (cuts a multi-byte character)
      name.pop_back();
      return name;
    case 15:  // arbitrary bytes
      return in.ConsumeRandomLengthString(24);
    default:
      return name;
  }
}

Item NameItem(FuzzedDataProvider& in, std::string text) {
  Item item;
  item.kind = ItemKind::kName;
  item.form = static_cast<NameForm>(in.ConsumeIntegralInRange<int>(0, kNumNameForms - 1));
  item.text = std::move(text);
  return item;
}

Item OtherItem(FuzzedDataProvider& in, int64_t id) {
  Item item;
  item.id = id;
  item.kind = static_cast<ItemKind>(in.ConsumeIntegralInRange<int>(0, kNumItemKinds - 1));
  if (item.kind == ItemKind::kName) item = NameItem(in, in.ConsumeRandomLengthString(12));
  return item;
}

// A call: mostly well-formed keyword calls (so that binding succeeds often enough to reach the
// cache), with malformations mixed in.
std::vector<Item> DecodeCall(FuzzedDataProvider& in, const Signature& sig, int64_t* next_id) {
  const int32_t num_params = sig.num_params();
  const bool planned = in.ConsumeBool();
  int32_t nargs;
  std::vector<int32_t> plan;  // the parameter each keyword names
  if (planned) {
    // Enough positional arguments for the required positional-only parameters, then a
    // keyword for every other required parameter and some optional ones, in some order.
    int32_t required_posonly = 0;
    while (required_posonly < sig.posonly_count() && !sig.has_default(required_posonly)) {
      ++required_posonly;
    }
    nargs = in.ConsumeIntegralInRange<int>(required_posonly, sig.num_positional());
    for (int32_t i = std::max(nargs, sig.posonly_count()); i < num_params; ++i) {
      if (!sig.has_default(i) || in.ConsumeBool()) plan.push_back(i);
    }
    for (size_t i = plan.size(); i > 1; --i) {
      std::swap(plan[i - 1], plan[in.ConsumeIntegralInRange<size_t>(0, i - 1)]);
    }
  } else {
    nargs = in.ConsumeIntegralInRange<int>(0, num_params + 2);
    plan.assign(in.ConsumeIntegralInRange<int>(0, std::min(num_params + 2, 96)), -1);
  }
  std::vector<Item> items;
  for (int32_t i = 0; i < nargs; ++i) {
    Item item;
    item.id = (*next_id)++;
    if (in.ConsumeIntegralInRange<int>(0, 31) == 0) item = OtherItem(in, item.id);
    items.push_back(item);
  }
  if (!plan.empty() || in.ConsumeBool()) {
    Item sentinel;
    sentinel.kind = ItemKind::kSentinel;
    items.push_back(sentinel);
  }
  for (int32_t param : plan) {
    if (in.ConsumeIntegralInRange<int>(0, 31) == 0) {
      items.push_back(OtherItem(in, (*next_id)++));  // a key that is not a string
    } else {
      items.push_back(
          NameItem(in, KeyText(in, sig, in.ConsumeIntegralInRange<int>(0, 7) ? param : -1)));
    }
    Item value;
    value.id = (*next_id)++;
    if (in.ConsumeIntegralInRange<int>(0, 31) == 0) value = OtherItem(in, value.id);
    items.push_back(value);
  }
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0:  // an odd tail
      items.push_back(NameItem(in, KeyText(in, sig, -1)));
      break;
    case 1: {  // a sentinel inserted anywhere
      Item sentinel;
      sentinel.kind = ItemKind::kSentinel;
      items.insert(items.begin() + in.ConsumeIntegralInRange<size_t>(0, items.size()), sentinel);
      break;
    }
    case 2:  // an item replaced by the sentinel
      if (!items.empty()) {
        items[in.ConsumeIntegralInRange<size_t>(0, items.size() - 1)] = Item{ItemKind::kSentinel};
      }
      break;
    default:
      break;
  }
  return items;
}

// A null C string is only meaningful where it is refused (a key after the sentinel); anywhere
// else the target would receive it, which no caller may do.
void KeepNullStringsInKeyPositions(std::vector<Item>* items) {
  size_t split = items->size();
  for (size_t i = 0; i < items->size(); ++i) {
    if ((*items)[i].kind == ItemKind::kSentinel) {
      split = i;
      break;
    }
  }
  for (size_t i = 0; i < items->size(); ++i) {
    const bool key_position = i > split && (i - split) % 2 == 1;
    if ((*items)[i].kind == ItemKind::kNullRawStr && !key_position)
      (*items)[i].kind = ItemKind::kInt;
  }
}

// Whether kwcall::Call can make exactly this call.
bool FitsKwcallCall(const std::vector<Item>& items) {
  for (size_t nargs = 0; nargs <= 2; ++nargs) {
    for (size_t keywords = 1; keywords <= 2; ++keywords) {
      if (items.size() != nargs + 1 + 2 * keywords) continue;
      bool fits = items[nargs].kind == ItemKind::kSentinel;
      for (size_t i = 0; i < nargs; ++i) fits = fits && items[i].kind == ItemKind::kInt;
      for (size_t i = nargs + 1; i < items.size(); i += 2) {
        const NameForm form = items[i].form;
        fits = fits && items[i].kind == ItemKind::kName && items[i + 1].kind == ItemKind::kInt &&
               (form == NameForm::kKwCStr || form == NameForm::kKwStdString ||
                form == NameForm::kKwString);
      }
      if (fits) return true;
    }
  }
  return false;
}

// Bytes as they can be printed: others as \xNN.
std::string Escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

void CheckCall(const Signature& sig, const ffi::Function& f, Entry entry,
               std::vector<Item>* items) {
  if (entry == Entry::kNullArgs || entry == Entry::kNegativeCount) items->clear();
  if (entry == Entry::kKwcallCall && !FitsKwcallCall(*items)) entry = Entry::kCallPacked;
  Packed packed;
  for (Item& item : *items) packed.args.push_back(PackItem(&item, &packed));
  const int64_t count = entry == Entry::kNegativeCount ? -1 : static_cast<int64_t>(items->size());
  // The reference reads keys from the packed array: each must hold the name the item gives
  // (kwcall::Kw packs some of them).
  for (size_t i = 0; i < items->size(); ++i) {
    const Item& item = (*items)[i];
    if (item.kind != ItemKind::kName && item.kind != ItemKind::kObject) continue;
    if (reference::StringText(packed.args[i]) != EffectiveText(item)) {
      Fail("name form " + std::to_string(static_cast<int>(item.form)) + " packed '" +
           Escape(reference::StringText(packed.args[i]).value_or("(not a string)")) + "' for '" +
           Escape(EffectiveText(item)) + "'");
    }
  }
  const Expected want = reference::Bind(sig, packed.args.data(), count);
  const Outcome got = Run(f, entry, *items, packed.args);
  if (!reference::Matches(sig, want, got)) {
    std::string call;
    for (const Item& item : *items) {
      call += "[" + std::to_string(static_cast<int>(item.kind));
      if (item.kind == ItemKind::kName) {
        call +=
            " form " + std::to_string(static_cast<int>(item.form)) + " '" + Escape(item.text) + "'";
      } else {
        call += " " + std::to_string(item.id);
      }
      call += "] ";
    }
    Fail("mismatch\n  signature: " + Escape(reference::DescribeSignature(sig)) +
         "\n  call: " + call + "\n  entry: " + std::to_string(static_cast<int>(entry)) +
         "\n  want: " + Escape(reference::Describe(want)) +
         "\n  got:  " + Escape(reference::Describe(got)));
  }
}

// The same, as a C-ABI function (as CuTeDSL's are): kwcall calls it through safe_call.
int EchoSafeCall(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  ffi::Array<ffi::Any> out;
  for (int32_t i = 0; i < num_args; ++i)
    out.push_back(reinterpret_cast<const ffi::AnyView*>(args)[i]);
  *reinterpret_cast<ffi::Any*>(result) = out;
  TVM_FFI_SAFE_CALL_END();
}

}  // namespace
}  // namespace kwcall

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Every pool name must make a valid parameter, or the fuzzer tests nothing it claims to.
  for (const std::string& name : kwcall::NamePool()) {
    try {
      kwcall::SignatureBuilder("pool").Param(name).Build();
    } catch (const tvm::ffi::Error& err) {
      kwcall::Fail("pool name refused: " + name + ": " + err.what());
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kwcall;  // NOLINT(build/namespaces)
  FuzzedDataProvider in(data, size);
  SetKeywordSuggestions(in.ConsumeBool());
  std::optional<Signature> sig = DecodeSignature(in);
  ffi::Function target =
      in.ConsumeBool() ? EchoTarget() : ffi::Function::FromExternC(nullptr, EchoSafeCall, nullptr);
  ffi::Function f = MakeFunction(target, *sig);
  int64_t next_id = 100000;
  for (int calls = 0; calls < 64 && in.remaining_bytes() > 0; ++calls) {
    std::vector<Item> items = DecodeCall(in, *sig, &next_id);
    KeepNullStringsInKeyPositions(&items);
    // Mostly the three ways to make a call; now and then no array at all, or a bad count.
    const int pick = in.ConsumeIntegralInRange<int>(0, 15);
    const Entry entry = pick < 14    ? static_cast<Entry>(pick % 3)
                        : pick == 14 ? Entry::kNullArgs
                                     : Entry::kNegativeCount;
    CheckCall(*sig, f, entry, &items);
    // Repeats with other names at the same keyword positions, the same C string buffers
    // included: the keyword-shape cache must check every name again.
    for (int repeat = in.ConsumeIntegralInRange<int>(0, 3); repeat > 0 && !items.empty();
         --repeat) {
      Item& item = items[in.ConsumeIntegralInRange<size_t>(0, items.size() - 1)];
      if (item.kind == ItemKind::kName) item.text = KeyText(in, *sig, -1);
      CheckCall(*sig, f, entry, &items);
    }
  }
  return 0;
}
