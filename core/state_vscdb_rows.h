// The rows of a VS Code state.vscdb store (catalog StoreKind global_state_db, workspace_state_db): core/state_db.cpp
// reads the SQLite file and its -wal; this turns what it read into rows. Per Roo extension (docs/roo-format.md
// §1.1) its ItemTable row, read by the global or workspace state parser (core/parsers/store_parsers.h), then its
// SecretStorage key names. Also what the global and workspace state share in both their forms (the JSON files of
// the CLI, the database rows of an editor): the legacy taskHistory tasks and the queued uploads' sessions.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/catalog.h"
#include "core/parsers/store_parsers.h"
#include "core/scan_report.h"
#include "core/source_reading.h"

namespace roo {

// A home's roots by path, each with the ids of the tasks it knows (HomeTasks::task_ids_by_root).
using TaskIdsByRoot = std::map<std::string, std::set<std::string>>;

// A queued upload has the task as session_id (docs/row-contract.md "Sync, relay and origin rows"). Rows naming a
// task_id (the request, its credential row) get an identity with that session, in `identities` until the source ends.
class TaskSessionSink : public RowFilter {
 public:
  TaskSessionSink(RowSink& out, std::deque<TaskIdentity>& identities) : RowFilter(out), identities_(identities) {}

 private:
  void adapt(Row& row) override {
    if (const std::string* task = row.string_field("task_id"); task && row.identity) {
      TaskIdentity& id = identities_.emplace_back(*row.identity);
      id.session_id = *task;
      row.identity = &id;
    }
  }
  std::deque<TaskIdentity>& identities_;
};

// Legacy taskHistory entries (docs/roo-format.md §4, §5) of tasks no root of this home knows (task_ids_by_root):
// all that is left of a deleted task in releases before the per-task history_item.json files. Identities live in
// `identities` until the source ends.
void emit_history_tasks(const std::vector<GlobalStateTask>& history, const std::string& surface,
                        const TaskIdsByRoot& task_ids_by_root, const ParseContext& base,
                        std::deque<TaskIdentity>& identities);

// One state.vscdb store (src: the opened database; dir: its folder, which holds its -wal): the rows of each Roo
// extension the database may hold, its profile's id and name on every row when it is a VS Code profile's.
void read_state_vscdb(FileSystemView& fs, const StorePattern& pattern, const FileMeta& dir, SourceReading& src,
                      const SourceOptions& opts, const TaskIdsByRoot& task_ids_by_root, ScanReport& report,
                      RowSink& out, std::deque<TaskIdentity>& identities);

// The legacy taskHistory entries of one state.vscdb, read without rows (docs/row-contract.md "Task rows from the
// global state"): each Roo extension's, with that extension's surface (surface: the host's). bytes is the database.
struct SurfacedHistoryTask {
  std::string surface;
  std::string where;  // "<path> ItemTable <key>", as the store's own rows say
  GlobalStateTask task;
};
std::vector<SurfacedHistoryTask> state_vscdb_task_history(FileSystemView& fs, const FileMeta& dir,
                                                          const FileMeta& file, const std::string& bytes,
                                                          const std::string& surface, const std::string& scratch_dir,
                                                          bool native);

// Whether name occurs in bytes, ASCII letters matched in either case and every other byte (0x80 and up too) as
// itself: what std::search with std::tolower on both sides finds in the "C" locale (the program never sets another).
// An empty name is found in any bytes but empty ones, as std::search finds it.
bool contains_ascii_case_insensitive(std::string_view bytes, std::string_view name);

// Whether database (or WAL) bytes may hold a key containing `name`: the name appears in them case-insensitively
// (contains_ascii_case_insensitive), or the bytes open with an SQLite header whose text encoding is not UTF-8
// (header bytes 56..59, big-endian: 1 = UTF-8, 2 and 3 = UTF-16), so a byte search would not see it.
bool state_db_may_hold(const std::string& bytes, std::string_view name);

}  // namespace roo
