// Waiting for another thread's compile without blocking it: a thread that waits while it holds
// Python's GIL (a Python caller whose tvm_ffi.Function keeps the GIL, say) would keep the compiling
// thread, whose compile function is Python, from ever running. libkwcall knows nothing of Python:
// the Python extension installs the region a wait runs in (the GIL released while it waits, when
// the thread holds it), and processes without Python wait as they are.
#ifndef KWCALL_SRC_DISPATCH_BLOCKING_WAIT_H_
#define KWCALL_SRC_DISPATCH_BLOCKING_WAIT_H_

#include <kwcall/visibility.h>

namespace kwcall {

/*! \brief Runs `wait(context)`, outside whatever the calling thread must not hold meanwhile. */
using BlockingRegion = void (*)(void (*wait)(void* context), void* context);

/*!
 * \brief Sets the region every wait of a dispatch table's miss runs in (nullptr: none). Set once,
 *        by the Python extension when it is imported; exported for it, declared in no installed
 *        header.
 */
KWCALL_API void SetBlockingRegion(BlockingRegion region);

/*! \brief Runs `wait(context)` in the region set, or directly. */
void RunBlocking(void (*wait)(void* context), void* context);

}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_BLOCKING_WAIT_H_
