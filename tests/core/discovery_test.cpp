// Discovery and task assembly on a plain folder built here, byte by byte.
#include "core/discovery.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <sqlite3.h>

#include "core/file_kinds.h"
#include "core/folder_evidence.h"
#include "test_util.h"

namespace roo {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

// A history_item.json that cannot be read still leaves the task its row and workspace from _index.json.
TEST(Discovery, UnreadableHistoryItemFallsBackToTheIndexEntry) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path root = fs::path(dir) / "home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks";
  write(root / "_index.json",
        R"({"version":1,"updatedAt":2,"entries":[{"id":"t1","number":1,"ts":1760000000000,"task":"fix","tokensIn":1,"tokensOut":2,"totalCost":0.5,"workspace":"/w"}]})");
  write(root / "t1/history_item.json", R"({"id":"t1","ts":17600)");  // cut mid-write
  write(root / "t1/ui_messages.json", R"([{"ts":1760000000000,"type":"say","say":"text","text":"fix"}])");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  ASSERT_EQ(rows.rows.size(), 3u);
  EXPECT_EQ(rows.str(0, "kind"), "parser_error");
  EXPECT_EQ(rows.str(0, "text").rfind("parser: history_item.json is not a JSON object", 0), 0u);
  EXPECT_EQ(rows.str(1, "kind"), "task");
  EXPECT_EQ(rows.str(1, "known_from"), "index");
  EXPECT_EQ(rows.str(1, "project_path"), "/w");
  EXPECT_EQ(rows.str(2, "kind"), "user_message");
  EXPECT_EQ(rows.str(2, "project_path"), "/w");
  EXPECT_EQ(report.roots.size(), 1u);
  EXPECT_EQ(report.homes_searched, std::vector<std::string>{"/home/u"});
  fs::remove_all(dir);
}

// docs/roo-format.md §1.2: roo-cline.customStoragePath in the editor's settings.json (JSONC) moves the tasks; discovery
// follows it on the same file system and says so. A Windows drive letter is dropped to look the path up.
TEST(Discovery, CustomStoragePathIsFollowed_roo_format_1_2) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path home = fs::path(dir) / "Users/bob";
  write(home / "AppData/Roaming/Code/User/settings.json",
        "{\n  // where Roo keeps its tasks\n  \"roo-cline.customStoragePath\": \"D:\\\\RooData\",\n"
        "  /* block */ \"editor.fontSize\": 13,\n}\n");
  write(fs::path(dir) / "RooData/tasks/t9/ui_messages.json",
        R"([{"ts":1760000000000,"type":"say","say":"text","text":"hello"}])");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  ASSERT_EQ(rows.rows.size(), 2u);
  EXPECT_EQ(rows.str(0, "kind"), "user_message");
  EXPECT_EQ(rows.str(0, "session_id"), "t9");
  EXPECT_EQ(rows.str(0, "surface"), "vscode");
  EXPECT_EQ(rows.str(0, "user"), "bob");
  EXPECT_EQ(rows.str(1, "kind"), "host_setting");
  EXPECT_EQ(rows.str(1, "text"),
            "host setting: roo-cline.customStoragePath=D:\\RooData (from /Users/bob/AppData/Roaming/Code/User/"
            "settings.json, file mtime)");
  EXPECT_EQ(rows.str(1, "resolved_path"), "/RooData");
  ASSERT_EQ(report.roots.size(), 1u);
  EXPECT_EQ(report.roots[0].found_by, "customStoragePath in /Users/bob/AppData/Roaming/Code/User/settings.json");
  fs::remove_all(dir);
}

TEST(Jsonc, CommentsAndTrailingCommasAreRemovedOutsideStrings) {
  EXPECT_EQ(strip_jsonc("{\"a\": \"//x,}\", // c\n \"b\": [1,2,], /* d */}"), "{\"a\": \"//x,}\", \n \"b\": [1,2 ]  }");  // both commas were trailing
}

// An editor's extensions folder says which Roo Code version was installed and when (extensions.json
// metadata.installedTimestamp), and the version's own folder is there too; other extensions give no row.
TEST(Discovery, InstalledExtensionGivesInstallationRows) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path ext = fs::path(dir) / "home/u/.vscode/extensions";
  write(ext / "extensions.json",
        R"([{"identifier":{"id":"ms-python.python"},"version":"2025.1.0","metadata":{"installedTimestamp":1}},)"
        R"({"identifier":{"id":"rooveterinaryinc.roo-cline","uuid":"u"},"version":"3.25.4","location":{"$mid":1,"fsPath":"/home/u/.vscode/extensions/rooveterinaryinc.roo-cline-3.25.4","scheme":"file"},"relativeLocation":"rooveterinaryinc.roo-cline-3.25.4","metadata":{"installedTimestamp":1755000000000,"source":"gallery","isPreReleaseVersion":false}}])");
  write(ext / "rooveterinaryinc.roo-cline-3.25.4/package.json", "{}");
  write(ext / "ms-python.python-2025.1.0/package.json", "{}");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  ASSERT_EQ(rows.rows.size(), 2u);
  EXPECT_EQ(rows.str(0, "kind"), "installation");
  EXPECT_EQ(rows.str(0, "surface"), "vscode");
  EXPECT_EQ(rows.str(0, "version"), "3.25.4");
  EXPECT_EQ(rows.str(0, "time_utc"), "2025-08-12T12:00:00.000Z");  // date -u -d @1755000000
  EXPECT_EQ(rows.str(0, "time_source"), "extensions_json.installedTimestamp");
  EXPECT_EQ(rows.str(0, "install_source"), "gallery");
  EXPECT_EQ(rows.str(1, "kind"), "installation");
  EXPECT_EQ(rows.str(1, "text"), "installation: extension folder rooveterinaryinc.roo-cline-3.25.4");
  EXPECT_EQ(rows.str(1, "version"), "3.25.4");
  EXPECT_EQ(rows.str(1, "install_path"), "/home/u/.vscode/extensions/rooveterinaryinc.roo-cline-3.25.4");
  fs::remove_all(dir);
}

// docs/roo-format.md §1.3, §6; docs/row-contract.md "Scratch directories": the CLI's machine id, ~/.roo's rules,
// commands and skills (names and times, never their text) and its worktrees (scratch checkouts).
TEST(Discovery, RooHomeInventoryNamesEntriesWithoutReadingThem) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path home = fs::path(dir) / "home/erin";
  write(home / ".vscode-mock/.machine-id", std::string(64, 'a'));
  write(home / ".roo/rules/01-style.md", "Always use tabs. SECRET-RULE-TEXT");
  write(home / ".roo/rules-code/tests.md", "x");
  write(home / ".roo/commands/deploy.md", "y");
  fs::create_directories(home / ".roo/worktrees/shop-k3j9x");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  std::vector<std::string> texts;
  for (size_t i = 0; i < rows.rows.size(); ++i) texts.push_back(rows.str(i, "kind") + " " + rows.str(i, "text"));
  EXPECT_EQ(texts, (std::vector<std::string>{
                       "install_identity cli machine id: " + std::string(64, 'a') + " (from /home/erin/.vscode-mock/.machine-id)",
                       "roo_config_entry roo config: rules/01-style.md",
                       "roo_config_entry roo config: rules-code/tests.md",
                       "roo_config_entry roo config: commands/deploy.md",
                       "worktree worktree: /home/erin/.roo/worktrees/shop-k3j9x (scratch directory)",
                   }));
  for (const std::string& line : rows.lines) EXPECT_EQ(line.find("SECRET-RULE-TEXT"), std::string::npos);
  EXPECT_EQ(rows.str(4, "classification"), "scratch");
  // The machine id is the CLI's alone; ~/.roo's rules, commands and worktrees are read by the extension in every
  // editor and by the CLI (docs/roo-format.md §6), so no one surface: `shared`.
  EXPECT_EQ(rows.str(0, "surface"), "cli");
  for (size_t i = 1; i < rows.rows.size(); ++i) EXPECT_EQ(rows.str(i, "surface"), "shared") << i;
  EXPECT_EQ(rows.rows[1]["size_bytes"].GetInt(), 33);  // printf %s "Always use tabs. SECRET-RULE-TEXT" | wc -c
  fs::remove_all(dir);
}

