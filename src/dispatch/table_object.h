// The dispatch table object (kwcall/dispatch.h's DispatchTable is a handle to it): its key reader,
// its entries, the compile function for misses, and the dispatching function's hot path.
#ifndef KWCALL_SRC_DISPATCH_TABLE_OBJECT_H_
#define KWCALL_SRC_DISPATCH_TABLE_OBJECT_H_

#include <kwcall/dispatch.h>
#include <kwcall/signature.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dispatch/entry_set.h"
#include "dispatch/key_reader.h"

namespace kwcall {

class DispatchTableObj : public ffi::Object {
 public:
  DispatchTableObj(Signature signature, std::vector<KeyTerm> terms, std::string name,
                   ffi::Optional<ffi::Function> compile);

  /*! \brief A call with every parameter in order: its key's entry, found or made, called. */
  void Dispatch(const ffi::AnyView* args, int32_t num_args, ffi::Any* result) const {
    const auto* raw = reinterpret_cast<const TVMFFIAny*>(args);
    if (TVM_FFI_PREDICT_FALSE(num_args != arity_)) ThrowArity(num_args);
    KeyWords words;
    const uint64_t hash = reader_.Read(raw, &words);
    const Entry* entry = entries_.Find(words, hash, reader_, raw);
    if (TVM_FFI_PREDICT_FALSE(entry == nullptr)) entry = Miss(words, raw);
    entry->Call(args, num_args, result);
  }

  /*!
   * \brief Adds `function` for `key`, keeping `keep_alive` as long as the entry; returns the key
   *        as the table keeps it.
   */
  Key Add(const Key& key, ffi::Function function, ffi::Any keep_alive);
  ffi::Optional<ffi::Function> Get(const Key& key) const;
  std::vector<Key> Keys() const;
  Key KeyOf(const TVMFFIAny* args, int32_t num_args) const;
  int64_t size() const { return entries_.size(); }

  /*! \brief A new function that dispatches (every parameter in order), holding this table. */
  ffi::Function Dispatcher() const;
  /*! \brief A new function returning the key of a call (every parameter in order). */
  ffi::Function KeyOfFunction() const;

  const Signature& signature() const { return signature_; }
  const KeyReader& reader() const { return reader_; }
  const std::string& name() const { return reader_.table_name(); }
  bool has_compile() const { return compile_.has_value(); }

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("kwcall.DispatchTable", DispatchTableObj, ffi::Object);

 private:
  // A compile in progress for one key: the others who miss it wait for its outcome.
  struct Flight {
    std::condition_variable done_cv;
    bool done = false;
    const Entry* entry = nullptr;
    std::string error;  // why it failed, for the waiters
    std::thread::id compiler = std::this_thread::get_id();
  };
  using OwnedKey = std::pair<std::vector<uint64_t>, std::vector<std::string>>;

  const Entry* Miss(const KeyWords& words, const TVMFFIAny* args) const;  // miss.cc
  const Entry* Compile(const Key& key, const OwnedKey& owned, const TVMFFIAny* args,
                       Flight* flight) const;  // miss.cc
  const Entry* AddLocked(const Key& key, const OwnedKey& owned, ffi::Function function,
                         ffi::Any keep_alive) const;
  [[noreturn]] void ThrowMissing(const Key& key) const;  // miss.cc
  [[noreturn]] TVM_FFI_COLD_CODE void ThrowArity(int32_t num_args) const;

  Signature signature_;
  KeyReader reader_;
  int32_t arity_;
  ffi::Optional<ffi::Function> compile_;
  mutable std::mutex mutex_;  // the writers': entries added, flights begun and ended
  mutable EntrySet entries_;
  mutable std::map<OwnedKey, Flight*> flights_;  // the compiles in progress
  // Every flight ever begun, kept with the table: a waiter reads its flight after the compiler
  // ended it (one small record a compile, as each adds an entry).
  mutable std::vector<std::unique_ptr<Flight>> flight_records_;
};

/*! \brief The table object behind `object`, or nullptr. */
DispatchTableObj* AsTableObject(const ffi::ObjectRef& object);

}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_TABLE_OBJECT_H_
