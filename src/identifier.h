// The rule for what a parameter name may be, shared by C++ and Python: a name is accepted
// when it is valid UTF-8, a Python identifier (str.isidentifier()) and NFKC-normalized, so
// that the name kwcall binds is the very name Python source code would pass by keyword (the
// Python parser NFKC-normalizes every identifier it reads). Whether the name is a Python
// keyword is checked elsewhere. Only the C++ standard library is used; the Unicode data
// comes from src/identifier_table.inc, made by scripts/gen_identifier_table.py.
#ifndef KWCALL_SRC_IDENTIFIER_H_
#define KWCALL_SRC_IDENTIFIER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kwcall {

/*! \brief Why a name is not accepted. */
enum class NameProblem {
  kNone,           //!< The name is accepted.
  kEmpty,          //!< The name is empty.
  kInvalidUtf8,    //!< The bytes are not valid UTF-8 (this wins over the problems below).
  kBadStart,       //!< The first character cannot start an identifier.
  kBadCharacter,   //!< A later character cannot appear in an identifier.
  kNotNormalized,  //!< The name is not NFKC-normalized, or might not be (see CheckIdentifier).
};

/*!
 * \brief The verdict on a name: its most serious problem (invalid UTF-8, then the first
 *        character that cannot be where it is, then the first that breaks the NFKC form).
 */
struct NameCheck {
  NameProblem problem = NameProblem::kNone;
  /*! \brief The offending character; 0 for kNone, kEmpty and kInvalidUtf8. */
  uint32_t codepoint = 0;
  /*! \brief Byte offset of the offending character, or of the invalid UTF-8 sequence. */
  size_t offset = 0;
};

/*!
 * \brief Checks that `utf8` is a name Python accepts as a parameter name, keywords aside.
 *
 * The name must be strict UTF-8 (no overlong forms, no surrogates U+D800-U+DFFF, nothing above
 * U+10FFFF, no cut-short sequences or stray continuation bytes); invalid UTF-8 anywhere is
 * reported before any other problem. It must be an identifier exactly as Python's
 * str.isidentifier() decides (XID_Start or '_' first, XID_Continue after); a character that
 * breaks this is reported before one that breaks the NFKC form. And it must be in NFKC form:
 * no character that NFKC replaces (U+FB01 LATIN SMALL LIGATURE FI, U+00AA, fullwidth letters,
 * ...), combining marks in canonical order, and, after the first character, no character
 * that NFKC may compose with the character before it (U+0301 COMBINING ACUTE ACCENT, Hangul
 * medial vowels, ...). That last rule is conservative: "e\u0301" is not normalized, but
 * "b\u0301" is, and kwcall refuses both rather than run the full normalization. Every other
 * verdict is exactly Python's, for the Unicode version of the tables
 * (IdentifierUnicodeVersion()).
 */
NameCheck CheckIdentifier(std::string_view utf8);

/*!
 * \brief Says why `name` was refused, to follow "Invalid parameter name: '<name>' ", e.g.
 *        "is not a valid Python identifier (U+00A0 at byte 1 cannot appear in an
 *        identifier)". `check` is CheckIdentifier(name). Empty for NameProblem::kNone.
 */
std::string DescribeNameProblem(std::string_view name, const NameCheck& check);

/*! \brief The Unicode version of the tables, e.g. "15.1.0". */
std::string_view IdentifierUnicodeVersion();

}  // namespace kwcall

#endif  // KWCALL_SRC_IDENTIFIER_H_
