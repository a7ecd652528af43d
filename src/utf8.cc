// Strict UTF-8 decoding and the messages for text that is not UTF-8.
#include "utf8.h"

#include <cstdio>

namespace kwcall {
namespace {

std::string Hex(uint32_t value, int digits) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%0*X", digits, static_cast<unsigned>(value));
  return buffer;
}

std::string Bytes(std::string_view utf8, size_t pos, size_t count) {
  std::string text;
  for (size_t i = 0; i < count && pos + i < utf8.size(); ++i) {
    if (i > 0) text += ' ';
    text += Hex(static_cast<unsigned char>(utf8[pos + i]), 2);
  }
  return text;
}

}  // namespace

DecodedChar DecodeUtf8At(std::string_view utf8, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(utf8[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return {Utf8Error::kNone, lead, 1, 1};
  if (lead < 0xC0) return {Utf8Error::kStrayContinuation, 0, 1, 1};
  if (lead >= 0xF8) return {Utf8Error::kInvalidByte, 0, 1, 1};
  const size_t length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  uint32_t value = lead & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) {
    if (pos + i >= utf8.size() || (byte(pos + i) & 0xC0) != 0x80) {
      return {Utf8Error::kTruncated, 0, length, i};
    }
    value = (value << 6) | (byte(pos + i) & 0x3F);
  }
  Utf8Error error = Utf8Error::kNone;
  if (value < kSmallest[length]) {
    error = Utf8Error::kOverlong;
  } else if (value >= 0xD800 && value <= 0xDFFF) {
    error = Utf8Error::kSurrogate;
  } else if (value > 0x10FFFF) {
    error = Utf8Error::kTooLarge;
  }
  return {error, value, length, length};
}

bool IsValidUtf8(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    const DecodedChar decoded = DecodeUtf8At(text, pos);
    if (decoded.error != Utf8Error::kNone) return false;
    pos += decoded.length;
  }
  return true;
}

std::string DescribeInvalidUtf8(std::string_view name, size_t pos) {
  const std::string at = " at byte " + std::to_string(pos);
  if (pos >= name.size()) return "is not valid UTF-8";
  const DecodedChar decoded = DecodeUtf8At(name, pos);
  const std::string lead = "0x" + Hex(static_cast<unsigned char>(name[pos]), 2);
  const std::string seq = "the bytes " + Bytes(name, pos, decoded.present) + at;
  std::string why;
  switch (decoded.error) {
    case Utf8Error::kNone:
      return "is not valid UTF-8";
    case Utf8Error::kStrayContinuation:
      why = "the byte " + lead + at + " is a continuation byte with no lead byte before it";
      break;
    case Utf8Error::kInvalidByte:
      why = "the byte " + lead + at + " never occurs in UTF-8";
      break;
    case Utf8Error::kTruncated:
      why = "the " + std::to_string(decoded.length) + "-byte sequence " +
            Bytes(name, pos, decoded.present) + at + " is cut short after " +
            std::to_string(decoded.present) + " byte" + (decoded.present == 1 ? "" : "s");
      break;
    case Utf8Error::kOverlong:
      why = seq + " are an overlong encoding of U+" + Hex(decoded.codepoint, 4) +
            ", which UTF-8 writes in " + (decoded.codepoint < 0x80 ? "1 byte" : "fewer bytes");
      break;
    case Utf8Error::kSurrogate:
      why = seq + " encode the surrogate U+" + Hex(decoded.codepoint, 4) + ", which UTF-8 excludes";
      break;
    case Utf8Error::kTooLarge:
      why = seq + " encode 0x" + Hex(decoded.codepoint, 4) + ", above U+10FFFF";
      break;
  }
  return "is not valid UTF-8 (" + why + ")";
}

std::string CodepointText(uint32_t cp) {
  std::string text = "U+" + Hex(cp, 4);
  if (cp > 0x20 && cp < 0x7F) {
    text += " '";
    text += static_cast<char>(cp);
    text += "'";
  }
  return text;
}

std::string ShownText(std::string_view text) {
  if (IsValidUtf8(text)) return std::string(text);
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace kwcall
