// Key terms (kwcall/dispatch.h's KeyTerm): their names, their checks, and a term resolved
// against a signature (the parameter's index in declaration order), as a table reads it.
#ifndef KWCALL_SRC_DISPATCH_KEY_TERM_H_
#define KWCALL_SRC_DISPATCH_KEY_TERM_H_

#include <kwcall/dispatch.h>

#include <cstdint>

namespace kwcall {

/*! \brief "dtype", "shape", ...: the term's name as kwcall.key spells it. */
const char* KeyTermName(KeyTermKind kind);

/*! \brief Whether the term reads a tensor (every kind but is_none and value). */
bool IsTensorTerm(KeyTermKind kind);

/*!
 * \brief Refuses numbers no argument could satisfy: a divisor that is not positive, an
 *        alignment that is not a power of two.
 * \throws ffi::Error of kind ValueError naming the term.
 */
void CheckTermNumbers(const KeyTerm& term);

/*! \brief A term with its parameter's index and its word's place: what the hot path reads. */
struct ResolvedTerm {
  KeyTermKind kind;
  int32_t term;   // its position in the key
  int32_t word;   // its word's in KeyWords: KeyWords::kMasks + term
  int32_t param;  // its parameter's, in declaration order
  int64_t index;
  int64_t n;
  uint64_t mask;        // n - 1 when n is a power of two (divisible, aligned), else 0
  uint64_t multiplier;  // its word's in the key's hash
  bool first_of_param;  // KeyReader::Read's order: the first of its parameter's terms
};

}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_KEY_TERM_H_