// docs/row-contract.md "Permission rows": a project's .roo/mcp.json gives mcpServers.<name>.alwaysAllow rows that
// carry the project; the project is found through the workspace a task of the home names.
TEST(Discovery, ProjectMcpJsonOfAWorkspaceSeen_row_contract) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path tasks = fs::path(dir) / "home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks";
  write(tasks / "t1/history_item.json",
        R"({"id":"t1","number":1,"ts":1760000000000,"task":"x","tokensIn":1,"tokensOut":1,"totalCost":0,"workspace":"/home/u/proj"})");
  write(fs::path(dir) / "home/u/proj/.roo/mcp.json", R"({"mcpServers":{"db":{"command":"pg-mcp","alwaysAllow":["query"]}}})");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  std::vector<std::string> kinds;
  for (size_t i = 0; i < rows.rows.size(); ++i) kinds.push_back(rows.str(i, "kind"));
  EXPECT_EQ(kinds, (std::vector<std::string>{"task", "mcp_server", "mcp_always_allow"}));
  EXPECT_EQ(rows.str(2, "text"), "permission setting: mcpServers.db.alwaysAllow=query (from /home/u/proj/.roo/mcp.json, file mtime)");
  EXPECT_EQ(rows.str(2, "project_path"), "/home/u/proj");
  EXPECT_EQ(rows.str(2, "session_id"), "<absent>");
  fs::remove_all(dir);
}

// A VS Code profile's own state database (User/profiles/<id>/globalStorage/state.vscdb): its rows name the profile,
// with the name storage.json gives it. The database is made here with SQLite itself.
TEST(Discovery, ProfileStateRowsNameTheirProfile) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path user = fs::path(dir) / "home/u/.config/Code/User";
  write(user / "globalStorage/storage.json", R"({"userDataProfiles":[{"location":"-5a1b2c3d","name":"Work"}]})");
  fs::create_directories(user / "profiles/-5a1b2c3d/globalStorage");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((user / "profiles/-5a1b2c3d/globalStorage/state.vscdb").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);"
                         "INSERT INTO ItemTable VALUES ('RooVeterinaryInc.roo-cline', "
                         "'{\"alwaysAllowExecute\":true,\"rooApiKey\":\"k-PLANTED\"}');"
                         "INSERT INTO ItemTable VALUES ('secret://{\"extensionId\":\"rooveterinaryinc.roo-cline\","
                         "\"key\":\"openRouterApiKey\"}', 'v10-PLANTED');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  char scratch[] = "/tmp/roo-scratch-XXXXXX";  // the copy SQLite needs goes here, never beside the evidence
  ASSERT_TRUE(mkdtemp(scratch));
  ScanOptions opts;
  opts.scratch_dir = scratch;
  scan_file_system(folder, rows, report, opts);
  EXPECT_TRUE(fs::is_empty(scratch));  // the private copy is gone
  fs::remove_all(scratch);
  // The extension row's credential (rooApiKey) and the SecretStorage row are both credential_present rows of this
  // file: numbered apart, so their row ids differ; neither value is written.
  ASSERT_EQ(rows.rows.size(), 3u);
  EXPECT_EQ(rows.str(1, "kind"), "credential_present");
  EXPECT_EQ(rows.str(2, "kind"), "credential_present");
  EXPECT_EQ(rows.str(2, "credential_key"), "openRouterApiKey");
  EXPECT_NE(rows.str(1, "row_id"), rows.str(2, "row_id"));
  for (const std::string& line : rows.lines) EXPECT_EQ(line.find("PLANTED"), std::string::npos);
  EXPECT_EQ(rows.str(2, "profile_name"), "Work");
  EXPECT_EQ(rows.str(0, "kind"), "permission_setting");
  EXPECT_EQ(rows.str(0, "profile_id"), "-5a1b2c3d");
  EXPECT_EQ(rows.str(0, "profile_name"), "Work");
  EXPECT_EQ(rows.str(0, "text"),
            "permission setting: alwaysAllowExecute=true (from /home/u/.config/Code/User/profiles/-5a1b2c3d/"
            "globalStorage/state.vscdb ItemTable RooVeterinaryInc.roo-cline, file mtime)");
  fs::remove_all(dir);
}

// docs/roo-format.md §1.1: every VS Code-family host's user-data dir on Windows, macOS and
// Linux, the remote server dirs, and the nightly extension's own folder, each found with its surface and the home's
// owner. One task per root, named after where it is, so a root read twice or under the wrong surface shows.
TEST(Discovery, EveryHostOnEveryOs_roo_format_1_1) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::pair<const char*, const char*> hosts[] = {
      {"vscode", "Code"},       {"vscode-insiders", "Code - Insiders"},
      {"vscodium", "VSCodium"}, {"vscodium-insiders", "VSCodium - Insiders"},
      {"cursor", "Cursor"},     {"windsurf", "Windsurf"}};
  const std::pair<const char*, const char*> oses[] = {
      {"Users/win", "AppData/Roaming"}, {"Users/mac", "Library/Application Support"}, {"home/lin", ".config"}};
  std::set<std::string> wanted;
  auto task = [&](const fs::path& root, const std::string& id, const std::string& surface, const std::string& user) {
    write(
        root / "tasks" / id / "history_item.json",
        R"({"id":")" + id + R"(","number":1,"ts":1760000000000,"task":"t","tokensIn":1,"tokensOut":1,"totalCost":0})");
    wanted.insert(surface + " " + user + " " + id);
  };
  for (auto [surface, product] : hosts)
    for (auto [home, base] : oses) {
      const std::string user = fs::path(home).filename();
      const fs::path gs = fs::path(dir) / home / base / product / "User/globalStorage";
      task(gs / "rooveterinaryinc.roo-cline", std::string(surface) + "-" + user, surface, user);
      task(gs / "rooveterinaryinc.roo-code-nightly", std::string("nightly-") + surface + "-" + user, "vscode-nightly",
           user);
    }
  for (const char* server : {".vscode-server", ".vscode-server-insiders"}) {
    const fs::path gs = fs::path(dir) / "home/lin" / server / "data/User/globalStorage";
    task(gs / "rooveterinaryinc.roo-cline", std::string(server + 1) + "-lin", "vscode-server", "lin");
    task(gs / "rooveterinaryinc.roo-code-nightly", std::string("nightly-") + (server + 1) + "-lin", "vscode-nightly",
         "lin");
  }
  task(fs::path(dir) / "root/.vscode-mock/global-storage", "cli-root", "cli", "root");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  std::multiset<std::string> got;
  for (size_t i = 0; i < rows.rows.size(); ++i)
    if (rows.str(i, "kind") == "task")
      got.insert(rows.str(i, "surface") + " " + rows.str(i, "user") + " " + rows.str(i, "session_id"));
  EXPECT_EQ(got, std::multiset<std::string>(wanted.begin(), wanted.end()));
  EXPECT_EQ(wanted.size(), 6u * 3u * 2u + 4u + 1u);
  EXPECT_EQ(report.roots.size(), wanted.size());
  fs::remove_all(dir);
}

