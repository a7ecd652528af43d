// The dispatch table object (table_object.h): made, added to, read, and its dispatching function.
#include "dispatch/table_object.h"

#include <kwcall/function.h>
#include <tvm/ffi/error.h>

#include <algorithm>

#include "dispatch/key_values.h"

namespace kwcall {
namespace {

// How FunctionObj::CallPacked calls a function with no C++ entry point (a C-ABI one, such as
// CuTeDSL's): through safe_call, rethrowing its error.
void CallThroughSafeCall(const ffi::FunctionObj* func, const ffi::AnyView* args, int32_t num_args,
                         ffi::Any* result) {
  TVM_FFI_CHECK_SAFE_CALL(func->safe_call(const_cast<ffi::FunctionObj*>(func),
                                          reinterpret_cast<const TVMFFIAny*>(args), num_args,
                                          reinterpret_cast<TVMFFIAny*>(result)));
}

// "f(a, b, /, c, *, d)": a signature's parameters, for errors.
std::string Shown(const Signature& signature) {
  std::string text = signature.name() + "(";
  for (int32_t i = 0; i < signature.num_params(); ++i) {
    if (i == signature.num_positional() && signature.num_kwonly() > 0) text += "*, ";
    text += signature.param_name(i);
    if (i + 1 == signature.posonly_count()) text += ", /";
    if (i + 1 < signature.num_params()) text += ", ";
  }
  return text + ")";
}

bool SameParams(const Signature& a, const Signature& b) {
  if (a.num_params() != b.num_params()) return false;
  for (int32_t i = 0; i < a.num_params(); ++i) {
    if (a.param_name(i) != b.param_name(i) || a.param(i).kind != b.param(i).kind) return false;
  }
  return true;
}

// A function object whose C++ entry point is a member of the table it holds.
template <void (*kEntry)(const DispatchTableObj&, const ffi::AnyView*, int32_t, ffi::Any*)>
class TableFunctionObj : public ffi::FunctionObj {
 public:
  explicit TableFunctionObj(ffi::ObjectPtr<DispatchTableObj> table) : table_(std::move(table)) {
    this->safe_call = SafeCall;
    this->cpp_call = reinterpret_cast<void*>(Entry);
  }

 private:
  static void Entry(const ffi::FunctionObj* func, const ffi::AnyView* args, int32_t num_args,
                    ffi::Any* result) {
    kEntry(*static_cast<const TableFunctionObj*>(func)->table_, args, num_args, result);
  }
  static int SafeCall(void* func, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
    TVM_FFI_SAFE_CALL_BEGIN();
    Entry(static_cast<const TableFunctionObj*>(func), reinterpret_cast<const ffi::AnyView*>(args),
          num_args, reinterpret_cast<ffi::Any*>(result));
    TVM_FFI_SAFE_CALL_END();
  }

  ffi::ObjectPtr<DispatchTableObj> table_;
};

void DispatchEntry(const DispatchTableObj& table, const ffi::AnyView* args, int32_t num_args,
                   ffi::Any* result) {
  table.Dispatch(args, num_args, result);
}

void KeyOfEntry(const DispatchTableObj& table, const ffi::AnyView* args, int32_t num_args,
                ffi::Any* result) {
  *result = table.KeyOf(reinterpret_cast<const TVMFFIAny*>(args), num_args);
}

template <typename F>
ffi::Function TableFunction(const DispatchTableObj* table) {
  auto self = ffi::details::ObjectUnsafe::ObjectPtrFromUnowned<DispatchTableObj>(
      const_cast<ffi::Object*>(static_cast<const ffi::Object*>(table)));
  return ffi::Function(ffi::ObjectPtr<ffi::FunctionObj>(ffi::make_object<F>(std::move(self))));
}

}  // namespace

DispatchTableObj::DispatchTableObj(Signature signature, std::vector<KeyTerm> terms,
                                   std::string name, ffi::Optional<ffi::Function> compile)
    : signature_(signature),
      reader_(name.empty() ? signature.name() : std::move(name), std::move(terms), signature),
      arity_(signature.num_params()),
      compile_(std::move(compile)),
      entries_(reader_.num_words()) {}

Key DispatchTableObj::Add(const Key& key, ffi::Function function, ffi::Any keep_alive) {
  KeyWords words;
  OwnedKey owned;
  Key canonical;
  reader_.WordsOf(key, &words, &owned.second, &canonical);
  owned.first.assign(words.words, words.words + reader_.num_words());
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.FindOwned(owned.first, owned.second) != nullptr) {
    TVM_FFI_THROW(ValueError) << "kwcall.DispatchTable '" << name() << "' has an entry for the key "
                              << reader_.Describe(canonical) << " already; an entry is never "
                              << "replaced (make a new table to change one)";
  }
  AddLocked(canonical, owned, std::move(function), std::move(keep_alive));
  return canonical;
}

