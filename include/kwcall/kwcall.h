/*!
 * \file kwcall/kwcall.h
 * \brief Keyword arguments for tvm-ffi functions, bound in C++: the whole public API.
 *
 *   #include <kwcall/kwcall.h>
 *   kwcall::Signature sig = kwcall::SignatureBuilder("add").Param("x").Param("y", 1).Build();
 *   ffi::Function f = kwcall::MakeFunction(target, sig);
 *   f(1, 2);                                   // native call: forwarded untouched
 *   f(1);                                      // y = 1, bound in C++
 *   kwcall::Call(f, 1, kwcall::Kw("y", 5));    // keywords, bound in C++
 *   kwcall::CallSite site(f, 0, {"y", "x"});   // a keyword call bound once
 *   site(5, 1);                                // add(x=1, y=5) at about a direct call's cost
 */
#ifndef KWCALL_KWCALL_H_
#define KWCALL_KWCALL_H_

#include <kwcall/call_site.h>
#include <kwcall/dispatch.h>
#include <kwcall/export.h>
#include <kwcall/function.h>
#include <kwcall/kwargs.h>
#include <kwcall/load.h>
#include <kwcall/signature.h>

#endif  // KWCALL_KWCALL_H_
