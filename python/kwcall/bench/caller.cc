// The C++ caller: looks a global function up once by name and calls it n times, the way a
// C++ server calls a registered kernel. Nothing here includes Python.h or CUDA headers.
//
// Every target takes `lead..., alpha, beta`, where lead is 1 scalar or 3 or 9 tensors and
// alpha=1.0, beta=0 are trailing defaults in the kwcall signature. Modes:
//   0 positional: f(lead..., alpha, beta)        full arity (kwcall: native forward)
//   1 defaults:   f(lead...)                     trailing defaults left out
//   2 keywords:   kwcall::Call(f, lead..., Kw("alpha", a), Kw("beta", b))   via KWARGS
//   3 call site:  site(lead..., a, b), site = kwcall::CallSite(f, len(lead), {"alpha", "beta"})
#include <dlpack/dlpack.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace ffi = tvm::ffi;
using Clock = std::chrono::steady_clock;

enum Mode : int64_t { kPositional = 0, kDefaults = 1, kKeywords = 2, kCallSite = 3 };

int64_t ElapsedNs(Clock::time_point begin) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - begin).count();
}

// The arguments of one call shape, unpacked once so the loop only makes the call.
struct CallArgs {
  std::vector<ffi::Any> lead;
  double alpha;
  int64_t beta;
};

// What a loop calls: the function, and for kCallSite the site made from it before any timing.
struct Callee {
  ffi::Function f;
  std::optional<kwcall::CallSite> site;
};

// fn(std::index_sequence<0, ..., count - 1>()) for the counts of leading arguments there are.
template <typename Fn>
void ForLeadCount(size_t count, Fn&& fn) {
  switch (count) {
    case 1:
      return fn(std::make_index_sequence<1>());
    case 3:
      return fn(std::make_index_sequence<3>());
    case 9:
      return fn(std::make_index_sequence<9>());
    default:
      TVM_FFI_THROW(ValueError) << "no call shape for " << count << " leading arguments";
  }
}

// The site's answer must be the positional call's.
template <size_t... I>
void CheckSite(const Callee& c, const CallArgs& a, std::index_sequence<I...>) {
  const ffi::Any* lead = a.lead.data();
  const auto want = c.f(lead[I]..., a.alpha, a.beta).template cast<int64_t>();
  const auto got = (*c.site)(lead[I]..., a.alpha, a.beta).template cast<int64_t>();
  TVM_FFI_ICHECK_EQ(got, want) << "route G (call site) returned " << got << ", expected " << want;
}

// Looks `name` up and, for kCallSite, makes and checks the site: all before the clock starts.
Callee Prepare(const ffi::String& name, const CallArgs& a, int64_t mode) {
  Callee c{ffi::Function::GetGlobalRequired(name), std::nullopt};
  if (mode == kCallSite) {
    c.site.emplace(c.f, static_cast<int32_t>(a.lead.size()),
                   std::vector<std::string>{"alpha", "beta"});
    ForLeadCount(a.lead.size(), [&](auto lead) { CheckSite(c, a, lead); });
  }
  return c;
}

// The loop is written out with real C++ call syntax for each arity, so it measures what a
// C++ caller compiles to (typed packing on the stack), not a hand-built packed array.
template <size_t... I>
void Loop(const Callee& c, const CallArgs& a, int64_t n, int64_t mode, std::index_sequence<I...>) {
  const ffi::Function& f = c.f;
  const ffi::Any* lead = a.lead.data();
  switch (mode) {
    case kPositional:
      for (int64_t i = 0; i < n; ++i) f(lead[I]..., a.alpha, a.beta);
      break;
    case kDefaults:
      for (int64_t i = 0; i < n; ++i) f(lead[I]...);
      break;
    case kKeywords:
      for (int64_t i = 0; i < n; ++i) {
        kwcall::Call(f, lead[I]..., kwcall::Kw("alpha", a.alpha), kwcall::Kw("beta", a.beta));
      }
      break;
    case kCallSite:
      for (int64_t i = 0; i < n; ++i) (*c.site)(lead[I]..., a.alpha, a.beta);
      break;
    default:
      TVM_FFI_THROW(ValueError) << "unknown mode " << mode;
  }
}

void Dispatch(const Callee& c, const CallArgs& a, int64_t n, int64_t mode) {
  ForLeadCount(a.lead.size(), [&](auto lead) { Loop(c, a, n, mode, lead); });
}

