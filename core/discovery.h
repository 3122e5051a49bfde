// Discovery: interprets the catalog against one file system. It walks only the directories the catalog names
// (homes → host roots → tasks/), never the whole tree.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/catalog.h"
#include "core/evidence.h"
#include "core/fs_lookup.h"
#include "core/root_contents.h"
#include "core/row.h"
#include "core/scan_report.h"

namespace roo {

// The task directories and index of one root.
RootContents list_root(FileSystemView& fs, const RooRoot& root);
// The bytes of every file a task directory's parse reads (its own files, versions, command outputs).
uint64_t task_dir_bytes(const TaskDir& td);

struct HomeTasks;  // core/store_assembly.h

// How one file system's task directories are shared out when several workers read it (--threads; the plugin's
// plugin/work_split.h). Discovery only asks it, at the same points on every worker: it knows no threads.
class TaskShare {
 public:
  virtual ~TaskShare() = default;
  // Numbers a root's task directories as units (tasks[i] is unit first + i, the returned first) and puts `order` in
  // the order to try them.
  virtual int64_t reserve_task_units(const std::vector<TaskDir>& tasks, std::vector<size_t>& order) = 0;
  // Enters task unit `unit`; true when this worker is to read it.
  virtual bool claim_task_unit(int64_t unit) = 0;
  // Enters the next unit of work that is no task directory's.
  virtual void enter_shared_unit() = 0;
  // The unit being worked through, read as each task row passes (UserWordsCollector).
  virtual const int64_t* unit_ptr() const = 0;
  // The HomeTasks of one home (or ephemeral dir), after its roots. True when this worker reads the home's stores:
  // tasks then holds what every worker's tasks of the home told.
  virtual bool share_home_tasks(HomeTasks& tasks) = 0;
  // Whether this worker does the work that is no task directory's (the stores, the orphans).
  virtual bool does_shared_work() const = 0;
};

struct ScanOptions : SourceOptions {
  // --threads: this worker's share of the file system's tasks; null when one worker does everything.
  TaskShare* split = nullptr;
  bool deep = false;  // --deep: also read the Roo files among the file system's orphans
};

// What an orphan file is read as (--deep): a Roo file kind, and how that was decided. Its directory is gone,
// so only its name (NTFS and FAT keep it) or, for the OrphanFile-<inode> names libtsk makes up (ext4 keeps no name
// in the inode), its opening bytes can say.
struct OrphanKind {
  TaskFileKind kind = TaskFileKind::unknown;  // unknown with is_index: tasks/_index.json
  bool is_index = false;
  const char* decided_by = "file_name";       // or "content"
  std::optional<TempFileName> temp;           // a safeWriteJson temp name (.<file>.new_/.bak_<ms>_<rand>.tmp)
};
// By name: a Roo task file, _index.json, or a temp name of one of them.
std::optional<OrphanKind> orphan_kind_by_name(std::string_view name);
// libtsk's name for an orphan whose name is lost: OrphanFile-<digits>.
bool is_made_up_orphan_name(std::string_view name);
// By the opening bytes Roo's compact JSON.stringify writes (docs/roo-format.md §2.1–§2.9): [{"ts":…"type":"say"|"ask"
// (ui_messages), [{"role":"user"|"assistant" (api history), {"id":"…"ts":…"task": (HistoryItem),
// {"files_in_context": (task_metadata), {"version":1,…"entries": (_index.json).
std::optional<OrphanKind> orphan_kind_by_content(std::string_view opening);

// --deep: every orphan file of the file system whose name or opening says it is a Roo file, parsed as its kind with
// recovery `orphan`, in metadata-address order, each after an `orphan_file` row saying what it is and how that was
// decided. No surface, user or task comes from a path here: only a HistoryItem's own id names its task.
void scan_orphans(FileSystemView& fs, RowSink& out, ScanReport& report, const ScanOptions& opts);

// Parses every task of a root and writes its rows, file by file, through the writer. Returns the ids of the tasks
// the root knows (its task directories and its index entries).
std::set<std::string> process_root(FileSystemView& fs, const RooRoot& root, RowSink& out, ScanReport& report,
                                   const ScanOptions& opts);

// All of it for one file system: find roots, process each.
// Home by home: its Roo roots (tasks), then its other stores (settings, credentials, CLI history).
void scan_file_system(FileSystemView& fs, RowSink& out, ScanReport& report, const ScanOptions& opts = {});

// Looks for a custom storage path another file system's settings named (it was not there) in this one, and reads
// the tasks of the root it finds. Records the outcome in report.custom_storage_paths. Returns whether it was found.
bool scan_custom_storage_path(FileSystemView& fs, const CustomStoragePath& wanted, RowSink& out, ScanReport& report,
                              const ScanOptions& opts = {});

}  // namespace roo
