// A table's key: resolving its terms, keys given as values (checked, made canonical), keys as
// values for key_of and compile, and the errors of terms that do not fit their argument
// (key_reader.h).
#include "dispatch/key_reader.h"

#include <tvm/ffi/any.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <sstream>

#include "dispatch/key_values.h"

namespace kwcall {

KeyReader::KeyReader(std::string table_name, std::vector<KeyTerm> terms, const Signature& signature)
    : table_name_(std::move(table_name)), terms_(std::move(terms)) {
  if (terms_.size() > static_cast<size_t>(kMaxKeyTerms)) {
    TVM_FFI_THROW(ValueError) << "kwcall.DispatchTable '" << table_name_ << "': a key has at most "
                              << kMaxKeyTerms << " terms, got " << terms_.size();
  }
  for (int32_t i = 0; i < signature.num_params(); ++i) {
    param_names_.push_back(signature.param_name(i));
  }
  for (const KeyTerm& term : terms_) {
    KeyTermName(term.kind);  // a kind no term has: a ValueError
    CheckTermNumbers(term);
    auto found = std::find(param_names_.begin(), param_names_.end(), term.param);
    if (found == param_names_.end()) {
      TVM_FFI_THROW(ValueError) << "kwcall.DispatchTable '" << table_name_ << "': key term "
                                << term.ToString() << " reads parameter '" << term.param
                                << "', which " << signature.name() << "() does not have";
    }
    const bool power_of_two = term.n > 0 && (term.n & (term.n - 1)) == 0;
    const auto t = static_cast<int32_t>(resolved_.size());
    resolved_.push_back({term.kind, t, KeyWords::kMasks + t,
                         static_cast<int32_t>(found - param_names_.begin()), term.index, term.n,
                         power_of_two ? static_cast<uint64_t>(term.n - 1) : uint64_t{0},
                         kWordMultipliers.of[KeyWords::kMasks + t], false});
  }
  num_terms_ = static_cast<int32_t>(resolved_.size());
  num_words_ = KeyWords::kMasks + num_terms_;
  pad_word_ = KeyWords::Compared(num_words_) - 1;
  // Read's order: each tensor parameter's terms together, in the order of its first term.
  for (const ResolvedTerm& term : resolved_) {
    if (!IsTensorTerm(term.kind)) {
      other_terms_.push_back(term);
      continue;
    }
    const bool placed = std::any_of(tensor_terms_.begin(), tensor_terms_.end(),
                                    [&](const ResolvedTerm& r) { return r.param == term.param; });
    if (placed) continue;
    for (const ResolvedTerm& same : resolved_) {
      if (IsTensorTerm(same.kind) && same.param == term.param) {
        tensor_terms_.push_back(same);
        tensor_terms_.back().first_of_param = &same == &term;
      }
    }
  }
}

uint64_t KeyReader::ReadCarefully(const TVMFFIAny* args, KeyWords* out) const {
  uint64_t none_mask = 0, str_mask = 0, sum = 0;
  bool unusual = false;  // never set: a careful read throws instead
  out->words[pad_word_] = 0;
  for (const ResolvedTerm& term : resolved_) {
    const TVMFFIAny& arg = args[term.param];
    uint64_t word;
    if (!IsTensorTerm(term.kind)) {
      word = OtherWord<true>(term, arg, &none_mask, &str_mask, &unusual);
    } else if (const DLTensor* tensor = TensorOf(arg)) {
      word = TensorWord<true>(term, *tensor, &unusual);
    } else if (arg.type_index == kTVMFFINone) {
      none_mask |= uint64_t{1} << term.term;
      word = 0;
    } else {
      ThrowNotATensor(term.term, arg);
    }
    out->words[term.word] = word;
    sum += word * term.multiplier;
  }
  out->words[0] = none_mask;
  out->words[1] = str_mask;
  return FinishHash(sum);
}

bool KeyReader::StrsAre(const TVMFFIAny* args, uint64_t str_mask,
                        const std::vector<std::string>& strs) const {
  for (int32_t t = 0; t < num_terms(); ++t) {
    if ((str_mask >> t & 1) == 0) continue;
    std::string_view text;
    term_words::ReadStr(args[resolved_[t].param], &text);
    if (text != strs[t]) return false;
  }
  return true;
}

std::vector<std::string> KeyReader::StrsOf(const TVMFFIAny* args, uint64_t str_mask) const {
  std::vector<std::string> strs(num_terms());
  for (int32_t t = 0; t < num_terms(); ++t) {
    std::string_view text;
    if ((str_mask >> t & 1) != 0 && term_words::ReadStr(args[resolved_[t].param], &text))
      strs[t] = text;
  }
  return strs;
}

Key KeyReader::ValuesOf(const KeyWords& words, const TVMFFIAny* args) const {
  Key key;
  for (int32_t t = 0; t < num_terms(); ++t) {
    const uint64_t word = words.words[KeyWords::kMasks + t];
    const bool none = (words.none_mask() >> t & 1) != 0;
    if (none) {
      key.push_back(ffi::Any(nullptr));
    } else if (resolved_[t].kind == KeyTermKind::kValue) {
      key.push_back(ValueOfArgument(args[resolved_[t].param]));
    } else {
      key.push_back(ValueOfWord(resolved_[t].kind, word));
    }
  }
  return key;
}

void KeyReader::WordsOf(const Key& key, KeyWords* words, std::vector<std::string>* strs,
                        Key* canonical) const {
  if (static_cast<int64_t>(key.size()) != num_terms()) {
    std::ostringstream terms;
    for (int32_t t = 0; t < num_terms(); ++t) terms << (t ? ", " : "") << terms_[t].ToString();
    TVM_FFI_THROW(ValueError) << "kwcall.DispatchTable '" << table_name_ << "': a key has one "
                              << "value for each of its " << num_terms() << " terms ("
                              << terms.str() << "), got " << key.size() << " values";
  }
  uint64_t none_mask = 0, str_mask = 0;
  strs->assign(num_terms(), std::string());
  *canonical = Key();
  for (int32_t t = 0; t < num_terms(); ++t) {
    const ffi::Any& value = key[t];
    const KeyTermKind kind = resolved_[t].kind;
    WordOfValue read = ReadKeyValue(kind, value);
    if (read.expected != nullptr) ThrowBadValue(t, value, read.expected);
    if (read.none) none_mask |= uint64_t{1} << t;
    if (read.str) {
      str_mask |= uint64_t{1} << t;
      (*strs)[t] = read.text;
    }
    words->words[KeyWords::kMasks + t] = read.word;
    canonical->push_back(read.canonical);
  }
  words->words[0] = none_mask;
  words->words[1] = str_mask;
}

std::string KeyReader::Describe(const Key& key) const {
  std::string text;
  for (int32_t t = 0; t < num_terms() && t < static_cast<int32_t>(key.size()); ++t) {
    text += (t ? ", " : "") + terms_[t].ToString() + "=" + Repr(key[t]);
  }
  return text;
}

std::string KeyReader::Where(int32_t t) const {
  return "kwcall.DispatchTable '" + table_name_ + "': key term " + terms_[t].ToString();
}

void KeyReader::ThrowNotATensor(int32_t t, const TVMFFIAny& arg) const {
  TVM_FFI_THROW(TypeError) << Where(t) << " reads a tensor, but '" << terms_[t].param << "' is "
                           << ArgumentTypeName(arg);
}

void KeyReader::ThrowNotAValue(int32_t t, const TVMFFIAny& arg) const {
  TVM_FFI_THROW(TypeError) << Where(t) << " reads a bool, int or str argument, but '"
                           << terms_[t].param << "' is " << ArgumentTypeName(arg)
                           << "; key a tensor by its terms (dtype, shape, ...)";
}

void KeyReader::ThrowNoDim(int32_t t, int32_t ndim) const {
  TVM_FFI_THROW(TypeError) << Where(t) << " reads dimension " << terms_[t].index << ", but '"
                           << terms_[t].param << "' has " << ndim << " dimension"
                           << (ndim == 1 ? "" : "s");
}

void KeyReader::ThrowTooManyDims(int32_t t, int32_t ndim) const {
  TVM_FFI_THROW(TypeError) << Where(t) << " reads tensors of at most 64 dimensions, but '"
                           << terms_[t].param << "' has " << ndim;
}

void KeyReader::ThrowArchDevice(int32_t t, DLDevice device) const {
  TVM_FFI_THROW(TypeError) << Where(t) << " reads the compute capability of a CUDA device (0 on "
                           << "the CPU), but '" << terms_[t].param << "' is on "
                           << DeviceName(device);
}

void KeyReader::ThrowBadValue(int32_t t, const ffi::Any& value, const char* expected) const {
  TVM_FFI_THROW(ValueError) << Where(t) << " gives " << expected << ", not " << Repr(value);
}

}  // namespace kwcall
