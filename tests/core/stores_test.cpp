// Naming the workspace of a workspace-state store (roo-format.md §1.3) and reading host settings (§1.2).
#include "core/stores.h"

#include <gtest/gtest.h>

namespace roo {
namespace {

// roo-format.md §1.3 test vectors, computed with Node using the shim's algorithm.
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

}  // namespace
}  // namespace roo
