// A call whose key has no entry: compiled once per key however many threads miss it (the others
// wait for the outcome and use it), or, without a compile function, an error naming the key and
// the nearest keys the table has.
#include <tvm/ffi/error.h>

#include <algorithm>
#include <atomic>

#include "dispatch/blocking_wait.h"
#include "dispatch/key_values.h"
#include "dispatch/table_object.h"

namespace kwcall {
namespace {

std::atomic<BlockingRegion> blocking_region{nullptr};

// A compile function returns the entry, or [entry, what to keep alive with it] (Python's
// wrapper keeps the Python object that owns the entry's code).
void ReadCompiled(const ffi::Any& result, ffi::Function* function, ffi::Any* keep_alive) {
  if (auto pair = result.try_cast<ffi::Array<ffi::Any>>(); pair.has_value() && pair->size() == 2) {
    if (auto f = (*pair)[0].try_cast<ffi::Function>()) {
      *function = *f;
      *keep_alive = (*pair)[1];
      return;
    }
  }
  if (auto f = result.try_cast<ffi::Function>()) {
    *function = *f;
    return;
  }
  TVM_FFI_THROW(TypeError) << "returned " << result.GetTypeKey() << ", not a function";
}

}  // namespace

void SetBlockingRegion(BlockingRegion region) { blocking_region.store(region); }

void RunBlocking(void (*wait)(void*), void* context) {
  if (BlockingRegion region = blocking_region.load()) {
    region(wait, context);
  } else {
    wait(context);
  }
}

const Entry* DispatchTableObj::Miss(const KeyWords& words, const TVMFFIAny* args) const {
  const Key key = reader_.ValuesOf(words, args);
  if (!compile_.has_value()) ThrowMissing(key);
  const OwnedKey owned(std::vector<uint64_t>(words.words, words.words + reader_.num_words()),
                       reader_.StrsOf(args, words.str_mask()));
  Flight* flight;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (const Entry* entry = entries_.FindOwned(owned.first, owned.second)) return entry;
    auto found = flights_.find(owned);
    if (found == flights_.end()) {
      flight_records_.push_back(std::make_unique<Flight>());
      flight = flight_records_.back().get();
      flights_.emplace(owned, flight);
      lock.unlock();
      return Compile(key, owned, args, flight);
    }
    flight = found->second;
    if (flight->compiler == std::this_thread::get_id()) {
      TVM_FFI_THROW(RuntimeError) << "kwcall.DispatchTable '" << name() << "': the compile "
                                  << "function, compiling the key " << reader_.Describe(key)
                                  << ", called the table with the same key";
    }
  }
  struct Waiting {
    const DispatchTableObj* table;
    Flight* flight;
  } waiting{this, flight};
  RunBlocking(
      [](void* context) {
        auto* w = static_cast<Waiting*>(context);
        std::unique_lock<std::mutex> lock(w->table->mutex_);
        w->flight->done_cv.wait(lock, [w] { return w->flight->done; });
      },
      &waiting);
  if (flight->entry == nullptr) {
    TVM_FFI_THROW(RuntimeError) << "kwcall.DispatchTable '" << name() << "': compiling the key "
                                << reader_.Describe(key)
                                << " failed in another call: " << flight->error;
  }
  return flight->entry;
}

const Entry* DispatchTableObj::Compile(const Key& key, const OwnedKey& owned, const TVMFFIAny* args,
                                       Flight* flight) const {
  // Ends the flight whatever happens: the waiters learn the entry, or why there is none.
  auto finish = [&](const Entry* entry, std::string error) {
    std::lock_guard<std::mutex> lock(mutex_);
    flight->done = true;
    flight->entry = entry;
    flight->error = std::move(error);
    flights_.erase(owned);
    flight->done_cv.notify_all();
  };
  try {
    // compile(key, *args)
    std::vector<ffi::AnyView> packed(arity_ + 1);
    packed[0] = key;
    for (int32_t i = 0; i < arity_; ++i) {
      packed[i + 1] = reinterpret_cast<const ffi::AnyView*>(args)[i];
    }
    ffi::Any result;
    compile_.value().CallPacked(packed.data(), static_cast<int32_t>(packed.size()), &result);
    ffi::Function function;
    ffi::Any keep_alive;
    try {
      ReadCompiled(result, &function, &keep_alive);
    } catch (const ffi::Error& error) {
      TVM_FFI_THROW(TypeError) << "kwcall.DispatchTable '" << name() << "': compile, for the key "
                               << reader_.Describe(key) << ", " << error.message();
    }
    const Entry* entry;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // table.add of this key during the compile (the compile function's own) wins.
      entry = entries_.FindOwned(owned.first, owned.second);
      if (entry == nullptr)
        entry = AddLocked(key, owned, std::move(function), std::move(keep_alive));
    }
    finish(entry, "");
    return entry;
  } catch (const ffi::Error& error) {
    finish(nullptr, error.kind() + ": " + error.message());
    throw;
  } catch (const std::exception& error) {
    finish(nullptr, error.what());
    throw;
  }
}

void DispatchTableObj::ThrowMissing(const Key& key) const {
  // The nearest keys: those with the most terms equal to the call's.
  std::vector<std::pair<int32_t, Key>> scored;
  for (const Key& other : Keys()) {
    int32_t same = 0;
    for (int32_t t = 0; t < reader_.num_terms(); ++t) {
      same += Repr(other[t]) == Repr(key[t]);
    }
    scored.emplace_back(same, other);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string nearest;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) {
    nearest += (i ? ", " : "") + Repr(ffi::Any(scored[i].second));
  }
  TVM_FFI_THROW(LookupError) << "kwcall.DispatchTable '" << name() << "' has no entry for the key "
                             << reader_.Describe(key) << " and no compile function; "
                             << (scored.empty() ? "it has no entries"
                                                : "its nearest keys: " + nearest)
                             << ". Add one with add(key, function), or make the table with a "
                             << "compile function";
}

}  // namespace kwcall
