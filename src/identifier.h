// The rule for what a parameter name may be, shared by C++ and Python: a name is accepted
// when it is valid UTF-8, a Python identifier (str.isidentifier()) and NFKC-normalized, so
// that the name kwcall binds is the very name Python source code would pass by keyword (the
// Python parser NFKC-normalizes every identifier it reads). Whether the name is a Python
// keyword or __debug__ is checked elsewhere (Signature::Make). Only the C++ standard library is
// used. The steps are files of their own: strict UTF-8 (utf8.h), the Unicode data of each
// version of a supported Python (unicode_tables.h) and the NFKC form (nfkc.h); this file holds
// the rule that puts them together and the process-wide Unicode version.
#ifndef KWCALL_SRC_IDENTIFIER_H_
#define KWCALL_SRC_IDENTIFIER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "unicode_tables.h"

namespace kwcall {

/*! \brief Why a name is not accepted. */
enum class NameProblem {
  kNone,           //!< The name is accepted.
  kEmpty,          //!< The name is empty.
  kInvalidUtf8,    //!< The bytes are not valid UTF-8 (this wins over the problems below).
  kBadStart,       //!< The first character cannot start an identifier.
  kBadCharacter,   //!< A later character cannot appear in an identifier.
  kNotNormalized,  //!< The name is not NFKC-normalized.
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
  /*! \brief The Unicode version the check used (an index, see UnicodeVersionName). */
  int unicode_version = 0;
};

/*!
 * \brief Checks that `utf8` is a name Python accepts as a parameter name, keywords aside,
 *        with the tables of Unicode version `unicode_version` (an index, 0 to
 *        UnicodeVersionCount() - 1; see FindUnicodeVersion).
 *
 * The name must be strict UTF-8 (no overlong forms, no surrogates U+D800-U+DFFF, nothing above
 * U+10FFFF, no cut-short sequences or stray continuation bytes); invalid UTF-8 anywhere is
 * reported before any other problem. It must be an identifier exactly as Python's
 * str.isidentifier() decides (XID_Start or '_' first, XID_Continue after); a character that
 * breaks this is reported before one that breaks the NFKC form. And it must be in NFKC form,
 * exactly as unicodedata.normalize("NFKC", name) == name decides: no character that NFKC
 * replaces (U+FB01 LATIN SMALL LIGATURE FI, U+00AA, fullwidth letters, ...), combining marks
 * in canonical order, and no character that NFKC composes with one before it ("e\u0301" is
 * refused, "b\u0301" accepted: where the quick check says "maybe", the part of the name
 * concerned is normalized).
 */
NameCheck CheckIdentifier(std::string_view utf8, int unicode_version);

/*! \brief CheckIdentifier with the process-wide Unicode version (IdentifierUnicodeVersion). */
NameCheck CheckIdentifier(std::string_view utf8);

/*!
 * \brief Says why `name` was refused, to follow "Invalid parameter name: '<name>' ", e.g.
 *        "is not a valid Python identifier (U+00A0 at byte 1 cannot appear in an
 *        identifier)". `check` is CheckIdentifier(name, ...). Empty for NameProblem::kNone.
 */
std::string DescribeNameProblem(std::string_view name, const NameCheck& check);

/*!
 * \brief Makes CheckIdentifier(utf8) follow Unicode `version` in this process: Python's
 *        kwcall calls it at import with unicodedata.unidata_version, so names follow the
 *        running interpreter. Returns false, changing nothing, when kwcall has no tables for
 *        it. Until then the newest version is used.
 */
bool SetIdentifierUnicodeVersion(std::string_view version);

/*! \brief The Unicode version CheckIdentifier(utf8) uses, e.g. "17.0.0". */
std::string_view IdentifierUnicodeVersion();

}  // namespace kwcall

#endif  // KWCALL_SRC_IDENTIFIER_H_