const Entry* DispatchTableObj::AddLocked(const Key& key, const OwnedKey& owned,
                                         ffi::Function function, ffi::Any keep_alive) const {
  if (function == nullptr) {
    TVM_FFI_THROW(TypeError) << "kwcall.DispatchTable '" << name() << "': the entry for the key "
                             << reader_.Describe(key) << " is null, not a function";
  }
  ffi::Function callee = function;
  if (std::optional<Signature> own = GetSignature(function)) {
    if (!SameParams(*own, signature_)) {
      TVM_FFI_THROW(TypeError) << "kwcall.DispatchTable '" << name() << "': the entry for the key "
                               << reader_.Describe(key) << " is a kwcall function of "
                               << Shown(*own) << ", not of the table's " << Shown(signature_)
                               << "; an entry takes the table's parameters in order";
    }
    // The table passes every parameter in order and no KWARGS tail (its own function checked),
    // which the kwcall function would forward untouched: call its target directly.
    callee = *GetTarget(function);
  }
  auto entry = std::make_unique<Entry>();
  std::copy(owned.first.begin(), owned.first.end(), entry->words);
  entry->strs = owned.second;
  entry->key = key;
  entry->function = std::move(function);
  entry->keep_alive = std::move(keep_alive);
  entry->object = callee.get();
  entry->call = callee.get()->cpp_call != nullptr
                    ? reinterpret_cast<Entry::FCall>(callee.get()->cpp_call)
                    : CallThroughSafeCall;
  entry->callee = std::move(callee);
  return entries_.Insert(std::move(entry));
}

ffi::Optional<ffi::Function> DispatchTableObj::Get(const Key& key) const {
  KeyWords words;
  std::vector<std::string> strs;
  Key canonical;
  reader_.WordsOf(key, &words, &strs, &canonical);
  const std::vector<uint64_t> owned(words.words, words.words + reader_.num_words());
  if (const Entry* entry = entries_.FindOwned(owned, strs)) return entry->function;
  return std::nullopt;
}

std::vector<Key> DispatchTableObj::Keys() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Key> keys;
  for (const auto& entry : entries_.entries()) keys.push_back(entry->key);
  return keys;
}

Key DispatchTableObj::KeyOf(const TVMFFIAny* args, int32_t num_args) const {
  if (num_args != arity_) ThrowArity(num_args);
  KeyWords words;
  reader_.Read(args, &words);
  return reader_.ValuesOf(words, args);
}

ffi::Function DispatchTableObj::Dispatcher() const {
  return TableFunction<TableFunctionObj<DispatchEntry>>(this);
}

ffi::Function DispatchTableObj::KeyOfFunction() const {
  return TableFunction<TableFunctionObj<KeyOfEntry>>(this);
}

void DispatchTableObj::ThrowArity(int32_t num_args) const {
  TVM_FFI_THROW(TypeError) << "kwcall.DispatchTable '" << name() << "': its dispatching function "
                           << "takes every parameter of " << Shown(signature_) << " in order ("
                           << arity_ << " arguments), got " << num_args
                           << "; call the table's function to bind keywords and defaults";
}

DispatchTableObj* AsTableObject(const ffi::ObjectRef& object) {
  const ffi::Object* obj = object.get();
  if (obj == nullptr || obj->type_index() != DispatchTableObj::RuntimeTypeIndex()) return nullptr;
  return static_cast<DispatchTableObj*>(const_cast<ffi::Object*>(obj));
}

}  // namespace kwcall
