// Reading an extension's row out of VS Code's SQLite key-value store, state.vscdb (docs/roo-format.md §1.1, §7;
// docs/row-contract.md "Bad-line rows").
//
// VS Code keeps every extension's global state as one row of User/globalStorage/state.vscdb, table
// ItemTable(key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB), keyed by the extension id (RooVeterinaryInc.roo-cline,
// possibly lower-cased), the value a JSON object text; workspace state is the same in
// User/workspaceStorage/<id>/state.vscdb. Secrets are rows keyed secret://{"extensionId":"…","key":"…"} whose value
// is encrypted: only the key names are reported, never a secret's value.
//
// The module works on bytes the caller read from the evidence, never on evidence paths, and writes no file: the main
// file alone (no -wal, or to compare with the WAL view) is read as an image in memory (sqlite3_deserialize), and the
// main file with its -wal through a read-only VFS that serves both from the caller's bytes, with the wal-index on the
// heap instead of in a -shm file (core/state_db.cpp, MemoryWalVfs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roo {

struct StateDbRow {
  std::string key;    // the key as stored (its case may differ from the one asked for)
  std::string value;  // the row's bytes: TEXT as UTF-8, BLOB as stored; a NULL value is empty with value_is_null
  bool value_is_null = false;
};

struct StateDbRead {
  bool ok = false;
  std::string error;  // why the database could not be read; never holds a value
  // The ItemTable row whose key equals the extension key case-insensitively (ASCII). When several keys match (the
  // key column is case-sensitive UNIQUE, so "RooVeterinaryInc.roo-cline" and "rooveterinaryinc.roo-cline" can both
  // exist), the exact-case one wins, else the smallest key in byte order; the others are in extension_key_variants.
  std::optional<StateDbRow> extension_row;
  std::vector<std::string> extension_key_variants;  // other case variants of the extension key, sorted
  // The WAL changed or created that row: the main file alone holds another value, no such row, or cannot be read.
  bool extension_row_from_wal = false;
  // The main file alone holds the extension row but the database with its WAL applied does not (deleted in the WAL).
  bool extension_row_deleted_in_wal = false;
  // When the WAL changed the row: the row as the main file alone holds it (none if it holds none), so a caller can
  // tell which values came only from the WAL.
  std::optional<StateDbRow> extension_row_main_file;
  std::vector<std::string> secret_keys;  // the "key" of secret:// rows whose extensionId is this extension, sorted
  // Secret rows the main file alone holds and the database with its WAL applied does not: deleted (a sign-out, a
  // key removed) in a WAL not yet checkpointed. Their encrypted values are still in the main file's bytes, sorted.
  std::vector<std::string> secret_keys_deleted_in_wal;
  // ItemTable keys beginning with the extension id + '.' or '/' (case-insensitively), sorted, for the report.
  std::vector<std::string> other_extension_keys;
  bool wal_present = false;  // a -wal file was given (it may be empty or not match the database; SQLite then ignores it)
  // The database with its WAL applied could not be read but the main file alone could: ok is true, every field above
  // comes from the main file alone, and this says why the WAL view failed (never holds a value).
  std::string wal_error;
};

// Bound on a single value (SQLITE_LIMIT_LENGTH); a larger value makes the read fail with an error.
inline constexpr int kStateDbMaxValueBytes = 256 << 20;
// Bound on the SQLite virtual-machine work of one read, so a hostile schema or file cannot hang the run.
inline constexpr uint64_t kStateDbMaxVmSteps = 200'000'000;

// db: the state.vscdb bytes; wal: the state.vscdb-wal bytes when the evidence has that file. extension_key: the
// extension id ("RooVeterinaryInc.roo-cline"). scratch_dir: a private directory the caller owns (inside the output's
// work directory, never beside the evidence); the read fails when it is unusable, and nothing is written there.
StateDbRead read_state_db(const std::string& db, const std::optional<std::string>& wal, std::string_view extension_key,
                          const std::string& scratch_dir);

}  // namespace roo
