// Test-only FFI globals over kwcall's internal rules, for tests that compare them with
// Python's own, name by name: built and loaded by helpers.internals_global, never shipped.
// libkwcall exports only its public API, so the rules are compiled in here from the same
// sources (the identifier rule's and src/binding/suggest.cc); the Unicode version is
// libkwcall's.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <string>
#include <string_view>
#include <vector>

#include "binding/suggest.h"
#include "identifier.h"

namespace {

namespace ffi = ::tvm::ffi;

std::string_view View(const ffi::String& text) {
  return std::string_view(text.data(), text.size());
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::GlobalDef()
      // "" when kwcall accepts the name as a parameter name, else why not.
      .def("kwcall.testing.CheckName",
           [](ffi::String name) {
             // The version Python's kwcall selected at import, in libkwcall.
             static const ffi::Function version =
                 ffi::Function::GetGlobalRequired("kwcall.IdentifierUnicodeVersion");
             const int index = kwcall::FindUnicodeVersion(View(version().cast<ffi::String>()));
             kwcall::NameCheck check = kwcall::CheckIdentifier(View(name), index);
             if (check.problem == kwcall::NameProblem::kNone) return ffi::String("");
             return ffi::String(kwcall::DescribeNameProblem(View(name), check));
           })
      // The index of the candidate CPython 3.13 would suggest for key, or -1.
      .def("kwcall.testing.SuggestName", [](ffi::String key, ffi::Array<ffi::String> candidates) {
        std::vector<ffi::String> names(candidates.begin(), candidates.end());
        std::vector<std::string_view> views;
        for (const ffi::String& name : names) views.push_back(View(name));
        return static_cast<int64_t>(
            kwcall::SuggestName(View(key), views.data(), static_cast<int32_t>(views.size())));
      });
}
