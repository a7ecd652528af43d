// The parameter-name rule: strict UTF-8, Python's identifier rule and NFKC form, for each
// Unicode version kwcall has tables for. tests/python/test_identifier_rule.py compares it with
// the running Python for every code point.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "identifier.h"

namespace kwcall {
namespace {

// The UTF-8 encoding of `cp` (written out so that no literal depends on the compiler's
// execution character set).
std::string U(uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// Hex bytes, for the trace of a failing expectation.
std::string Shown(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    constexpr char kHex[] = "0123456789ABCDEF";
    out += kHex[c >> 4];
    out += kHex[c & 15];
    out += ' ';
  }
  return out;
}

void ExpectValid(std::string_view name) {
  SCOPED_TRACE("name bytes: " + Shown(name));
  NameCheck check = CheckIdentifier(name);
  EXPECT_EQ(check.problem, NameProblem::kNone) << DescribeNameProblem(name, check);
  EXPECT_EQ(DescribeNameProblem(name, check), "");
}

// Expects `problem` for the character `codepoint` at byte `offset`; returns the description.
std::string ExpectProblem(std::string_view name, NameProblem problem, uint32_t codepoint,
                          size_t offset) {
  SCOPED_TRACE("name bytes: " + Shown(name));
  NameCheck check = CheckIdentifier(name);
  EXPECT_EQ(check.problem, problem);
  EXPECT_EQ(check.codepoint, codepoint);
  EXPECT_EQ(check.offset, offset);
  std::string text = DescribeNameProblem(name, check);
  EXPECT_FALSE(text.empty());
  return text;
}

std::string ExpectInvalidUtf8(std::string_view name, size_t offset) {
  std::string text = ExpectProblem(name, NameProblem::kInvalidUtf8, 0, offset);
  EXPECT_EQ(text.rfind("is not valid UTF-8", 0), 0u) << text;
  return text;
}

// The index of a version the tables must have.
int Version(std::string_view name) {
  const int index = FindUnicodeVersion(name);
  EXPECT_GE(index, 0) << name;
  return index;
}

TEST(Identifier, HasTheUnicodeVersionOfEachSupportedPython) {
  // Python 3.10, 3.11, 3.12, 3.13, 3.14, 3.15.
  const std::string_view expected[] = {"13.0.0", "14.0.0", "15.0.0", "15.1.0", "16.0.0", "17.0.0"};
  ASSERT_EQ(UnicodeVersionCount(), 6);
  for (int i = 0; i < UnicodeVersionCount(); ++i) {
    EXPECT_EQ(UnicodeVersionName(i), expected[i]);
    EXPECT_EQ(FindUnicodeVersion(expected[i]), i);
  }
  EXPECT_EQ(UnicodeVersionName(-1), "");
  EXPECT_EQ(UnicodeVersionName(6), "");
  EXPECT_EQ(FindUnicodeVersion("15.1"), -1);
}

TEST(Identifier, ANewProcessUsesTheNewestVersion) {
  // Nothing in this test binary selects a version, as in a C++ program without Python.
  EXPECT_EQ(IdentifierUnicodeVersion(), "17.0.0");
  EXPECT_EQ(CheckIdentifier(U(0x10940)).problem, NameProblem::kNone);  // new in 17.0
  EXPECT_EQ(CheckIdentifier(U(0x10940)).unicode_version, Version("17.0.0"));
}

TEST(Identifier, SelectingAVersionChangesTheProcessWideOne) {
  ASSERT_TRUE(SetIdentifierUnicodeVersion("15.0.0"));
  EXPECT_EQ(IdentifierUnicodeVersion(), "15.0.0");
  EXPECT_EQ(CheckIdentifier("a" + U(0x200D)).problem, NameProblem::kBadCharacter);
  EXPECT_FALSE(SetIdentifierUnicodeVersion("99.0.0"));  // no tables: nothing changes
  EXPECT_EQ(IdentifierUnicodeVersion(), "15.0.0");
  ASSERT_TRUE(SetIdentifierUnicodeVersion("17.0.0"));
  EXPECT_EQ(CheckIdentifier("a" + U(0x200D)).problem, NameProblem::kNone);
}

TEST(Identifier, AcceptsAsciiNames) {
  for (std::string_view name : {"x", "foo", "foo_bar", "FooBar", "a1", "x9_", "__init__", "_", "_1",
                                "match", "case", "lambda_"}) {
    ExpectValid(name);
  }
}

TEST(Identifier, RefusesAsciiThatIsNoIdentifier) {
  std::string text = ExpectProblem("1a", NameProblem::kBadStart, '1', 0);
  EXPECT_EQ(text,
            "is not a valid Python identifier (U+0031 '1' at byte 0 cannot start an identifier, "
            "only follow its first character)");
  ExpectProblem("9", NameProblem::kBadStart, '9', 0);
  text = ExpectProblem("a-b", NameProblem::kBadCharacter, '-', 1);
  EXPECT_EQ(text,
            "is not a valid Python identifier (U+002D '-' at byte 1 cannot appear in an "
            "identifier)");
  ExpectProblem("-a", NameProblem::kBadStart, '-', 0);
  ExpectProblem("a b", NameProblem::kBadCharacter, ' ', 1);
  ExpectProblem("a.b", NameProblem::kBadCharacter, '.', 1);
  ExpectProblem("$", NameProblem::kBadStart, '$', 0);
  ExpectProblem(std::string_view("a\0b", 3), NameProblem::kBadCharacter, 0, 1);
  ExpectProblem("ab\x7f", NameProblem::kBadCharacter, 0x7F, 2);
}

TEST(Identifier, RefusesTheEmptyName) {
  NameCheck check = CheckIdentifier("");
  EXPECT_EQ(check.problem, NameProblem::kEmpty);
  EXPECT_EQ(DescribeNameProblem("", check),
            "is empty (a parameter name must be a Python identifier)");
}

TEST(Identifier, AcceptsNonAsciiIdentifiers) {
  ExpectValid("caf" + U(0xE9));                 // café, precomposed
  ExpectValid(U(0x53D8) + U(0x91CF));           // 变量
  ExpectValid(U(0x5909) + U(0x6570) + "_1");    // 変数_1
  ExpectValid(U(0x3B1) + U(0x3B2));             // αβ
  ExpectValid(U(0x43F) + U(0x440) + U(0x438));  // при
  ExpectValid(U(0xAC00));                       // 가, a precomposed Hangul syllable
  ExpectValid(U(0x1F0));                        // ǰ, a precomposed letter NFKC keeps
  ExpectValid("a" + U(0x0660));                 // Arabic-Indic digit zero after a letter
  ExpectValid(U(0x10400));                      // 𐐀, outside the BMP
  ExpectValid("x" + U(0x0316) + U(0x0483));     // marks in canonical order (220, 230)
  ExpectValid(U(0x1161));  // a Hangul vowel starts the name: nothing to compose with
}

TEST(Identifier, RefusesCharactersThatAreNoIdentifierCharacters) {
  std::string text = ExpectProblem("a" + U(0xA0) + "b", NameProblem::kBadCharacter, 0xA0, 1);
  EXPECT_EQ(text,
            "is not a valid Python identifier (U+00A0 at byte 1 cannot appear in an identifier)");
  text = ExpectProblem(U(0x20AC), NameProblem::kBadStart, 0x20AC, 0);  // €
  EXPECT_EQ(text,
            "is not a valid Python identifier (U+20AC at byte 0 cannot appear in an identifier)");
  ExpectProblem("a" + U(0x20AC), NameProblem::kBadCharacter, 0x20AC, 1);
  ExpectProblem(U(0x0301) + "a", NameProblem::kBadStart, 0x301, 0);       // a mark cannot start
  ExpectProblem(U(0x0660), NameProblem::kBadStart, 0x660, 0);             // nor a digit
  ExpectProblem("a" + U(0x200B), NameProblem::kBadCharacter, 0x200B, 1);  // zero width space
  ExpectProblem(U(0xE000), NameProblem::kBadStart, 0xE000, 0);            // private use
  ExpectProblem("a" + U(0xFFFF), NameProblem::kBadCharacter, 0xFFFF, 1);  // noncharacter
  ExpectProblem("a" + U(0x10FFFF), NameProblem::kBadCharacter, 0x10FFFF, 1);
  ExpectProblem("a" + U(0x0378), NameProblem::kBadCharacter, 0x378, 1);  // unassigned
  ExpectProblem(U(0x1F600), NameProblem::kBadStart, 0x1F600, 0);         // emoji
}

TEST(Identifier, FollowsTheSelectedVersion) {
  // Unicode 15.1 made ZERO WIDTH (NON-)JOINER and KATAKANA MIDDLE DOT identifier characters
  // after the first; Python 3.13 accepts them there, earlier Pythons do not.
  for (uint32_t cp : {0x200Du, 0x200Cu, 0x30FBu}) {
    EXPECT_EQ(CheckIdentifier("a" + U(cp), Version("15.1.0")).problem, NameProblem::kNone);
    EXPECT_EQ(CheckIdentifier("a" + U(cp), Version("17.0.0")).problem, NameProblem::kNone);
    NameCheck check = CheckIdentifier("a" + U(cp), Version("15.0.0"));
    EXPECT_EQ(check.problem, NameProblem::kBadCharacter);
    EXPECT_EQ(check.unicode_version, Version("15.0.0"));
  }
  // The description follows the version of the check.
  const std::string zwj = U(0x200D);
  EXPECT_EQ(DescribeNameProblem(zwj, CheckIdentifier(zwj, Version("15.1.0"))),
            "is not a valid Python identifier (U+200D at byte 0 cannot start an identifier, "
            "only follow its first character)");
  EXPECT_EQ(DescribeNameProblem(zwj, CheckIdentifier(zwj, Version("15.0.0"))),
            "is not a valid Python identifier (U+200D at byte 0 cannot appear in an identifier)");
  // New letters: CJK Extension I (15.1), CYRILLIC CAPITAL LETTER TJE (16.0), SIDETIC
  // LETTER N01 (17.0); each is refused by the versions before it.
  const struct {
    uint32_t cp;
    const char* since;
    const char* before;
  } added[] = {
      {0x2EBF0, "15.1.0", "15.0.0"}, {0x1C89, "16.0.0", "15.1.0"}, {0x10940, "17.0.0", "16.0.0"}};
  for (const auto& letter : added) {
    SCOPED_TRACE(letter.since);
    EXPECT_EQ(CheckIdentifier(U(letter.cp), Version(letter.since)).problem, NameProblem::kNone);
    EXPECT_EQ(CheckIdentifier(U(letter.cp), Version(letter.before)).problem,
              NameProblem::kBadStart);
    EXPECT_EQ(CheckIdentifier(U(letter.cp), Version("13.0.0")).problem, NameProblem::kBadStart);
  }
  // Out-of-range indices are clamped to the oldest and newest.
  EXPECT_EQ(CheckIdentifier(U(0x10940), 99).problem, NameProblem::kNone);
  EXPECT_EQ(CheckIdentifier("a" + zwj, -1).problem, NameProblem::kBadCharacter);
}

TEST(Identifier, RefusesCompatibilityForms) {
  std::string text = ExpectProblem(U(0xFB01), NameProblem::kNotNormalized, 0xFB01, 0);  // ﬁ
  EXPECT_NE(text.find("is not NFKC-normalized (U+FB01 at byte 0"), std::string::npos) << text;
  EXPECT_NE(text.find("unicodedata.normalize('NFKC', name)"), std::string::npos) << text;
  ExpectProblem("x" + U(0xFB01) + "le", NameProblem::kNotNormalized, 0xFB01, 1);
  ExpectProblem(U(0xAA), NameProblem::kNotNormalized, 0xAA, 0);           // ª
  ExpectProblem(U(0xB5), NameProblem::kNotNormalized, 0xB5, 0);           // µ, micro sign
  ExpectProblem(U(0xBA), NameProblem::kNotNormalized, 0xBA, 0);           // º
  ExpectProblem("x" + U(0x2082), NameProblem::kBadCharacter, 0x2082, 1);  // subscript two
  ExpectProblem(U(0xFF41), NameProblem::kNotNormalized, 0xFF41, 0);       // fullwidth a
  ExpectProblem(U(0x1D400), NameProblem::kNotNormalized, 0x1D400, 0);     // mathematical bold A
  ExpectProblem(U(0x2160), NameProblem::kNotNormalized, 0x2160, 0);       // Roman numeral one
  ExpectProblem(U(0xF900), NameProblem::kNotNormalized, 0xF900, 0);       // CJK compatibility
  ExpectProblem("a" + U(0x0340), NameProblem::kNotNormalized, 0x340, 1);  // singleton mapping
  ExpectProblem("a" + U(0xFF65), NameProblem::kNotNormalized, 0xFF65, 1);
}

TEST(Identifier, RefusesDecomposedForms) {
  // "e" + COMBINING ACUTE ACCENT is "é" decomposed: NFKC composes it.
  std::string text = ExpectProblem("e" + U(0x301), NameProblem::kNotNormalized, 0x301, 1);
  EXPECT_EQ(text.rfind("is not NFKC-normalized (U+0301 at byte 1 composes with a character "
                       "before it under NFKC normalization)",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("unicodedata.normalize('NFKC', name)"), std::string::npos) << text;
  ExpectProblem("caf" + U(0x65) + U(0x301), NameProblem::kNotNormalized, 0x301, 4);
  ExpectProblem(U(0x1100) + U(0x1161), NameProblem::kNotNormalized, 0x1161, 3);  // 가 as jamo
  ExpectProblem(U(0xAC00) + U(0x11A8), NameProblem::kNotNormalized, 0x11A8, 3);  // 각 as LV+T
  ExpectProblem(U(0x304B) + U(0x3099), NameProblem::kNotNormalized, 0x3099, 3);  // か + dakuten
  // ç + COMBINING ACUTE ACCENT is ḉ: a precomposed character composes further.
  ExpectProblem(U(0xE7) + U(0x301), NameProblem::kNotNormalized, 0x301, 2);
  ExpectProblem("a" + U(0x301) + U(0x301), NameProblem::kNotNormalized, 0x301, 1);  // á + acute
  // A mark of a lower class between them does not block the composition: e + 0316 + 0301
  // is NFKC é + 0316.
  ExpectProblem("e" + U(0x316) + U(0x301), NameProblem::kNotNormalized, 0x301, 3);
  // U+113C5 TULU-TIGALARI VOWEL SIGN AI decomposes to U+113C2 U+113C2: after U+113C2 its
  // first half composes with it (Unicode 16.0; unassigned, so no identifier, before).
  const std::string ee = U(0x113C2), ai = U(0x113C5);
  ExpectProblem("a" + ee + ai, NameProblem::kNotNormalized, 0x113C5, 5);
  ExpectValid("a" + ai + ee);
  EXPECT_EQ(CheckIdentifier("a" + ee + ai, Version("15.1.0")).problem, NameProblem::kBadCharacter);
}

TEST(Identifier, AcceptsCharactersTheQuickCheckCannotDecide) {
  // NFKC's quick check says "maybe" for these, and nothing composes them with what is before
  // them: Python accepts the names, so kwcall does.
  ExpectValid("a" + U(0x30B));         // a + COMBINING DOUBLE ACUTE ACCENT
  ExpectValid("b" + U(0x301));         // no precomposed b with acute
  ExpectValid(U(0xE9) + U(0x301));     // é + acute: é has no acute form
  ExpectValid(U(0x1161) + U(0x11A8));  // a vowel and a final: only LV composes with T
  ExpectValid(U(0x1161));              // nothing before it
  ExpectValid("x" + U(0x3099));        // dakuten after a letter with no voiced form
}

TEST(Identifier, RefusesMarksOutOfCanonicalOrder) {
  // U+0483 has combining class 230 and U+0316 class 220: NFKC swaps them.
  std::string text =
      ExpectProblem("x" + U(0x483) + U(0x316), NameProblem::kNotNormalized, 0x316, 3);
  EXPECT_NE(text.find("combining class 220, follows one of class 230"), std::string::npos) << text;
  ExpectValid("x" + U(0x483) + "y" + U(0x316));  // a starter between them resets the order
}

TEST(Identifier, ReportsAnIdentifierProblemBeforeANormalizationOne) {
  ExpectProblem(U(0xFB01) + "-", NameProblem::kBadCharacter, '-', 3);
  ExpectProblem("e" + U(0x301) + U(0xA0), NameProblem::kBadCharacter, 0xA0, 3);
  ExpectProblem("a" + U(0xFB01) + U(0x301), NameProblem::kNotNormalized, 0xFB01, 1);
}

TEST(Identifier, RefusesStrayContinuationBytes) {
  std::string text = ExpectInvalidUtf8("\x80", 0);
  EXPECT_EQ(text,
            "is not valid UTF-8 (the byte 0x80 at byte 0 is a continuation byte with no lead byte "
            "before it)");
  ExpectInvalidUtf8("ab\xbf", 2);
  ExpectInvalidUtf8("caf\xc3\xa9\xa9", 5);
}

TEST(Identifier, RefusesBytesThatNeverOccur) {
  for (const char* name : {"\xf8", "\xfc\x80\x80\x80\x80\x80", "\xfe", "a\xff"}) {
    std::string text = ExpectInvalidUtf8(name, name[0] == 'a' ? 1 : 0);
    EXPECT_NE(text.find("never occurs in UTF-8"), std::string::npos) << text;
  }
}

TEST(Identifier, RefusesTruncatedSequences) {
  std::string text = ExpectInvalidUtf8("a\xe2\x82", 1);
  EXPECT_EQ(text,
            "is not valid UTF-8 (the 3-byte sequence E2 82 at byte 1 is cut short after 2 "
            "bytes)");
  ExpectInvalidUtf8("\xc3", 0);
  ExpectInvalidUtf8("\xc3x", 0);
  ExpectInvalidUtf8("\xe2\x82x", 0);
  ExpectInvalidUtf8("\xf0\x9f\x98", 0);
  ExpectInvalidUtf8("\xf0\x9f\x98\xc3\xa9", 0);
}

TEST(Identifier, RefusesOverlongForms) {
  std::string text = ExpectInvalidUtf8("\xc0\xaf", 0);  // "/"
  EXPECT_EQ(text,
            "is not valid UTF-8 (the bytes C0 AF at byte 0 are an overlong encoding of U+002F, "
            "which UTF-8 writes in 1 byte)");
  ExpectInvalidUtf8("a\xc1\xbf", 1);
  ExpectInvalidUtf8("\xc0\x80", 0);  // "modified UTF-8" NUL
  ExpectInvalidUtf8("\xe0\x80\xaf", 0);
  ExpectInvalidUtf8("\xe0\x9f\xbf", 0);  // U+07FF in three bytes
  ExpectInvalidUtf8("\xf0\x80\x80\xaf", 0);
  ExpectInvalidUtf8("\xf0\x8f\xbf\xbf", 0);  // U+FFFF in four bytes
  ExpectValid("a\xdf\x80");                  // U+07C0 NKO DIGIT ZERO in two bytes is fine
}

TEST(Identifier, RefusesSurrogates) {
  std::string text = ExpectInvalidUtf8("\xed\xa0\x80", 0);
  EXPECT_EQ(text,
            "is not valid UTF-8 (the bytes ED A0 80 at byte 0 encode the surrogate U+D800, which "
            "UTF-8 excludes)");
  ExpectInvalidUtf8("a\xed\xbf\xbf", 1);                                  // U+DFFF
  ExpectInvalidUtf8("\xed\xa0\xbd\xed\xb8\x80", 0);                       // a CESU-8 surrogate pair
  ExpectProblem("a\xed\x9f\xbf", NameProblem::kBadCharacter, 0xD7FF, 1);  // just below
  ExpectProblem("a\xee\x80\x80", NameProblem::kBadCharacter, 0xE000, 1);  // just above
}

TEST(Identifier, RefusesCodepointsAboveTheUnicodeRange) {
  std::string text = ExpectInvalidUtf8("\xf4\x90\x80\x80", 0);
  EXPECT_EQ(text,
            "is not valid UTF-8 (the bytes F4 90 80 80 at byte 0 encode 0x110000, above "
            "U+10FFFF)");
  ExpectInvalidUtf8("\xf5\x80\x80\x80", 0);
  ExpectInvalidUtf8("a\xf7\xbf\xbf\xbf", 1);
  ExpectProblem("a\xf4\x8f\xbf\xbf", NameProblem::kBadCharacter, 0x10FFFF, 1);  // the last one
}

TEST(Identifier, ReportsInvalidUtf8BeforeAnyOtherProblem) {
  ExpectInvalidUtf8("-\xff", 1);
  ExpectInvalidUtf8("1a\xc3", 2);
  ExpectInvalidUtf8(U(0xFB01) + "\x80", 3);
}

}  // namespace
}  // namespace kwcall
