// Test helper for tests/python/test_cute.py: calls a global function by name from a new
// C++ thread, positionally or with keywords (kwcall's KWARGS helper), and waits for it
// with a timeout. The Python side calls Call with release_gil = False, so a callee that
// needed the GIL could not finish in time; the thread is then left to finish later.
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>

#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

namespace {

namespace ffi = tvm::ffi;

// Calls `name` `times` times with `args`, then KWARGS and the name/value pairs in
// `keywords` (flat: name, value, ...). Returns the number of calls finished within
// timeout_ms, or -1 if the thread was still busy then.
int64_t Call(const ffi::String& name, ffi::Array<ffi::Any> args, ffi::Array<ffi::Any> keywords,
             int64_t times, int64_t timeout_ms) {
  auto done = std::make_shared<std::promise<int64_t>>();
  std::future<int64_t> result = done->get_future();
  std::thread([=] {
    try {
      ffi::Function f = ffi::Function::GetGlobalRequired(name);
      std::vector<ffi::AnyView> packed(args.begin(), args.end());
      if (!keywords.empty()) {
        packed.push_back(kwcall::KwargsSentinel());
        packed.insert(packed.end(), keywords.begin(), keywords.end());
      }
      for (int64_t i = 0; i < times; ++i) {
        ffi::Any rv;
        f.CallPacked(packed.data(), static_cast<int32_t>(packed.size()), &rv);
      }
      done->set_value(times);
    } catch (...) {
      done->set_exception(std::current_exception());
    }
  }).detach();
  if (result.wait_for(std::chrono::milliseconds(timeout_ms)) != std::future_status::ready) {
    return -1;
  }
  return result.get();
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(call, Call);
