// read_state_db on real SQLite databases built here with the sqlite3 C API in VS Code's schema
// (ItemTable(key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB); docs/roo-format.md §1.1, §7; docs/row-contract.md
// "Bad-line rows"). Every test checks that the scratch directory is left empty.
#include "core/state_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace roo {
namespace {

namespace fs = std::filesystem;

constexpr const char* kExt = "RooVeterinaryInc.roo-cline";
constexpr const char* kSchema = "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A connection to a database the test builds.
class Db {
 public:
  explicit Db(const fs::path& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
  }
  ~Db() { sqlite3_close(db_); }
  void exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << sql << ": " << (err ? err : "");
    sqlite3_free(err);
  }
  void put(const std::string& key, const std::string& value, bool blob = false) {
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db_, "INSERT INTO ItemTable (key, value) VALUES (?1, ?2)", -1, &st, nullptr),
              SQLITE_OK);
    sqlite3_bind_text(st, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    if (blob)
      sqlite3_bind_blob(st, 2, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    else
      sqlite3_bind_text(st, 2, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
  }

 private:
  sqlite3* db_ = nullptr;
};

class StateDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::path(::testing::TempDir()) / "state_db_test-XXXXXX").string();
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    scratch_ = dir_ / "scratch";
    fs::create_directory(scratch_);
  }
  void TearDown() override {
    // Nothing the reader wrote may remain.
    EXPECT_TRUE(fs::is_empty(scratch_)) << "scratch directory not cleaned";
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path path(const std::string& name) const { return dir_ / name; }
  StateDbRead read(const std::string& db, const std::optional<std::string>& wal = std::nullopt) {
    return read_state_db(db, wal, kExt, scratch_.string());
  }
  fs::path dir_, scratch_;
};

TEST_F(StateDbTest, ReadsExtensionRowSecretKeyNamesAndPrefixedKeys) {
  {
    Db db(path("g.vscdb"));
    db.exec(kSchema);
    db.put(kExt, R"({"mode":"architect","taskHistory":[]})");
    db.put(R"(secret://{"extensionId":"rooveterinaryinc.roo-cline","key":"openRouterApiKey"})", "v10\x01\x02SECRET",
           true);
    db.put(R"(secret://{"extensionId":"RooVeterinaryInc.roo-cline","key":"roo_cline_config_api_config"})", "v10xx",
           true);
    db.put(R"(secret://{"extensionId":"github.copilot","key":"token"})", "v10yy", true);
    db.put("RooVeterinaryInc.roo-cline/workspaceHint", "1");
    db.put("rooveterinaryinc.roo-cline.lastShown", "2");
    db.put("RooVeterinaryInc.roo-clineX", "3");
    db.put("workbench.panel.height", "300");
  }
  StateDbRead r = read(slurp(path("g.vscdb")));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.error.empty());
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->key, kExt);
  EXPECT_EQ(r.extension_row->value, R"({"mode":"architect","taskHistory":[]})");
  EXPECT_FALSE(r.extension_row->value_is_null);
  EXPECT_TRUE(r.extension_key_variants.empty());
  EXPECT_EQ(r.secret_keys, (std::vector<std::string>{"openRouterApiKey", "roo_cline_config_api_config"}));
  EXPECT_EQ(r.other_extension_keys, (std::vector<std::string>{"RooVeterinaryInc.roo-cline/workspaceHint",
                                                              "rooveterinaryinc.roo-cline.lastShown"}));
  EXPECT_FALSE(r.wal_present);
  EXPECT_FALSE(r.extension_row_from_wal);
}

TEST_F(StateDbTest, MatchesLowerCaseExtensionKey) {
  {
    Db db(path("w.vscdb"));
    db.exec(kSchema);
    db.put("rooveterinaryinc.roo-cline", R"({"mode":"code"})");
  }
  StateDbRead r = read(slurp(path("w.vscdb")));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->key, "rooveterinaryinc.roo-cline");
  EXPECT_EQ(r.extension_row->value, R"({"mode":"code"})");
}