// docs/roo-format.md §1.1: VS Code keeps every profile's secrets in application scope, the
// default profile's User/globalStorage/state.vscdb; a profile's database holds its own memento only. Each secret://
// row of the evidence is one credential_present row of the database it is in: none lost, none repeated for the
// profiles. A secret met in a profile's database (an older or altered install) is still reported, there.
TEST(Discovery, SecretsAreReportedOnceWhereVsCodeKeepsThem) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path user = fs::path(dir) / "home/u/.config/Code/User";
  write(user / "globalStorage/storage.json",
        R"({"userDataProfiles":[{"location":"-5a1b2c3d","name":"Work"},{"location":"7e8f9a0b","name":"Old"}]})");
  auto make_db = [](const fs::path& path, const std::string& sql) {
    fs::create_directories(path.parent_path());
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(db, ("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);" + sql).c_str(),
                     nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(db);
  };
  auto secret = [](const char* key, const char* value) {
    return std::string(
               "INSERT INTO ItemTable VALUES ('secret://{\"extensionId\":\"rooveterinaryinc.roo-cline\",\"key\":\"") +
           key + "\"}', '" + value + "');";
  };
  make_db(user / "globalStorage/state.vscdb",
          "INSERT INTO ItemTable VALUES ('RooVeterinaryInc.roo-cline', '{\"mode\":\"code\"}');" +
              secret("openRouterApiKey", "v10-PLANTED-1") + secret("roo_cline_config_api_config", "v10-PLANTED-2"));
  make_db(user / "profiles/-5a1b2c3d/globalStorage/state.vscdb",
          "INSERT INTO ItemTable VALUES ('RooVeterinaryInc.roo-cline', '{\"mode\":\"architect\"}');");
  make_db(user / "profiles/7e8f9a0b/globalStorage/state.vscdb", secret("anthropicApiKey", "v10-PLANTED-3"));
  char scratch[] = "/tmp/roo-scratch-XXXXXX";
  ASSERT_TRUE(mkdtemp(scratch));
  ScanOptions opts;
  opts.scratch_dir = scratch;
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report, opts);
  fs::remove_all(scratch);
  std::vector<std::string> got;
  for (size_t i = 0; i < rows.rows.size(); ++i) {
    const std::string path = rows.src(i)["path"].GetString();
    got.push_back(
        rows.str(i, "kind") + " " + path.substr(path.find("/User/") + 6) + " " +
        (rows.str(i, "kind") == "credential_present"
             ? rows.str(i, "credential_key") + " " + rows.str(i, "secret_scope") + " " + rows.str(i, "profile_id")
             : rows.str(i, "setting_value")));
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "permission_setting globalStorage/state.vscdb code",
                     "credential_present globalStorage/state.vscdb openRouterApiKey application <absent>",
                     "credential_present globalStorage/state.vscdb roo_cline_config_api_config application <absent>",
                     "permission_setting profiles/-5a1b2c3d/globalStorage/state.vscdb architect",
                     "credential_present profiles/7e8f9a0b/globalStorage/state.vscdb anthropicApiKey profile 7e8f9a0b",
                 }));
  std::set<std::string> ids;
  for (size_t i = 0; i < rows.rows.size(); ++i) EXPECT_TRUE(ids.insert(rows.str(i, "row_id")).second) << i;
  for (const std::string& line : rows.lines) EXPECT_EQ(line.find("PLANTED"), std::string::npos);
  fs::remove_all(dir);
}

// Nothing lost: a secret the -wal deleted (a sign-out not yet checkpointed) is still in the main file's
// bytes; it is reported once, marked, after the live ones. The pair is made in WAL mode and copied while open.
TEST(Discovery, SecretDeletedInTheWalIsStillReported) {
  char dir[] = "/tmp/roo-disc-XXXXXX", made[] = "/tmp/roo-wal-XXXXXX", scratch[] = "/tmp/roo-scratch-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir) && mkdtemp(made) && mkdtemp(scratch));
  const fs::path db_path = fs::path(made) / "state.vscdb";
  const fs::path gs = fs::path(dir) / "home/u/.config/Code/User/globalStorage";
  fs::create_directories(gs);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  const std::string secret = R"(secret://{"extensionId":"rooveterinaryinc.roo-cline","key":)";
  ASSERT_EQ(
      sqlite3_exec(db,
                   ("PRAGMA journal_mode=WAL; CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);"
                    "INSERT INTO ItemTable VALUES ('" +
                    secret + R"("apiKey"}', 'v10-PLANTED-a');)" + "INSERT INTO ItemTable VALUES ('" + secret +
                    R"("rooAuthToken"}', 'v10-PLANTED-b');)" +
                    "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint=0;"
                    "DELETE FROM ItemTable WHERE key = '" +
                    secret + R"("rooAuthToken"}';)")
                       .c_str(),
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  fs::copy_file(db_path, gs / "state.vscdb");
  fs::copy_file(fs::path(made) / "state.vscdb-wal", gs / "state.vscdb-wal");
  sqlite3_close(db);
  ScanOptions opts;
  opts.scratch_dir = scratch;
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report, opts);
  ASSERT_EQ(rows.rows.size(), 2u);
  EXPECT_EQ(rows.str(0, "credential_key"), "apiKey");
  EXPECT_EQ(rows.str(1, "credential_key"), "rooAuthToken");
  EXPECT_EQ(rows.str(1, "text"),
            "credential present: rooAuthToken (from /home/u/.config/Code/User/globalStorage/"
            "state.vscdb SecretStorage, encrypted; deleted in the -wal, still in the main file)");
  EXPECT_TRUE(rows.rows[1]["deleted_in_wal"].GetBool());
  EXPECT_FALSE(rows.rows[0].HasMember("deleted_in_wal"));
  EXPECT_NE(rows.str(0, "row_id"), rows.str(1, "row_id"));
  for (const std::string& line : rows.lines) EXPECT_EQ(line.find("PLANTED"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(scratch));
  fs::remove_all(dir);
  fs::remove_all(made);
  fs::remove_all(scratch);
}

// docs/roo-format.md §1.2: a custom storage path on another volume (D:) is not on the settings' own file system; the
// scan records it as not found here, and the second file system, asked for it, reads its tasks.
TEST(Discovery, CustomStoragePathOnAnotherFileSystem_roo_format_1_2) {
  char a[] = "/tmp/roo-disc-XXXXXX", b[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(a));
  ASSERT_TRUE(mkdtemp(b));
  write(fs::path(a) / "Users/bob/AppData/Roaming/Code/User/settings.json", R"({"roo-cline.customStoragePath":"D:\\RooData"})");
  write(fs::path(b) / "RooData/tasks/t7/ui_messages.json", R"([{"ts":1760000000000,"type":"say","say":"text","text":"hi"}])");
  FolderFileSystem first(a), second(b);
  test::CapturedRows rows;
  ScanReport report_a, report_b;
  scan_file_system(first, rows, report_a);
  ASSERT_EQ(report_a.custom_storage_paths.size(), 1u);
  const CustomStoragePath& wanted = report_a.custom_storage_paths[0];
  EXPECT_FALSE(wanted.found_here);
  EXPECT_EQ(wanted.recorded_path, "D:\\RooData");
  EXPECT_EQ(wanted.user, std::optional<std::string>("bob"));
  ASSERT_EQ(rows.rows.size(), 1u);  // the host_setting row only: no tasks on this file system
  // True of this file system only, and it says the path is looked for on the others.
  EXPECT_EQ(rows.str(0, "resolution"),
            "not on this file system; looked for on the evidence's other file systems (report.json "
            "custom_storage_path_resolution)");

  EXPECT_TRUE(scan_custom_storage_path(second, wanted, rows, report_b));
  ASSERT_EQ(rows.rows.size(), 3u);
  // The finding is a row of its own on the second file system, then the root's rows.
  EXPECT_EQ(rows.str(1, "kind"), "host_setting");
  EXPECT_EQ(rows.str(1, "resolution"), "found here, named on another file system");
  EXPECT_EQ(rows.str(1, "resolved_path"), "/RooData");
  EXPECT_EQ(rows.str(1, "time_source"), "none");
  EXPECT_EQ(rows.str(2, "kind"), "user_message");
  EXPECT_EQ(rows.str(2, "session_id"), "t7");
  EXPECT_EQ(rows.str(2, "user"), "bob");
  EXPECT_EQ(rows.str(2, "surface"), "vscode");
  ASSERT_EQ(report_b.roots.size(), 1u);
  EXPECT_EQ(report_b.roots[0].found_by,
            "customStoragePath in /Users/bob/AppData/Roaming/Code/User/settings.json (another file system)");
  EXPECT_FALSE(scan_custom_storage_path(first, wanted, rows, report_a));  // not there: nothing read
  fs::remove_all(a);
  fs::remove_all(b);
}

// docs/roo-format.md §1.2: with a customStoragePath set, a task's files are in the custom root but its
// checkpoint repository stays in the default globalStorage root. The default root's directory holds only
// checkpoints/: it gives one checkpoint_repo row with the task's id as session, and no second task row.
TEST(Discovery, CheckpointsLeftInTheDefaultRootJoinTheTask_roo_format_1_2) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path user = fs::path(dir) / "home/u/.config/Code/User";
  write(user / "settings.json", R"({"roo-cline.customStoragePath": "/data/roo"})");
  const std::string id = "019d0000-0000-7000-8000-000000000001";
  write(user / "globalStorage/rooveterinaryinc.roo-cline/tasks" / id / "checkpoints/.git/HEAD",
        "ref: refs/heads/master\n");
  write(
      fs::path(dir) / "data/roo/tasks" / id / "history_item.json",
      R"({"id":")" + id +
          R"(","number":1,"ts":1760000000000,"task":"x","tokensIn":1,"tokensOut":1,"totalCost":0,"workspace":"/home/u/p"})");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  std::vector<std::string> got;
  for (size_t i = 0; i < rows.rows.size(); ++i)
    got.push_back(rows.str(i, "kind") + " " + rows.str(i, "session_id") + " " + rows.str(i, "surface"));
  EXPECT_EQ(got, (std::vector<std::string>{"checkpoint_repo " + id + " vscode", "task " + id + " vscode",
                                           "host_setting <absent> vscode"}));
  const std::string repo =
      "/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/" + id + "/checkpoints";
  EXPECT_EQ(rows.str(0, "text"),
            "checkpoint repository of task " + id + " at " + repo + ": no task file beside it in this root");
  EXPECT_EQ(rows.str(0, "checkpoint_dir"), repo);
  EXPECT_EQ(rows.str(0, "time_source"), "file.mtime");
  EXPECT_EQ(rows.src(0)["path"].GetString(), repo);
  ASSERT_EQ(report.roots.size(), 2u);
  EXPECT_EQ(report.roots[1].path, "/data/roo");
  fs::remove_all(dir);
}

