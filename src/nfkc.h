// Whether a name is in NFKC form, as unicodedata.normalize("NFKC", name) == name decides: the
// quick check per character, and Unicode's normalization algorithm (UAX #15) for the parts of
// a name where the quick check cannot tell. Only identifier characters are asked about (the
// tables cover no others; see unicode_tables.h).
#ifndef KWCALL_SRC_NFKC_H_
#define KWCALL_SRC_NFKC_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kwcall {

/*!
 * \brief The quick check for the identifier character `cp`: false when the name is not in
 *        NFKC form whatever the other characters (NFKC replaces `cp`, or marks are out of
 *        canonical order). `prev_ccc` is the combining class of the character before it (0 at
 *        the start), updated to this one's.
 */
bool PassesNfkcQuickCheck(uint32_t cp, int* prev_ccc);

/*!
 * \brief Whether NFKC normalization leaves utf8[begin, end) as it is: `chars` identifier
 *        characters, valid UTF-8, that pass the quick check, the first of which nothing
 *        before it can reach (class 0, not ComposesWithPrevious) or the name's first.
 *        Normalization works on such segments one at a time. When the segment changes,
 *        *culprit is the byte offset of the character that composed with one before it, else
 *        of the first character that differs.
 */
bool SegmentIsNfkcNormalized(std::string_view utf8, size_t begin, size_t end, size_t chars,
                             size_t* culprit);

}  // namespace kwcall

#endif  // KWCALL_SRC_NFKC_H_