TEST_F(StateDbTest, PrefersExactCaseKeyAndListsOtherCaseVariants) {
  {
    Db db(path("v.vscdb"));
    db.exec(kSchema);
    db.put("rooveterinaryinc.roo-cline", R"({"mode":"lower"})");
    db.put(kExt, R"({"mode":"exact"})");
    db.put("ROOVETERINARYINC.ROO-CLINE", R"({"mode":"upper"})");
  }
  StateDbRead r = read(slurp(path("v.vscdb")));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->value, R"({"mode":"exact"})");
  EXPECT_EQ(r.extension_key_variants,
            (std::vector<std::string>{"ROOVETERINARYINC.ROO-CLINE", "rooveterinaryinc.roo-cline"}));
}

TEST_F(StateDbTest, BlobAndNullValuesAreReturnedAsStored) {
  const std::string bytes("{\"a\":1}\0\xff", 9);
  {
    Db db(path("b.vscdb"));
    db.exec(kSchema);
    db.put(kExt, bytes, true);
  }
  StateDbRead r = read(slurp(path("b.vscdb")));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->value, bytes);

  {
    Db db(path("n.vscdb"));
    db.exec(kSchema);
    db.exec("INSERT INTO ItemTable VALUES ('RooVeterinaryInc.roo-cline', NULL)");
  }
  r = read(slurp(path("n.vscdb")));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.extension_row);
  EXPECT_TRUE(r.extension_row->value_is_null);
  EXPECT_EQ(r.extension_row->value, "");
}

TEST_F(StateDbTest, DatabaseWithoutExtensionRowIsReadWithNoRow) {
  {
    Db db(path("e.vscdb"));
    db.exec(kSchema);
    db.put("workbench.panel.height", "300");
  }
  StateDbRead r = read(slurp(path("e.vscdb")));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.extension_row);
  EXPECT_TRUE(r.secret_keys.empty());
}

TEST_F(StateDbTest, LargeValueIsReadWhole) {
  std::string big = "{\"taskHistory\":\"" + std::string(5u << 20, 'x') + "\"}";
  {
    Db db(path("l.vscdb"));
    db.exec(kSchema);
    db.put(kExt, big);
  }
  StateDbRead r = read(slurp(path("l.vscdb")));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->value, big);
}

// Builds a WAL-mode database whose main file holds `old_value` (checkpointed) and whose -wal holds `new_value`,
// copying db and -wal while the writer is still open so the WAL is not merged. Empty new_value deletes the row.
struct WalPair {
  std::string db, wal;
};
WalPair make_wal_pair(const fs::path& p, const std::optional<std::string>& old_value,
                      const std::optional<std::string>& new_value) {
  Db db(p);
  db.exec("PRAGMA journal_mode=WAL");
  db.exec(kSchema);
  db.put("workbench.panel.height", "300");
  if (old_value) db.put(kExt, *old_value);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.exec("PRAGMA wal_autocheckpoint=0");
  if (new_value)
    db.put(kExt, *new_value);
  else
    db.exec("DELETE FROM ItemTable WHERE key = 'RooVeterinaryInc.roo-cline'");
  WalPair out{slurp(p), slurp(p.string() + "-wal")};
  EXPECT_GT(out.wal.size(), 32u) << "the WAL should hold the change";
  return out;
}

TEST_F(StateDbTest, WalHoldsNewestValueAndIsFlagged) {
  WalPair w = make_wal_pair(path("wal.vscdb"), R"({"mode":"code"})", R"({"mode":"architect"})");
  StateDbRead r = read(w.db, w.wal);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.wal_present);
  EXPECT_TRUE(r.wal_error.empty());
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->value, R"({"mode":"architect"})");
  EXPECT_TRUE(r.extension_row_from_wal);
  EXPECT_FALSE(r.extension_row_deleted_in_wal);
  // The main file's own value is kept, so a caller can tell which values only the WAL holds.
  ASSERT_TRUE(r.extension_row_main_file);
  EXPECT_EQ(r.extension_row_main_file->value, R"({"mode":"code"})");
}

TEST_F(StateDbTest, MainFileAloneGivesTheCheckpointedValue) {
  WalPair w = make_wal_pair(path("wal.vscdb"), R"({"mode":"code"})", R"({"mode":"architect"})");
  StateDbRead r = read(w.db);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.wal_present);
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->value, R"({"mode":"code"})");
  EXPECT_FALSE(r.extension_row_from_wal);
}