// docs/roo-format.md §1.3: the CLI keeps roo-cline.customStoragePath in its global-state.json; docs/row-contract.md
// "Scratch directories": a task whose workspace is in ~/.roo/worktrees ran in a scratch checkout.
TEST(Discovery, CliCustomStoragePathAndScratchWorkspace_roo_format_1_3_row_contract) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  write(fs::path(dir) / "home/erin/.vscode-mock/global-storage/global-state.json",
        "{\n  \"roo-cline.customStoragePath\": \"/srv/roo\"\n}");
  write(fs::path(dir) / "srv/roo/tasks/t1/history_item.json",
        R"({"id":"t1","number":1,"ts":1760000000000,"task":"x","tokensIn":1,"tokensOut":1,"totalCost":0,"workspace":"/home/erin/.roo/worktrees/site-k3j9x","mode":"code"})");
  write(fs::path(dir) / "srv/roo/tasks/t2/history_item.json",
        R"({"id":"t2","number":1,"ts":1760000000001,"task":"y","tokensIn":1,"tokensOut":1,"totalCost":0,"workspace":"/home/erin/site"})");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  ASSERT_GE(rows.rows.size(), 3u);
  EXPECT_EQ(rows.str(0, "kind"), "task");
  EXPECT_EQ(rows.str(0, "surface"), "cli");
  EXPECT_EQ(rows.str(0, "workspace_class"), "scratch");
  EXPECT_EQ(rows.str(2, "kind"), "task");
  EXPECT_EQ(rows.str(2, "workspace_class"), "project");
  ASSERT_EQ(report.custom_storage_paths.size(), 1u);
  EXPECT_TRUE(report.custom_storage_paths[0].found_here);
  ASSERT_EQ(report.roots.size(), 2u);  // the CLI's default root (it holds global-state.json), then the custom one
  EXPECT_EQ(report.roots[0].found_by, "catalog");
  EXPECT_EQ(report.roots[1].path, "/srv/roo");
  EXPECT_EQ(report.roots[1].found_by, "customStoragePath in /home/erin/.vscode-mock/global-storage/global-state.json");
  fs::remove_all(dir);
}

// A state database that never names roo-cline (most workspaceStorage ones) holds nothing of Roo's and is not
// copied for SQLite at all; one that does is read (here: reported unread, as no scratch directory was given).
TEST(Discovery, StateDatabasesWithoutRooAreNotOpened) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path ws = fs::path(dir) / "home/u/.config/Code/User/workspaceStorage";
  for (const char* id : {"a1", "b2"}) {
    fs::create_directories(ws / id);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((ws / id / "state.vscdb").c_str(), &db), SQLITE_OK);
    std::string sql = "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);"
                      "INSERT INTO ItemTable VALUES ('ms-python.python', '{}');";
    if (std::string(id) == "b2") sql += "INSERT INTO ItemTable VALUES ('RooVeterinaryInc.roo-cline', '{}');";
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);  // no scratch directory
  ASSERT_EQ(rows.rows.size(), 1u);
  EXPECT_EQ(rows.src(0)["path"].GetString(), std::string("/home/u/.config/Code/User/workspaceStorage/b2/state.vscdb"));
  EXPECT_EQ(rows.str(0, "text"), "parser: state.vscdb was not read (no scratch directory for its private copy)");
  fs::remove_all(dir);
}

// docs/roo-format.md §1.4: roo-cli-<13-digit ms>-<1 to 9 of [0-9a-z]>.
TEST(Catalog, EphemeralDirNames_roo_format_1_4) {
  EXPECT_EQ(ephemeral_dir_time("roo-cli-1760000000000-abc123xyz"), 1760000000000);
  EXPECT_EQ(ephemeral_dir_time("roo-cli-1760000000000-a"), 1760000000000);
  EXPECT_FALSE(ephemeral_dir_time("roo-cli-1760000000000-abc123xyz0"));  // 10 random chars
  EXPECT_FALSE(ephemeral_dir_time("roo-cli-176000000000-abc"));          // 12 digits
  EXPECT_FALSE(ephemeral_dir_time("roo-cli-1760000000000-ABC"));         // not base 36 lower case
  EXPECT_FALSE(ephemeral_dir_time("roo-cli-1760000000000-"));
  EXPECT_FALSE(ephemeral_dir_time("roo-cli-1760000000000_abc"));
}

// docs/roo-format.md §2.2: safeWriteJson's .<file>.new_<ms>_<rand36>.tmp and .<file>.bak_<ms>_<rand36>.tmp.
TEST(Catalog, SafeWriteJsonTempNames_roo_format_2_2) {
  auto t = parse_temp_file_name(".ui_messages.json.new_1760000000000_k3j9x2ab1c.tmp");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->base, "ui_messages.json");
  EXPECT_EQ(t->kind, "new");
  EXPECT_EQ(t->ms, 1760000000000);
  t = parse_temp_file_name(".api_conversation_history.json.bak_1760000000123_0q8w7e6r5t.tmp");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->base, "api_conversation_history.json");
  EXPECT_EQ(t->kind, "bak");
  t = parse_temp_file_name("._index.json.new_1760000000000_x.tmp");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->base, "_index.json");
  EXPECT_FALSE(parse_temp_file_name("ui_messages.json"));
  EXPECT_FALSE(parse_temp_file_name(".ui_messages.json.old_1760000000000_k3j.tmp"));
  EXPECT_FALSE(parse_temp_file_name(".ui_messages.json.new_1760000000000_K3J.tmp"));
  EXPECT_FALSE(parse_temp_file_name(".new_1760000000000_k3j.tmp"));  // no file name
  EXPECT_FALSE(parse_temp_file_name(".ui_messages.json.new_17600x0000000_k3j.tmp"));
}

