// The "Did you mean ...?" suggestion CPython 3.13 appends to "f() got an unexpected keyword
// argument 'x'" (Python/suggestions.c, used by Python/ceval.c when binding keywords).
//
// The rule, as observed on CPython 3.13 (3.12 and earlier make no suggestion for keywords):
//  * Names are compared as UTF-8 bytes. A byte matches itself for free, an ASCII letter
//    matches the same letter in the other case for 1, and every other substitution, insertion
//    or deletion costs 2.
//  * A common prefix and a common suffix are stripped first. If either remainder is empty
//    the distance is twice the length of the other; otherwise, when either remainder is over
//    40 bytes, the candidate is rejected.
//  * A candidate is acceptable when its distance is at most
//    (key bytes + candidate bytes + 3) * 2 / 6 (integer division), and the best one wins:
//    the smallest distance, the earliest candidate on a tie.
//  * A candidate equal to the key is skipped, and with 750 candidates or more there is no
//    suggestion at all.
// For keyword binding CPython's candidates are the parameters that may be passed by keyword,
// in declaration order: positional-or-keyword ones, then keyword-only ones (not
// positional-only ones, not the *args or **kwargs names).
#ifndef KWCALL_SRC_BINDING_SUGGEST_H_
#define KWCALL_SRC_BINDING_SUGGEST_H_

#include <cstdint>
#include <string_view>

namespace kwcall {

// Index into candidates of the name CPython 3.13 would suggest for `key`, or -1.
int32_t SuggestName(std::string_view key, const std::string_view* candidates,
                    int32_t num_candidates);

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_SUGGEST_H_