TEST_F(StateDbTest, RowCreatedInWalIsFlagged) {
  WalPair w = make_wal_pair(path("wal.vscdb"), std::nullopt, R"({"mode":"ask"})");
  StateDbRead r = read(w.db, w.wal);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->value, R"({"mode":"ask"})");
  EXPECT_TRUE(r.extension_row_from_wal);
}

TEST_F(StateDbTest, RowDeletedInWalIsReported) {
  WalPair w = make_wal_pair(path("wal.vscdb"), R"({"mode":"code"})", std::nullopt);
  StateDbRead r = read(w.db, w.wal);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.extension_row);
  EXPECT_TRUE(r.extension_row_deleted_in_wal);
  EXPECT_FALSE(r.extension_row_from_wal);
}

// Nothing lost: a secret row the WAL deleted (a sign-out not yet checkpointed) is named as deleted in the
// WAL; the main file still holds its encrypted value. One that the WAL keeps is not.
TEST_F(StateDbTest, SecretDeletedInWalIsNamed) {
  std::string db_bytes, wal_bytes;
  const std::string gone = R"(secret://{"extensionId":"rooveterinaryinc.roo-cline","key":"openRouterApiKey"})";
  const std::string kept = R"(secret://{"extensionId":"rooveterinaryinc.roo-cline","key":"apiKey"})";
  {
    Db db(path("s.vscdb"));
    db.exec("PRAGMA journal_mode=WAL");
    db.exec(kSchema);
    db.put(gone, "v10-one", true);
    db.put(kept, "v10-two", true);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.exec("PRAGMA wal_autocheckpoint=0");
    db.exec("DELETE FROM ItemTable WHERE key = '" + gone + "'");
    db_bytes = slurp(path("s.vscdb"));
    wal_bytes = slurp(path("s.vscdb-wal"));
  }
  StateDbRead r = read(db_bytes, wal_bytes);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.secret_keys, std::vector<std::string>{"apiKey"});
  EXPECT_EQ(r.secret_keys_deleted_in_wal, std::vector<std::string>{"openRouterApiKey"});
  StateDbRead main_only = read(db_bytes);
  EXPECT_EQ(main_only.secret_keys, (std::vector<std::string>{"apiKey", "openRouterApiKey"}));
  EXPECT_TRUE(main_only.secret_keys_deleted_in_wal.empty());
}

TEST_F(StateDbTest, UnchangedRowBesideWalIsNotFlagged) {
  // The WAL changes another row only.
  std::string db_bytes, wal_bytes;
  {
    Db db(path("u.vscdb"));
    db.exec("PRAGMA journal_mode=WAL");
    db.exec(kSchema);
    db.put(kExt, R"({"mode":"code"})");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.exec("PRAGMA wal_autocheckpoint=0");
    db.put("workbench.panel.height", "400");
    db_bytes = slurp(path("u.vscdb"));
    wal_bytes = slurp(path("u.vscdb-wal"));
  }
  StateDbRead r = read(db_bytes, wal_bytes);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->value, R"({"mode":"code"})");
  EXPECT_FALSE(r.extension_row_from_wal);
  EXPECT_TRUE(r.wal_present);
}

TEST_F(StateDbTest, WalNotBelongingToTheDatabaseIsIgnored) {
  WalPair w = make_wal_pair(path("wal.vscdb"), R"({"mode":"code"})", R"({"mode":"architect"})");
  std::string bad_wal = w.wal;
  bad_wal[20] ^= 0x55;  // salt-1 in the WAL header: its frames no longer match
  StateDbRead r = read(w.db, bad_wal);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->value, R"({"mode":"code"})");
  EXPECT_FALSE(r.extension_row_from_wal);

  r = read(w.db, std::string("garbage, not a WAL"));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.extension_row);
  EXPECT_EQ(r.extension_row->value, R"({"mode":"code"})");
}

TEST_F(StateDbTest, GarbageBytesFailWithoutEchoingThem) {
  const std::string value = "sk-or-v1-TOPSECRETVALUE";
  StateDbRead r = read("this is not a database at all " + value + std::string(4096, 'z'));
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());
  EXPECT_EQ(r.error.find(value), std::string::npos) << r.error;
  EXPECT_FALSE(r.extension_row);
}