// A folder whose chosen paths read as deleted names (and some as reallocated), as libtsk reports them, so discovery's
// handling of deleted entries runs on real bytes without an image.
class DeletingView : public FileSystemView {
 public:
  DeletingView(const std::string& dir, std::set<std::string> deleted, std::set<std::string> reallocated)
      : folder_(dir), deleted_(std::move(deleted)), reallocated_(std::move(reallocated)) {}
  const VolumeInfo& volume() const override { return folder_.volume(); }
  FileMeta root() override { return folder_.root(); }
  std::vector<FileMeta> list_dir(const FileMeta& dir) override {
    std::vector<FileMeta> out = folder_.list_dir(dir);
    for (FileMeta& m : out)
      if (deleted_.count(m.path) || reallocated_.count(m.path)) {
        m.name_allocated = false;
        m.recovery = Recovery::deleted;
        m.reallocated = reallocated_.count(m.path) > 0;
      }
    return out;
  }
  std::unique_ptr<ByteSource> open(const FileMeta& file) override { return folder_.open(file); }

 private:
  FolderFileSystem folder_;
  std::set<std::string> deleted_, reallocated_;
};

// Deleted task dirs and files are parsed with recovery "deleted"; temp files of safeWriteJson are versions
// (a temp_file row timed by the name, then the file's rows as temp_leftover); a lock directory and deleted names that
// are not read get their own rows; a roo --ephemeral dir in /tmp is a CLI root of surface cli-ephemeral.
TEST(Discovery, DeletedTempAndEphemeralEntries_roo_format_1_4_2_2) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string tasks = "/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks";
  const fs::path base = fs::path(dir);
  const std::string ui_live = R"([{"ts":1760000000000,"type":"say","say":"text","text":"live prompt"}])";
  const std::string ui_old = R"([{"ts":1759999999000,"type":"say","say":"text","text":"older prompt"}])";
  write(base / (tasks.substr(1) + "/t1/ui_messages.json"), ui_live);
  // The previous version holds the live record too (folded into the live row) and one the live file lost (kept).
  write(base / (tasks.substr(1) + "/t1/.ui_messages.json.bak_1760000000500_k3j9x2ab1c.tmp"),
        R"([{"ts":1760000000000,"type":"say","say":"text","text":"live prompt"},)" + ui_old.substr(1));
  fs::create_directories(base / (tasks.substr(1) + "/t1/ui_messages.json.lock"));
  write(base / (tasks.substr(1) + "/t1/command-output/cmd-1760000000100.txt"), "full output\n");
  write(base / (tasks.substr(1) + "/t1/api_conversation_history.json"), "[]");
  write(base / (tasks.substr(1) + "/t1/notes.txt"), "not Roo's");
  write(base / (tasks.substr(1) + "/t2/ui_messages.json"), ui_old);
  write(base / "tmp/roo-cli-1760000001000-abc123xyz/global-storage/tasks/t3/ui_messages.json", ui_live);
  DeletingView view(dir,
                    {tasks + "/t1/command-output/cmd-1760000000100.txt", tasks + "/t1/notes.txt", tasks + "/t2",
                     tasks + "/t2/ui_messages.json"},
                    {tasks + "/t1/api_conversation_history.json"});
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(view, rows, report);

  std::vector<std::string> got;
  for (size_t i = 0; i < rows.rows.size(); ++i)
    got.push_back(rows.str(i, "kind") + "/" + rows.src(i)["recovery"].GetString() + "/" + rows.str(i, "session_id"));
  const std::vector<std::string> want = {
      "user_message/allocated/t1",          // the live ui_messages.json
      "command_output/deleted/t1",          // the deleted command output, read and joined to its task
      "temp_file/temp_leftover/t1",         // the .bak_ temp file: its row, then its records
      "assistant_message/temp_leftover/t1",  // its first record (the prompt) is folded but still read first
      "deleted_entry/deleted/t1",           // api history whose metadata was reused: not read
      "deleted_entry/deleted/t1",           // notes.txt: deleted, not a task file
      "lock_dir/allocated/t1",
      "user_message/deleted/t2",            // the deleted task directory's file
      "ephemeral_dir/allocated/<absent>",   // /tmp/roo-cli-…: the CLI did not clean up
      "user_message/allocated/t3",
  };
  EXPECT_EQ(got, want);
  ASSERT_EQ(rows.rows.size(), want.size());
  EXPECT_EQ(rows.str(0, "text"), "live prompt");
  EXPECT_EQ(rows.str(2, "time_utc"), "2025-10-09T08:53:20.500Z");
  EXPECT_EQ(rows.str(2, "time_source"), "file_name.epoch_ms");
  EXPECT_EQ(rows.str(2, "temp_kind"), "bak");
  EXPECT_EQ(rows.str(3, "text"), "older prompt");
  EXPECT_EQ(rows.src(3)["record_index"].GetInt(), 1);  // record 0 is the live file's record: folded into row 0
  ASSERT_TRUE(rows.rows[0].HasMember("also_in"));
  const rapidjson::Value& also = rows.rows[0]["also_in"];
  ASSERT_EQ(also.Size(), 1u);
  EXPECT_EQ(std::string(also[0]["path"].GetString()), tasks + "/t1/.ui_messages.json.bak_1760000000500_k3j9x2ab1c.tmp");
  EXPECT_EQ(std::string(also[0]["recovery"].GetString()), "temp_leftover");
  EXPECT_EQ(also[0]["record_index"].GetInt(), 0);
  EXPECT_FALSE(rows.rows[7].HasMember("also_in"));  // t2 has no live copy to fold into
  EXPECT_EQ(rows.str(4, "entry_outcome"),
            "name deleted and its metadata reused by another file: content not read as this file's");
  EXPECT_EQ(rows.str(5, "entry_outcome"), "deleted file, not a task file: not read");
  EXPECT_EQ(rows.str(6, "text").rfind("lock directory " + tasks + "/t1/ui_messages.json.lock: a write of ui_messages.json", 0),
            0u);
  EXPECT_FALSE(rows.src(7)["name_allocated"].GetBool());
  EXPECT_EQ(rows.str(8, "time_utc"), "2025-10-09T08:53:21.000Z");
  EXPECT_EQ(rows.str(8, "time_source"), "dir_name.epoch_ms");
  EXPECT_EQ(rows.str(8, "surface"), "cli-ephemeral");
  EXPECT_EQ(rows.str(9, "surface"), "cli-ephemeral");
  EXPECT_EQ(report.temp_dirs_searched, std::vector<std::string>{"/tmp"});
  fs::remove_all(dir);
}

// A temp copy of tasks/_index.json is read as a version of the index. Its entry identical in bytes to the
// index's folds (the index's row of it names the copy in also_in); its other entry, a task the index no longer lists,
// gives that task's row with the copy as source.
TEST(Discovery, IndexTempCopyIsReadAsAVersion_roo_format_2_2) {
  char dir[] = "/tmp/roo-idx-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string tasks = "/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks";
  const std::string t1 = R"({"id":"t1","number":2,"ts":1760000000000,"task":"kept"})";
  const std::string t0 = R"({"id":"t0","number":1,"ts":1750000000000,"task":"dropped","mode":"ask"})";
  write(fs::path(dir) / (tasks.substr(1) + "/_index.json"), R"({"version":1,"updatedAt":3,"entries":[)" + t1 + "]}");
  write(fs::path(dir) / (tasks.substr(1) + "/._index.json.bak_1760000000500_k3j9x2ab1c.tmp"),
        R"({"version":1,"updatedAt":2,"entries":[)" + t1 + "," + t0 + "]}");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  ASSERT_EQ(rows.rows.size(), 4u);
  // t1 has no directory: its task row comes from the index, after the index's versions, naming the .bak in also_in
  EXPECT_EQ(rows.str(0, "kind"), "temp_file");
  EXPECT_EQ(rows.str(0, "text"), "previous version of _index.json left by a save (._index.json.bak_1760000000500_k3j9x2ab1c.tmp)");
  EXPECT_EQ(rows.str(1, "kind"), "task");
  EXPECT_EQ(rows.str(1, "session_id"), "t0");
  EXPECT_EQ(rows.str(1, "known_from"), "index");
  EXPECT_FALSE(rows.rows[1]["task_dir_present"].GetBool());
  EXPECT_EQ(rows.str(1, "time_utc"), "2025-06-15T15:06:40.000Z");
  EXPECT_EQ(std::string(rows.src(1)["recovery"].GetString()), "temp_leftover");
  EXPECT_EQ(rows.src(1)["record_index"].GetInt(), 1);
  EXPECT_EQ(rows.str(2, "kind"), "permission_mode");
  EXPECT_EQ(rows.str(3, "session_id"), "t1");
  EXPECT_EQ(std::string(rows.src(3)["path"].GetString()), tasks + "/_index.json");
  ASSERT_TRUE(rows.rows[3].HasMember("also_in"));
  const rapidjson::Value& also = rows.rows[3]["also_in"];
  ASSERT_EQ(also.Size(), 1u);
  EXPECT_EQ(std::string(also[0]["path"].GetString()), tasks + "/._index.json.bak_1760000000500_k3j9x2ab1c.tmp");
  EXPECT_EQ(std::string(also[0]["recovery"].GetString()), "temp_leftover");
  EXPECT_EQ(also[0]["record_index"].GetInt(), 0);
  ASSERT_EQ(report.files.size(), 2u);
  EXPECT_EQ(report.files[1].kind, "task_index");
  EXPECT_EQ(report.files[1].version_folded, 1);
  fs::remove_all(dir);
}

