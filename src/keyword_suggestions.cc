// The process-wide setting of CPython 3.13's "Did you mean" suggestion (kwcall/function.h).
// Only libkwcall defines it: the Python extension, which compiles the binding rules into
// itself, reads and sets this one copy through the public API.
#include <kwcall/function.h>

#include <atomic>

namespace kwcall {
namespace {
// Whether binding errors make the suggestion: set once to match the running interpreter.
std::atomic<bool> g_keyword_suggestions{true};
}  // namespace

void SetKeywordSuggestions(bool enabled) { g_keyword_suggestions.store(enabled); }
bool KeywordSuggestions() { return g_keyword_suggestions.load(std::memory_order_relaxed); }

}  // namespace kwcall
