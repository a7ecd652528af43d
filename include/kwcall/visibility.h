/*!
 * \file kwcall/visibility.h
 * \brief KWCALL_API, the mark on what libkwcall exports.
 *
 * libkwcall and the Python extension are compiled with hidden visibility
 * (-fvisibility=hidden -fvisibility-inlines-hidden), as binding libraries are: calls inside
 * them bind locally, not through the PLT, and their dynamic symbol tables hold only the public
 * C++ API (the declarations marked here) and the extension's PyInit. Classes whose members are
 * all defined in the headers need no mark. (Not to be confused with kwcall/export.h, which
 * exports a kernel's signature from the kernel's own library.)
 */
#ifndef KWCALL_VISIBILITY_H_
#define KWCALL_VISIBILITY_H_

#define KWCALL_API __attribute__((visibility("default")))

#endif  // KWCALL_VISIBILITY_H_