// A deleted child is not counted as present: a subtask link to a task whose directory is there only as a
// deleted name has linked_task_dir_present false and linked_task_dir_deleted true, from the HistoryItem's childIds and
// from a "Subtask <id> completed" result alike; a link to a live directory is present and has no
// linked_task_dir_deleted; a link to a directory that is not there at all has neither.
TEST(Discovery, SubtaskLinkToDeletedTaskDir) {
  char dir[] = "/tmp/roo-link-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string tasks = "/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks";
  const fs::path base = fs::path(dir) / tasks.substr(1);
  write(base / "p/history_item.json",
        R"({"id":"p","number":1,"ts":1760000009000,"task":"plan","childIds":["gone","live","absent"]})");
  write(base / "p/api_conversation_history.json",
        R"([{"role":"user","content":[{"type":"text","text":"plan"}],"ts":1760000000000},)"
        R"({"role":"assistant","content":[{"type":"tool_use","id":"t_1","name":"new_task","input":{"mode":"code","message":"x"}}],"ts":1760000001000},)"
        R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t_1","content":"Subtask gone completed.\n\nResult:\ndone"}],"ts":1760000002000}])");
  write(base / "gone/ui_messages.json", R"([{"ts":1760000001500,"type":"say","say":"text","text":"x"}])");
  write(base / "live/ui_messages.json", R"([{"ts":1760000001600,"type":"say","say":"text","text":"y"}])");
  DeletingView view(dir, {tasks + "/gone", tasks + "/gone/ui_messages.json"}, {});
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(view, rows, report);

  std::vector<std::string> got;  // relation linked_session_id present [deleted]
  for (size_t i = 0; i < rows.rows.size(); ++i) {
    if (rows.str(i, "kind") != "subtask_link") continue;
    const rapidjson::Value& r = rows.rows[i];
    std::string line = rows.str(i, "relation") + " " + rows.str(i, "linked_session_id") + " " +
                       (r["linked_task_dir_present"].GetBool() ? "present" : "not-present");
    if (r.HasMember("linked_task_dir_deleted")) line += r["linked_task_dir_deleted"].GetBool() ? " deleted" : " ?";
    got.push_back(line);
  }
  const std::vector<std::string> want = {
      "child gone not-present deleted",               // history_item.json childIds
      "child live present",
      "child absent not-present",
      "completed_by_child gone not-present deleted",  // api history: "Subtask gone completed."
  };
  EXPECT_EQ(got, want);
  fs::remove_all(dir);
}

// --deep: an orphan's kind from its name (NTFS and FAT keep one) — the task files, _index.json and their
// safeWriteJson temp names (docs/roo-format.md §2.2) — and nothing else.
TEST(Orphans, KindByName) {
  auto k = orphan_kind_by_name("ui_messages.json");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->kind, TaskFileKind::ui_messages);
  EXPECT_STREQ(k->decided_by, "file_name");
  EXPECT_FALSE(k->temp);
  k = orphan_kind_by_name("._index.json.bak_1778260869009_3hx8k2mq0w5.tmp");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->is_index);
  ASSERT_TRUE(k->temp);
  EXPECT_EQ(k->temp->kind, "bak");
  EXPECT_EQ(k->temp->ms, 1778260869009);
  k = orphan_kind_by_name(".history_item.json.new_1777885541251_5mz0c3ka8u.tmp");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->kind, TaskFileKind::history_item);
  EXPECT_FALSE(orphan_kind_by_name("OrphanFile-21"));
  EXPECT_FALSE(orphan_kind_by_name("notes.txt"));
  EXPECT_FALSE(orphan_kind_by_name(".notes.txt.new_1777885541251_5mz0c3ka8u.tmp"));
}

// libtsk names an orphan whose name is lost OrphanFile-<inode>; only those are sniffed.
TEST(Orphans, MadeUpNames) {
  EXPECT_TRUE(is_made_up_orphan_name("OrphanFile-21"));
  EXPECT_FALSE(is_made_up_orphan_name("OrphanFile-"));
  EXPECT_FALSE(is_made_up_orphan_name("OrphanFile-2a"));
  EXPECT_FALSE(is_made_up_orphan_name("orphanfile-21"));
}

