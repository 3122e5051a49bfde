// Naming the workspace of a workspace-state store (docs/roo-format.md §1.3) and reading host settings (§1.2).
#include "core/store_assembly.h"
#include "core/state_vscdb_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>

#include "core/text_util.h"

namespace roo {
namespace {

// docs/roo-format.md §1.3 test vectors, computed with Node using the shim's algorithm.
TEST(CliWorkspaceHash, MatchesTheShimsTestVectors_roo_format_1_3) {
  EXPECT_EQ(cli_workspace_hash("/home/user/project"), "5eb3a44a");
  EXPECT_EQ(cli_workspace_hash("C:\\Users\\user\\project"), "7182e121");
  EXPECT_EQ(cli_workspace_hash("/Users/alice/code/app"), "3fb84b64");
  EXPECT_EQ(cli_workspace_hash(""), "0");
}

// Non-ASCII paths hash their UTF-16 code units: "é" is one unit (0xE9), "😀" two (0xD83D 0xDE00); the expected
// values are Java's String.hashCode worked by hand.
TEST(CliWorkspaceHash, NonAsciiPathsHashUtf16Units) {
  EXPECT_EQ(cli_workspace_hash("\xC3\xA9"), "e9");
  // 0xD83D * 31 + 0xDE00 = 55357 * 31 + 56832 = 1716067 + 56832 = 1772899 = 0x1b0d63
  EXPECT_EQ(cli_workspace_hash("\xF0\x9F\x98\x80"), "1b0d63");
}

TEST(WorkspaceJson, FolderUriIsDecodedToAPath) {
  // VS Code's fsPath form, as history_item.workspace records it (lower-case drive, backslashes).
  EXPECT_EQ(workspace_json_folder(R"({"folder":"file:///C%3A/Users/dana/repo"})"), "c:\\Users\\dana\\repo");
  EXPECT_EQ(workspace_json_folder(R"({"folder":"file:///home/u/my%20proj"})"), "/home/u/my proj");
  EXPECT_EQ(workspace_json_folder(R"({"workspace":"file:///home/u/all.code-workspace"})"), "/home/u/all.code-workspace");
  EXPECT_EQ(workspace_json_folder(R"({"folder":"vscode-remote://ssh-remote%2Bbox/home/u"})"), std::nullopt);
  EXPECT_EQ(workspace_json_folder("not json"), std::nullopt);
}

TEST(HostSettings, CustomStoragePathIsReadFromJsonc_roo_format_1_2) {
  EXPECT_EQ(custom_storage_path("{ // c\n \"roo-cline.customStoragePath\": \" /data/roo \", }"), "/data/roo");
  EXPECT_EQ(custom_storage_path(R"({"roo-cline.customStoragePath": ""})"), std::nullopt);  // empty: the default
  EXPECT_EQ(custom_storage_path(R"({"editor.fontSize": 12})"), std::nullopt);
}


// What state_db_may_hold searched with before: std::search comparing std::tolower of both sides.
bool search_with_tolower(const std::string& bytes, std::string_view name) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  return std::search(bytes.begin(), bytes.end(), name.begin(), name.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != bytes.end();
}

TEST(CaseInsensitiveSearch, FindsTheNameAnywhereInEitherCase) {
  using namespace std::string_literals;
  EXPECT_TRUE(contains_ascii_case_insensitive("roo-cline...", "roo-cline"));             // at the start
  EXPECT_TRUE(contains_ascii_case_insensitive("....ROO-CLINE", "roo-cline"));            // at the end
  EXPECT_TRUE(contains_ascii_case_insensitive("x\0RoO-cLiNe\0y"s, "roo-cline"));        // mixed case, NULs about
  EXPECT_TRUE(contains_ascii_case_insensitive("roo-cline", "ROO-CLINE"));               // the name's case is folded too
  EXPECT_TRUE(contains_ascii_case_insensitive("roo-cline", "roo-cline"));               // the whole of the bytes
  EXPECT_TRUE(contains_ascii_case_insensitive("rRroo-clin roo-clinRoo-Cline", "roo-cline"));  // false starts first
  EXPECT_TRUE(contains_ascii_case_insensitive("Rrrrrroo-code-nightly", "roo-code-nightly"));
  EXPECT_FALSE(contains_ascii_case_insensitive("roo-clin", "roo-cline"));               // the name is longer
  EXPECT_FALSE(contains_ascii_case_insensitive("", "roo-cline"));
  EXPECT_FALSE(contains_ascii_case_insensitive("roo_cline roo-clime oo-cline", "roo-cline"));
  EXPECT_FALSE(contains_ascii_case_insensitive("xroo-clin", "roo-cline"));              // cut at the end
  // Only A-Z fold: bytes 0x20 apart that are not letters ('@' '`', '[' '{') and Latin-1 letters (0xC9 'É', 0xE9
  // 'é') stay apart, as std::tolower keeps them in the "C" locale.
  EXPECT_FALSE(contains_ascii_case_insensitive("a`b", "a@b"));
  EXPECT_FALSE(contains_ascii_case_insensitive("{x", "[x"));
  EXPECT_FALSE(contains_ascii_case_insensitive("caf\xC9", "caf\xE9"));
  EXPECT_TRUE(contains_ascii_case_insensitive("CAF\xE9!", "caf\xE9"));
  EXPECT_FALSE(contains_ascii_case_insensitive("\xC9t\xC9", "\xE9T"));
  // An empty name is found in any bytes but empty ones (std::search's answer).
  EXPECT_TRUE(contains_ascii_case_insensitive("x", ""));
  EXPECT_FALSE(contains_ascii_case_insensitive("", ""));
}

TEST(CaseInsensitiveSearch, SameAnswerAsSearchWithTolower) {
  std::mt19937 rng(20260301);
  const std::string alphabet = "rRoO-cClLiInNeE\x80\xE9\xC9@`[{";
  for (int round = 0; round < 20000; ++round) {
    auto draw = [&](size_t n, bool from_alphabet) {
      std::string s(n, '\0');
      for (char& c : s)
        c = from_alphabet ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng() % 256);
      return s;
    };
    const std::string bytes = draw(rng() % 40, round % 3 != 0);
    std::string name = draw(rng() % 5, true);
    if (round % 7 == 0 && bytes.size() > 3) name = bytes.substr(rng() % (bytes.size() - 2), 2 + rng() % 2);
    ASSERT_EQ(contains_ascii_case_insensitive(bytes, name), search_with_tolower(bytes, name))
        << "bytes size " << bytes.size() << " name size " << name.size() << " round " << round;
  }
}

std::string sqlite_header(unsigned char encoding, size_t size = 100) {
  std::string h("SQLite format 3\0", 16);
  h.resize(size, '\0');
  if (size > 59) h[59] = static_cast<char>(encoding);
  return h;
}

TEST(StateDbMayHold, UsesTheNameOrTheHeadersTextEncoding) {
  EXPECT_TRUE(state_db_may_hold(sqlite_header(1) + "..roo-cline..", "roo-cline"));
  EXPECT_FALSE(state_db_may_hold(sqlite_header(1) + "..roo-code..", "roo-cline"));    // UTF-8: the bytes decide
  EXPECT_TRUE(state_db_may_hold(sqlite_header(2), "roo-cline"));                       // UTF-16le: always opened
  EXPECT_TRUE(state_db_may_hold(sqlite_header(3), "roo-cline"));                       // UTF-16be: always opened
  EXPECT_FALSE(state_db_may_hold(sqlite_header(4), "roo-cline"));
  EXPECT_FALSE(state_db_may_hold(sqlite_header(0), "roo-cline"));
  EXPECT_TRUE(state_db_may_hold(sqlite_header(2, 60), "roo-cline"));                   // the shortest header
  EXPECT_FALSE(state_db_may_hold(sqlite_header(2, 59), "roo-cline"));                  // too short to say
  std::string not_sqlite = sqlite_header(2);
  not_sqlite[15] = ' ';  // "SQLite format 3 ": no header
  EXPECT_FALSE(state_db_may_hold(not_sqlite, "roo-cline"));
  EXPECT_TRUE(state_db_may_hold("random bytes ROO-CODE-NIGHTLY random", "roo-code-nightly"));
  EXPECT_FALSE(state_db_may_hold("short", "roo-code-nightly"));
}

// iequals folds A-Z only, as std::tolower does in the "C" locale: every pair of bytes compares as before.
TEST(Iequals, FoldsAsciiLettersOnly) {
  EXPECT_TRUE(iequals("", ""));
  EXPECT_TRUE(iequals("Workspace.JSON", "workspace.json"));
  EXPECT_FALSE(iequals("workspace.json", "workspace.jso"));
  EXPECT_FALSE(iequals("a@", "a`"));
  EXPECT_FALSE(iequals("\xC9", "\xE9"));  // Latin-1 É, é: not folded
  EXPECT_TRUE(iequals("\xC9\xFF", "\xC9\xFF"));
  EXPECT_FALSE(iequals("\xC3\x89", "\xC3\xA9"));  // UTF-8 É, é: not folded
  for (int a = 0; a < 256; ++a)
    for (int b = 0; b < 256; ++b) {
      const char x[2] = {'k', static_cast<char>(a)}, y[2] = {'K', static_cast<char>(b)};
      ASSERT_EQ(iequals(std::string_view(x, 2), std::string_view(y, 2)), std::tolower(a) == std::tolower(b))
          << a << " " << b;
    }
}
}  // namespace
}  // namespace roo
