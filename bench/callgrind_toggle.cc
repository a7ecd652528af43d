// Callgrind's client requests as tvm-ffi functions, so that a Python benchmark running under
// `valgrind --tool=callgrind --instr-atstart=no` counts the instructions of one route only
// (bench/torch_eager.py). Outside valgrind the requests are no-ops.
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>
#include <valgrind/callgrind.h>

#include <string>

namespace {

void Start() {
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
}

// Stops counting and writes what was counted since Start() to a dump named `name`.
void Stop(tvm::ffi::String name) {
  // Kept past the request: callgrind reads the name when it writes the dump, after the call
  // (a temporary's heap copy is gone by then; a name of 15 bytes or fewer sat in the
  // temporary itself and read back by chance).
  static std::string last;
  last = std::string(name);
  CALLGRIND_DUMP_STATS_AT(last.c_str());
  CALLGRIND_STOP_INSTRUMENTATION;
}

bool RunningOnValgrind() { return RUNNING_ON_VALGRIND != 0; }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(start, Start);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(stop, Stop);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(running_on_valgrind, RunningOnValgrind);