// The openings Roo's compact JSON.stringify writes (docs/roo-format.md §2.1–§2.9), and look-alikes that are not Roo's.
TEST(Orphans, KindByOpeningBytes) {
  auto kind_of = [](std::string_view b) -> std::string {
    auto k = orphan_kind_by_content(b);
    if (!k) return "none";
    EXPECT_STREQ(k->decided_by, "content");
    if (k->is_index) return "index";
    switch (k->kind) {
      case TaskFileKind::ui_messages: return "ui";
      case TaskFileKind::api_history: return "api";
      case TaskFileKind::history_item: return "history_item";
      case TaskFileKind::task_metadata: return "task_metadata";
      default: return "other";
    }
  };
  EXPECT_EQ(kind_of(R"([{"ts":1779261123485,"type":"say","say":"text","text":"Rename)"), "ui");
  EXPECT_EQ(kind_of(R"([{"ts":1779261123485,"type":"ask","ask":"followup")"), "ui");
  EXPECT_EQ(kind_of(R"([{"ts":1,"value":2}])"), "none");  // a ts-first array of something else
  EXPECT_EQ(kind_of(R"([{"role":"user","content":[{"type":"text")"), "api");
  EXPECT_EQ(kind_of(R"([{"role":"assistant","content":")"), "api");
  EXPECT_EQ(kind_of(R"({"id":"019e443a-2b99-7c1d-9e2f-3a4b5c6d7e80","number":1,"ts":1779261140915,"task":"Rename)"),
            "history_item");
  EXPECT_EQ(kind_of(R"({"id":"abc","name":"package"})"), "none");  // any other id-first JSON object
  EXPECT_EQ(kind_of(R"({"files_in_context":[{"path":"src/a.py")"), "task_metadata");
  EXPECT_EQ(kind_of(R"({"version":1,"updatedAt":1779378013300,"entries":[{"id":)"), "index");
  EXPECT_EQ(kind_of(R"({"version":1,"dependencies":{}})"), "none");
  EXPECT_EQ(kind_of(""), "none");
  EXPECT_EQ(kind_of(std::string(512, '\0')), "none");  // content that came back as zeros
}

// The file kinds' table: every name it holds is read as its kind where it sits (a task directory, tasks/, a task's
// command-output/), and only there; its sniffs tell the kinds apart in table order.
TEST(FileKinds, NamesAndPlacesOfTheTable) {
  EXPECT_EQ(task_file_kind("ui_messages.json"), TaskFileKind::ui_messages);
  EXPECT_EQ(task_file_kind("api_conversation_history.json"), TaskFileKind::api_history);
  EXPECT_EQ(task_file_kind("claude_messages.json"), TaskFileKind::legacy_claude_messages);
  EXPECT_EQ(task_file_kind("history_item.json"), TaskFileKind::history_item);
  EXPECT_EQ(task_file_kind("task_metadata.json"), TaskFileKind::task_metadata);
  EXPECT_EQ(task_file_kind("_index.json"), TaskFileKind::unknown);  // tasks/'s, not a task directory's
  EXPECT_EQ(task_file_kind("UI_MESSAGES.JSON"), TaskFileKind::unknown);
  EXPECT_EQ(task_file_kind("cmd-1.txt"), TaskFileKind::unknown);
  EXPECT_TRUE(is_command_output_file("cmd-1779261123485.txt"));
  EXPECT_TRUE(is_command_output_file("cmd-x.txt"));
  EXPECT_FALSE(is_command_output_file("cmd-.txt"));
  EXPECT_FALSE(is_command_output_file("cmd-1.log"));
  EXPECT_FALSE(is_command_output_file("xcmd-1.txt"));
  EXPECT_STREQ(task_index_kind().report_kind, "task_index");
  EXPECT_EQ(task_index_kind().name, "_index.json");
  EXPECT_STREQ(command_output_kind().report_kind, "command_output");
  EXPECT_STREQ(file_kind(TaskFileKind::legacy_claude_messages).report_kind, "api_history");
  EXPECT_STREQ(file_kind(TaskFileKind::unknown).report_kind, "unknown");
  EXPECT_TRUE(file_kind(TaskFileKind::ui_messages).is_array);
  EXPECT_TRUE(file_kind(TaskFileKind::legacy_claude_messages).is_array);
  EXPECT_FALSE(file_kind(TaskFileKind::history_item).is_array);
  // A command output is never read as an orphan, by name or by bytes.
  EXPECT_FALSE(orphan_kind_by_name("cmd-1779261123485.txt"));
  const FileKind* api = file_kind_sniffed(R"([{"role":"user","content":"x"}])");
  ASSERT_TRUE(api);
  EXPECT_EQ(api->kind, TaskFileKind::api_history);  // not the legacy name: it has no sniff of its own
}

// Every row a source file of a table kind gives is of a row kind the table lists for it, or one that reading it as
// part of its task adds (a parser error, the note on a temp file or an orphan, the task id time check, the identity
// check): read over every fixture tree (fixtures/README.md).
TEST(FileKinds, RowsOfEachFixtureSourceAreOfItsListedRowKinds) {
  const std::set<std::string> added = {"parser_error", "temp_file", "orphan_file", "task_id_time_mismatch",
                                       "identity_conflict"};
  std::map<std::string, std::set<std::string>> listed;
  for (const FileKind& k : file_kinds())
    for (std::string_view r : k.row_kinds) listed[k.report_kind].insert(std::string(r));
  int64_t checked = 0;
  std::set<std::string> kinds_seen;
  for (const auto& tree : fs::directory_iterator(fs::path(ROO_FIXTURES_DIR) / "trees")) {
    FolderFileSystem folder(tree.path().string());
    test::CapturedRows rows;
    ScanReport report;
    scan_file_system(folder, rows, report);
    std::map<std::string, std::string> kind_by_path;
    for (const FileParseRecord& f : report.files)
      if (listed.count(f.kind)) kind_by_path[f.path] = f.kind;
    for (size_t i = 0; i < rows.rows.size(); ++i) {
      auto it = kind_by_path.find(rows.src(i)["path"].GetString());
      if (it == kind_by_path.end()) continue;
      const std::string kind = rows.str(i, "kind");
      EXPECT_TRUE(listed[it->second].count(kind) || added.count(kind))
          << tree.path() << ": " << it->first << " (" << it->second << ") gave a " << kind << " row";
      kinds_seen.insert(it->second);
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
  for (const char* k : {"ui_messages", "api_history", "history_item", "task_index", "task_metadata", "command_output"})
    EXPECT_TRUE(kinds_seen.count(k)) << k;
}

// A folder has no $OrphanFiles: --deep reads nothing more from it, and the report says none were seen.
TEST(Orphans, FolderHasNone) {
  char dir[] = "/tmp/roo-orphan-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  write(fs::path(dir) / "OrphanFile-21", R"([{"ts":1,"type":"say","say":"text","text":"x"}])");
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  ScanOptions opts;
  opts.deep = true;
  scan_file_system(folder, rows, report, opts);
  EXPECT_EQ(rows.rows.size(), 0u);
  ASSERT_TRUE(report.orphans);
  EXPECT_EQ(report.orphans->files_seen, 0);
  EXPECT_EQ(report.orphans->roo_files_parsed, 0);
  fs::remove_all(dir);
}

// A task dir of a root that holds only checkpoints/ (its task's files are under a customStoragePath,
// docs/roo-format.md §1.2) is not one of the root's tasks: the report counts it apart.
TEST(Discovery, CheckpointOnlyDirIsCountedApartFromTaskDirs) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path tasks = fs::path(dir) / "home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks";
  write(tasks / "t-moved/checkpoints/.git/HEAD", "ref: refs/heads/master\n");
  write(tasks / "t-here/history_item.json",
        R"({"id":"t-here","number":1,"ts":1760000000000,"task":"x","tokensIn":1,"tokensOut":1,"totalCost":0})");
  write(tasks / "t-here/checkpoints/.git/HEAD", "ref: refs/heads/master\n");  // a task with its checkpoints
  FolderFileSystem folder(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report);
  ASSERT_EQ(report.roots.size(), 1u);
  EXPECT_EQ(report.roots[0].tasks, 1);
  EXPECT_EQ(report.roots[0].checkpoint_only_dirs, 1);
  fs::remove_all(dir);
}

// Every key of `want` is in `got` with the same value; objects are compared on the keys `want` gives (as
// tests/plugin/rows_match.py compares the hand-written expected rows).
void expect_subset(const rapidjson::Value& want, const rapidjson::Value& got, const std::string& where) {
  if (want.IsObject()) {
    ASSERT_TRUE(got.IsObject()) << where;
    for (const auto& m : want.GetObject()) {
      const std::string key = where + "." + m.name.GetString();
      auto it = got.FindMember(m.name);
      if (it == got.MemberEnd()) {
        ADD_FAILURE() << key << ": missing";
        continue;
      }
      expect_subset(m.value, it->value, key);
    }
    return;
  }
  EXPECT_TRUE(want == got) << where << ": expected " << to_json_text(want) << ", got " << to_json_text(got);
}

// A file's mtime as rows give it (ms, ISO UTC): a checkout's file times are its own, so the file.mtime rows of the
// expected file are compared with the file's mtime here.
std::string mtime_iso(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return "(no such file: " + p.string() + ")";
  const int64_t ms = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm {};
  gmtime_r(&secs, &tm);
  char buf[96];  // room for any int the fields can hold (g++ -Wformat-truncation)
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

// docs/roo-format.md §1.1, §1.2, §7.3: the nightly build (RooVeterinaryInc.roo-code-nightly) beside the release
// in one VS Code. fixtures/trees/stores-nightly (fixtures/README.md) read as a folder against the hand-written
// fixtures/expected/stores-nightly.rows.jsonl: its roo-code-nightly.customStoragePath is followed; one state.vscdb
// holds both extensions' ItemTable rows and secrets, whose rows are told apart by extension_id and numbered per kind
// across both keys (no row id shared); the nightly's settings/mcp_settings.json under ~/.vscode-server is read; so is
// the release's legacy settings/cline_mcp_settings.json (docs/roo-format.md §4: the name before v3.10.4).
TEST(Discovery, NightlyExtensionBesideTheRelease_fixture) {
  const fs::path tree = fs::path(ROO_FIXTURES_DIR) / "trees/stores-nightly";
  std::vector<rapidjson::Document> wanted;
  {
    std::ifstream in(fs::path(ROO_FIXTURES_DIR) / "expected/stores-nightly.rows.jsonl");
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      rapidjson::Document d;
      ASSERT_FALSE(d.Parse(line.c_str()).HasParseError()) << line;
      wanted.push_back(std::move(d));
    }
  }
  ASSERT_EQ(wanted.size(), 17u);
  char scratch[] = "/tmp/roo-scratch-XXXXXX";
  ASSERT_TRUE(mkdtemp(scratch));
  ScanOptions opts;
  opts.scratch_dir = scratch;
  FolderFileSystem folder(tree.string());
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(folder, rows, report, opts);
  EXPECT_TRUE(fs::is_empty(scratch));
  fs::remove_all(scratch);
  ASSERT_EQ(rows.rows.size(), wanted.size());
  for (size_t i = 0; i < wanted.size(); ++i) {
    rapidjson::Document& want = wanted[i];
    if (std::string(want["time_source"].GetString()) == "file.mtime") {
      const std::string t = mtime_iso(tree / std::string(want["source"]["path"].GetString()).substr(1));
      want["time_utc"].SetString(t.c_str(), static_cast<rapidjson::SizeType>(t.size()), want.GetAllocator());
    }
    expect_subset(want, rows.rows[i], "row " + std::to_string(i));
  }
  std::set<std::string> ids;
  for (size_t i = 0; i < rows.rows.size(); ++i) EXPECT_TRUE(ids.insert(rows.str(i, "row_id")).second) << i;
  for (const std::string& line : rows.lines) EXPECT_EQ(line.find("PLANTED"), std::string::npos);
  // The nightly's setting, its root found by it, and its default root that holds only settings/.
  ASSERT_EQ(report.custom_storage_paths.size(), 1u);
  EXPECT_EQ(report.custom_storage_paths[0].surface, "vscode-nightly");
  EXPECT_EQ(report.custom_storage_paths[0].recorded_path, "/data/roo-nightly");
  std::vector<std::string> roots;
  for (const RootRecord& r : report.roots) roots.push_back(r.surface + " " + r.path + " " + r.found_by);
  EXPECT_EQ(roots, (std::vector<std::string>{
                       "vscode /home/ivy/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline catalog",
                       "vscode-nightly /home/ivy/.vscode-server/data/User/globalStorage/"
                       "rooveterinaryinc.roo-code-nightly catalog",
                       "vscode-nightly /data/roo-nightly customStoragePath in "
                       "/home/ivy/.config/Code/User/settings.json",
                   }));
}


// Counts list_dir calls by path, and makes chosen paths fail as libtsk's corrupt directories do: an error, and only
// part of the names.
class CountingView : public FileSystemView {
 public:
  explicit CountingView(const std::string& dir) : folder_(dir) {}
  const VolumeInfo& volume() const override { return folder_.volume(); }
  FileMeta root() override { return folder_.root(); }
  std::vector<FileMeta> list_dir(const FileMeta& dir) override {
    ++listed[dir.path];
    std::vector<FileMeta> out = folder_.list_dir(dir);
    if (failing.count(dir.path)) {
      errors_.push_back(dir.path + ": directory is corrupt");
      if (!out.empty()) out.pop_back();
    }
    return out;
  }
  std::unique_ptr<ByteSource> open(const FileMeta& file) override { return folder_.open(file); }
  std::vector<std::string> errors() const override { return errors_; }
  std::map<std::string, int> listed;
  std::set<std::string> failing;

 private:
  FolderFileSystem folder_;
  std::vector<std::string> errors_;
};

std::vector<std::string> names_of(const std::vector<FileMeta>& v) {
  std::vector<std::string> out;
  for (const FileMeta& m : v) out.push_back(m.name);
  return out;
}

// A listing that raised no error is made once; one that raised an error is made (and its error reported) each
// time, as without the cache.
TEST(ListingCache, KeepsOnlyListingsThatRaisedNoError) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  write(fs::path(dir) / "good/a.txt", "a");
  write(fs::path(dir) / "good/B.txt", "b");
  write(fs::path(dir) / "bad/x.txt", "x");
  write(fs::path(dir) / "bad/y.txt", "y");
  CountingView view(dir);
  view.failing.insert("/bad");
  ListingCache cache(view);
  const auto top = children(cache, cache.root(), "*", true);
  ASSERT_EQ(names_of(top), (std::vector<std::string>{"bad", "good"}));
  const FileMeta& bad = top[0];
  const FileMeta& good = top[1];
  std::vector<FileMeta> scratch;
  EXPECT_EQ(names_of(cache.listing(good, scratch)), (std::vector<std::string>{"B.txt", "a.txt"}));
  EXPECT_EQ(names_of(cache.list_dir(good)), (std::vector<std::string>{"B.txt", "a.txt"}));
  EXPECT_EQ(names_of(children(cache, good, "b.TXT", false)), (std::vector<std::string>{"B.txt"}));
  EXPECT_EQ(names_of(dir_listing(cache, good, scratch)), (std::vector<std::string>{"B.txt", "a.txt"}));
  EXPECT_EQ(view.listed["/good"], 1);
  EXPECT_EQ(view.listed["/"], 1);
  EXPECT_EQ(names_of(cache.list_dir(bad)), (std::vector<std::string>{"x.txt"}));
  EXPECT_EQ(names_of(children(cache, bad, "*", false)), (std::vector<std::string>{"x.txt"}));
  EXPECT_EQ(view.listed["/bad"], 2);
  EXPECT_EQ(cache.errors(), (std::vector<std::string>{"/bad: directory is corrupt", "/bad: directory is corrupt"}));
  FileMeta elsewhere = good;
  elsewhere.path = "/good";  // same key: kept
  cache.list_dir(elsewhere);
  EXPECT_EQ(view.listed["/good"], 1);
  // Without a cache, dir_listing lists every time.
  dir_listing(view, good, scratch);
  EXPECT_EQ(view.listed["/good"], 2);
  fs::remove_all(dir);
}

// A directory of more names than the cache keeps (a big temp folder) is listed each time it is asked for, with the
// same names: memory stays bounded by the small directories the catalog revisits.
TEST(ListingCache, BigDirectoriesAreNotKept) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  for (size_t i = 0; i <= ListingCache::kMaxKeptEntries; ++i)  // one name more than kept
    write(fs::path(dir) / "big" / ("f" + std::to_string(i)), "");
  write(fs::path(dir) / "small/a", "");
  CountingView view(dir);
  ListingCache cache(view);
  const auto top = children(cache, cache.root(), "*", true);
  ASSERT_EQ(names_of(top), (std::vector<std::string>{"big", "small"}));
  EXPECT_EQ(cache.list_dir(top[0]).size(), ListingCache::kMaxKeptEntries + 1);
  EXPECT_EQ(cache.list_dir(top[0]).size(), ListingCache::kMaxKeptEntries + 1);
  EXPECT_EQ(view.listed["/big"], 2);
  cache.list_dir(top[1]);
  cache.list_dir(top[1]);
  EXPECT_EQ(view.listed["/small"], 1);
  fs::remove_all(dir);
}

// The stores of a home: every directory discovery and the stores read is listed once (a workspaceStorage/<hash>
// three times before: to find state.vscdb, for workspace.json beside it, and for its -wal), and the rows are those
// of a scan without the cache.
TEST(ListingCache, ScanListsEachStoreDirectoryOnce) {
  char dir[] = "/tmp/roo-disc-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const fs::path user = fs::path(dir) / "home/u/.config/Code/User";
  write(user / "workspaceStorage/abc/state.vscdb", "not a database, and no Roo name in it");
  write(user / "workspaceStorage/abc/workspace.json", R"({"folder":"file:///home/u/proj"})");
  write(user / "workspaceStorage/abc/state.vscdb-wal", "no name here either");
  write(user / "globalStorage/state.vscdb", "nothing");
  CountingView view(dir);
  test::CapturedRows rows;
  ScanReport report;
  scan_file_system(view, rows, report);
  EXPECT_EQ(view.listed["/home/u/.config/Code/User/workspaceStorage/abc"], 1);
  EXPECT_EQ(view.listed["/home/u/.config/Code/User/globalStorage"], 1);
  EXPECT_EQ(view.listed["/home/u"], 1);
  EXPECT_EQ(view.listed["/"], 1);
  std::set<std::string> kinds;
  for (const FileParseRecord& f : report.files) kinds.insert(f.kind);
  EXPECT_TRUE(kinds.count("workspace_state_db"));
  EXPECT_TRUE(kinds.count("state_db_wal"));
  EXPECT_TRUE(kinds.count("global_state_db"));
  EXPECT_TRUE(report.errors.empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace roo