TEST_F(StateDbTest, CorruptDatabaseFailsWithoutEchoingTheValue) {
  const std::string value = "sk-or-v1-TOPSECRETVALUE";
  std::string bytes;
  {
    Db db(path("c.vscdb"));
    db.exec(kSchema);
    db.put(kExt, R"({"apiKey":")" + value + R"("})");
  }
  bytes = slurp(path("c.vscdb"));
  ASSERT_GE(bytes.size(), 8192u);
  // Page 2 is ItemTable's root: make its b-tree page type invalid.
  bytes[4096] = 0x7f;
  StateDbRead r = read(bytes);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());
  EXPECT_EQ(r.error.find(value), std::string::npos) << r.error;
}

TEST_F(StateDbTest, SqliteHeaderFollowedByGarbageFails) {
  std::string bytes("SQLite format 3\0", 16);
  bytes += std::string(200, '\xee');
  StateDbRead r = read(bytes);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());
}

TEST_F(StateDbTest, DatabaseWithoutItemTableFails) {
  {
    Db db(path("o.vscdb"));
    db.exec("CREATE TABLE Other (key TEXT, value BLOB)");
    db.exec("INSERT INTO Other VALUES ('RooVeterinaryInc.roo-cline', '{}')");
  }
  StateDbRead r = read(slurp(path("o.vscdb")));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "no ItemTable");

  r = read("");  // an empty file is an empty database to SQLite
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "no ItemTable");
  // So is a 1-byte one, read from a file by SQLite's unix VFS; the main file read in memory must agree.
  r = read("x");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "no ItemTable");
}

TEST_F(StateDbTest, ItemTableViewIsRefused) {
  {
    Db db(path("view.vscdb"));
    db.exec("CREATE TABLE Real (key TEXT, value BLOB)");
    db.exec("CREATE VIEW ItemTable AS SELECT key, value FROM Real");
  }
  StateDbRead r = read(slurp(path("view.vscdb")));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "ItemTable is not an ordinary table");
}

TEST_F(StateDbTest, MissingScratchDirectoryFails) {
  {
    Db db(path("g.vscdb"));
    db.exec(kSchema);
  }
  StateDbRead r = read_state_db(slurp(path("g.vscdb")), std::nullopt, kExt, (dir_ / "absent").string());
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());
  EXPECT_FALSE(fs::exists(dir_ / "absent"));
}

// docs/roo-format.md §1.1: the nightly build's key (RooVeterinaryInc.roo-code-nightly) beside the release's in one
// database, stored lower-cased here: each key is matched case-insensitively and gives only its own row and secrets.
TEST_F(StateDbTest, NightlyKeyBesideTheReleaseIsReadOnItsOwn) {
  {
    Db db(path("both.vscdb"));
    db.exec(kSchema);
    db.put(kExt, R"({"mode":"code"})");
    db.put("rooveterinaryinc.roo-code-nightly", R"({"mode":"debug"})");
    db.put(R"(secret://{"extensionId":"rooveterinaryinc.roo-cline","key":"openRouterApiKey"})", "v10aa", true);
    db.put(R"(secret://{"extensionId":"rooveterinaryinc.roo-code-nightly","key":"anthropicApiKey"})", "v10bb", true);
  }
  const std::string bytes = slurp(path("both.vscdb"));
  StateDbRead release = read(bytes);
  ASSERT_TRUE(release.ok) << release.error;
  ASSERT_TRUE(release.extension_row);
  EXPECT_EQ(release.extension_row->value, R"({"mode":"code"})");
  EXPECT_EQ(release.secret_keys, std::vector<std::string>{"openRouterApiKey"});
  StateDbRead nightly = read_state_db(bytes, std::nullopt, "RooVeterinaryInc.roo-code-nightly", scratch_.string());
  ASSERT_TRUE(nightly.ok) << nightly.error;
  ASSERT_TRUE(nightly.extension_row);
  EXPECT_EQ(nightly.extension_row->key, "rooveterinaryinc.roo-code-nightly");
  EXPECT_EQ(nightly.extension_row->value, R"({"mode":"debug"})");
  EXPECT_EQ(nightly.secret_keys, std::vector<std::string>{"anthropicApiKey"});
}

}  // namespace
}  // namespace roo
