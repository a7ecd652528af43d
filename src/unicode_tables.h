// The Unicode character data behind the identifier rule, one set per Unicode version of a
// supported Python: which characters may start or continue an identifier, and what NFKC
// normalization needs (which characters it replaces, combining classes, canonical
// decompositions and compositions). The data is src/identifier_table.inc, made by
// scripts/gen_identifier_table.py; only this file's .cc includes it.
#ifndef KWCALL_SRC_UNICODE_TABLES_H_
#define KWCALL_SRC_UNICODE_TABLES_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace kwcall {

/*! \brief How many Unicode versions kwcall has tables for; indices go oldest first. */
int UnicodeVersionCount();

/*! \brief The version with index `index`, e.g. "15.1.0"; empty when out of range. */
std::string_view UnicodeVersionName(int index);

/*! \brief The index of `version` as unicodedata.unidata_version writes it, or -1. */
int FindUnicodeVersion(std::string_view version);

/*! \brief Whether `cp` may start an identifier in Unicode version `version` (XID_Start, '_'). */
bool IsIdentifierStart(uint32_t cp, int version);

/*! \brief Whether `cp` may follow an identifier's first character (XID_Continue). */
bool IsIdentifierContinue(uint32_t cp, int version);

// The NFKC properties below may only be asked about identifier characters: their ranges also
// cover characters outside XID_Continue (see scripts/gen_identifier_table.py). None depends on
// the version for a character the version has (Unicode's stability policies).

/*! \brief Whether NFKC normalization replaces `cp` wherever it stands. */
bool ChangedByNfkc(uint32_t cp);

/*! \brief Whether `cp` can compose with a character before it. */
bool ComposesWithPrevious(uint32_t cp);

/*! \brief The canonical combining class of `cp` (0 for a starter). */
int CombiningClass(uint32_t cp);

/*!
 * \brief Appends the full canonical decomposition of `cp` to `out`. Exact for identifier
 *        characters that NFKC keeps, whose NFKD is their NFD, made of their canonical pairs
 *        (asserted by the generator).
 */
void AppendCanonicalDecomposition(uint32_t cp, std::vector<uint32_t>* out);

/*! \brief The primary composite of `first` and `second`, or 0 when they do not compose. */
uint32_t PrimaryComposite(uint32_t first, uint32_t second);

}  // namespace kwcall

#endif  // KWCALL_SRC_UNICODE_TABLES_H_
