// plugin/run.h password_lines: how a --password-file or --password-stdin text becomes passwords.
#include <gtest/gtest.h>

#include "plugin/run.h"

namespace roo {
namespace {

using Lines = std::vector<std::string>;

TEST(PasswordLines, OneALineSpacesKept) {
  EXPECT_EQ(password_lines("first\n second \nthird"), (Lines{"first", " second ", "third"}));
}

TEST(PasswordLines, LineEndsAreNotPartOfThePassword) {
  EXPECT_EQ(password_lines("dos\r\nunix\n"), (Lines{"dos", "unix"}));
  // Only the one CR before the LF goes: a CR inside a password stays.
  EXPECT_EQ(password_lines("a\rb\r\r\n"), (Lines{"a\rb\r"}));
}

TEST(PasswordLines, EmptyLinesAreLeftOut) {
  EXPECT_EQ(password_lines(""), Lines{});
  EXPECT_EQ(password_lines("\n\r\n\n"), Lines{});
  EXPECT_EQ(password_lines("\nx\n\ny\n"), (Lines{"x", "y"}));
}

}  // namespace
}  // namespace roo
