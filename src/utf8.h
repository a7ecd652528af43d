// Strict UTF-8 decoding, and the words for what is wrong with bytes that are not UTF-8: the
// first step of the identifier rule (identifier.h), and how names that are not text are shown
// in messages.
#ifndef KWCALL_SRC_UTF8_H_
#define KWCALL_SRC_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kwcall {

/*! \brief Why the bytes at a position are not one UTF-8 character. */
enum class Utf8Error {
  kNone,
  kStrayContinuation,  //!< 0x80-0xBF where a character should start
  kInvalidByte,        //!< 0xF8-0xFF: no UTF-8 sequence starts with it
  kTruncated,          //!< fewer continuation bytes than the lead byte announces
  kOverlong,           //!< a longer sequence than the codepoint needs
  kSurrogate,          //!< U+D800-U+DFFF
  kTooLarge,           //!< above U+10FFFF
};

/*! \brief One character read from UTF-8 text, or why it could not be. */
struct DecodedChar {
  Utf8Error error;
  uint32_t codepoint;  //!< the value read, also for kOverlong, kSurrogate and kTooLarge
  size_t length;       //!< bytes the lead byte announces (1 for a byte that leads nothing)
  size_t present;      //!< bytes of the sequence actually there (< length for kTruncated)
};

/*!
 * \brief Decodes the character starting at `pos` (< utf8.size()), strictly: no overlong
 *        forms, no surrogates, nothing above U+10FFFF, no cut-short sequences.
 */
DecodedChar DecodeUtf8At(std::string_view utf8, size_t pos);

/*! \brief Whether all of `text` is strict UTF-8. */
bool IsValidUtf8(std::string_view text);

/*!
 * \brief Says why `text` is not UTF-8 at byte `pos`, to follow "'<name>' ", e.g. "is not
 *        valid UTF-8 (the byte 0xFF at byte 3 never occurs in UTF-8)".
 */
std::string DescribeInvalidUtf8(std::string_view text, size_t pos);

/*! \brief "U+00A0", or "U+0031 '1'" for a visible ASCII character. */
std::string CodepointText(uint32_t cp);

/*!
 * \brief `text` as it can be shown in a message: as it is when it is UTF-8, else with each
 *        byte that is not printable ASCII written \xNN.
 */
std::string ShownText(std::string_view text);

}  // namespace kwcall

#endif  // KWCALL_SRC_UTF8_H_
