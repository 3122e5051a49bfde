// Task assembly: how the task directories and index of one root become rows. Each task's files are read in the
// order their joins need (its history item or index entry first, so every row carries its identity; the api history
// before the ui messages, which fold against its texts; the other kinds of core/file_kinds.h; command outputs;
// versions, folded against the task's own files), and the index's entries are joined against the task
// directories (a task row per entry, a subtask link knowing whether its child's directory is there).
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/parsers/parsers.h"
#include "core/parsers/store_parsers.h"
#include "core/root_contents.h"
#include "core/scan_report.h"

namespace roo {

// The legacy taskHistory entries of a home's global states (the CLI's global-state.json, each editor's
// state.vscdb row), read before the home's roots: before history_item.json and _index.json, a task's HistoryItem
// was only there (seed 000; docs/row-contract.md "Task rows from the global state").
struct GlobalHistory {
  struct File {
    SourceRef source;
    std::string sha256;
    std::string where;  // the file's path, or "<state.vscdb> ItemTable <key>"
  };
  struct Entry {
    GlobalStateTask task;
    std::string surface;
    const File* file = nullptr;
  };
  std::deque<File> files;  // Entry::file points here
  std::map<std::string, std::vector<Entry>> by_id;
};

// What a root's tasks are joined against: its index (read first) and the names of its task directories. Filled in
// place by join_root (index_by_id points into index_entries); not to be copied.
struct RootJoins {
  RootJoins() = default;
  RootJoins(const RootJoins&) = delete;
  RootJoins& operator=(const RootJoins&) = delete;

  TaskIdentity root_identity;
  std::vector<IndexEntry> index_entries;
  std::map<std::string, const IndexEntry*> index_by_id;
  SourceRef index_source;
  std::string index_sha;
  std::set<std::string> task_dirs;
  std::map<std::string, bool> task_dir_live;  // by name: whether an allocated directory of that name is there
  std::set<std::string> deleted_task_dirs;    // names with no allocated directory, only a deleted one
  RecordFolds index_folds;
  const GlobalHistory* global_history = nullptr;  // the home's, when read
};

// Reads the root's index (its rows, its line in the report) and fills joins.
void join_root(FileSystemView& fs, const RooRoot& root, const RootContents& rc, RowSink& out, ScanReport& report,
               bool native, RootJoins& joins);
// The rows of one task directory of the root.
void assemble_task(FileSystemView& fs, const TaskDir& td, const RootJoins& joins, RowSink& out, ScanReport& report,
                   bool native);
// The rows of the index's other versions, each entry the index does not hold.
void assemble_index_versions(FileSystemView& fs, const RootContents& rc, const RootJoins& joins, RowSink& out,
                             ScanReport& report, bool native);
// The task rows of the entries whose directory is gone.
void assemble_index_only_tasks(const RootJoins& joins, RowSink& out, bool native);
// The ids of the tasks the root knows: its task directories and its index entries.
std::set<std::string> known_task_ids(const RootJoins& joins);

// The task's identity fields from its HistoryItem, each falling back to the index entry's when the item lacks it.
void apply_history(TaskIdentity& id, const HistoryItem* h, const HistoryItem* indexed);
// Emits one system row about a directory entry whose content is not read (so its source has no digest): fill sets
// its time, text and fields.
void emit_entry_row(FileSystemView& fs, const FileMeta& entry, const TaskIdentity& id, RowSink& out, const char* kind,
                    const std::function<void(Row&)>& fill);
// The row of a name that has nothing to parse (EntryNote).
void emit_note(FileSystemView& fs, const EntryNote& note, const TaskIdentity& id, RowSink& out);
// docs/roo-format.md §1.2: a task directory with its checkpoint repository and nothing else of the task's.
bool holds_only_checkpoints(const TaskDir& td);

}  // namespace roo