CallArgs MakeArgs(const ffi::Array<ffi::Any>& lead, double alpha, int64_t beta) {
  return CallArgs{std::vector<ffi::Any>(lead.begin(), lead.end()), alpha, beta};
}

// Waits for the launches queued on `stream` so a timing covers the work, not only the
// queueing. `sync` comes from the CUDA module; on CPU runs it is None.
void SyncStream(const ffi::Optional<ffi::Function>& sync, void* stream) {
  if (sync.has_value()) (*sync)(reinterpret_cast<int64_t>(stream));
}

// Times n calls of global `name` on the calling thread (Python's, with the GIL released).
// Returns the elapsed nanoseconds. On CUDA (cuda_device >= 0) it ends with a sync of the
// thread's current tvm-ffi stream.
int64_t CallN(const ffi::String& name, const ffi::Array<ffi::Any>& lead, double alpha, int64_t beta,
              int64_t n, int64_t mode, int64_t cuda_device, ffi::Optional<ffi::Function> sync) {
  CallArgs args = MakeArgs(lead, alpha, beta);
  Callee callee = Prepare(name, args, mode);
  Clock::time_point begin = Clock::now();
  Dispatch(callee, args, n, mode);
  if (cuda_device >= 0) {
    SyncStream(sync, TVMFFIEnvGetStream(kDLCUDA, static_cast<int32_t>(cuda_device)));
  }
  return ElapsedNs(begin);
}

// Starts num_threads plain std::threads (Python never saw them) that each look `name` up
// (and make their own call site for kCallSite) and make calls_each calls, released together. On
// CUDA each thread first makes streams[t] its tvm-ffi current stream (streams empty: the default
// stream). Returns [wall ns from release to the last finish, then each thread's own ns].
ffi::Array<int64_t> Threads(const ffi::String& name, const ffi::Array<ffi::Any>& lead, double alpha,
                            int64_t beta, int64_t num_threads, int64_t calls_each, int64_t mode,
                            int64_t cuda_device, ffi::Array<int64_t> streams,
                            ffi::Optional<ffi::Function> sync) {
  TVM_FFI_ICHECK(streams.empty() || static_cast<int64_t>(streams.size()) == num_threads)
      << "need one stream per thread, got " << streams.size() << " for " << num_threads;
  CallArgs args = MakeArgs(lead, alpha, beta);
  std::mutex mu;
  std::condition_variable cv;
  int ready = 0;
  bool go = false;
  std::vector<int64_t> thread_ns(num_threads, 0);
  std::vector<ffi::Optional<ffi::Error>> errors(num_threads);
  auto worker = [&](int64_t t) {
    std::optional<Callee> callee;
    void* stream = streams.empty() ? nullptr : reinterpret_cast<void*>(streams[t]);
    try {
      callee = Prepare(name, args, mode);
      if (cuda_device >= 0) {
        TVMFFIEnvSetStream(kDLCUDA, static_cast<int32_t>(cuda_device), stream, nullptr);
      }
    } catch (const ffi::Error& err) {
      errors[t] = err;
    }
    {
      // Counted even after an error, so the release below never waits forever.
      std::unique_lock<std::mutex> lock(mu);
      ++ready;
      cv.notify_all();
      cv.wait(lock, [&] { return go; });
    }
    if (!callee.has_value()) return;
    try {
      Clock::time_point begin = Clock::now();
      Dispatch(*callee, args, calls_each, mode);
      if (cuda_device >= 0) SyncStream(sync, stream);
      thread_ns[t] = ElapsedNs(begin);
    } catch (const ffi::Error& err) {
      errors[t] = err;
    }
  };
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < num_threads; ++t) pool.emplace_back(worker, t);
  Clock::time_point begin;
  {
    // Release every thread at once, after all have looked the function up.
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return ready == num_threads; });
    go = true;
    begin = Clock::now();
  }
  cv.notify_all();
  for (std::thread& t : pool) t.join();
  int64_t wall_ns = ElapsedNs(begin);
  for (const ffi::Optional<ffi::Error>& err : errors) {
    if (err.has_value()) throw *err;
  }
  ffi::Array<int64_t> out{wall_ns};
  for (int64_t ns : thread_ns) out.push_back(ns);
  return out;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_n, CallN);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(threads, Threads);
