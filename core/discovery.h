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
#include "core/task_assembly.h"

namespace roo {

// The task directories and index of one root.
RootContents list_root(FileSystemView& fs, const RooRoot& root);
// The bytes of every file a task directory's parse reads (its own files, versions, command outputs).
uint64_t task_dir_bytes(const TaskDir& td);

struct HomeTasks;  // core/store_assembly.h

// The task directories of one root, planned: each is a task item, run on its own with a view of the same file system
// (in any order, on any thread) once discovery has read the root's index. The rows of the items belong where the
// root's tasks are in the plan, item by item in order. Shared by whoever runs them, and kept until the last is run.
class TaskItems {
 public:
  virtual ~TaskItems() = default;
  virtual size_t size() const = 0;
  // The bytes item i reads (its files): a runner starts the big ones first.
  virtual uint64_t bytes(size_t i) const = 0;
  // Runs item i: its rows go to out, its source files to report.files.
  virtual void run(size_t i, FileSystemView& fs, RowSink& out, ScanReport& report) const = 0;
};

// Who runs the task items of a file system's roots (--threads: the plugin's plugin/task_queue.h). Without one,
// discovery runs each root's items itself, in order, where it plans them; with one it only plans.
class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  // A root's items: run later, elsewhere, their rows put at this point of the plan.
  virtual void run(std::shared_ptr<const TaskItems> items) = 0;
  // Waits for every item handed over so far, and merges into home what their rows told (user words, workspaces):
  // the home's other stores need it.
  virtual void gather(HomeTasks& home) = 0;
  // Where in the plan the rows written here are (HomeTasks::project_units): gather keeps the workspace surface of
  // the task that came first, as one thread would.
  virtual const int64_t* position() const = 0;
};

struct ScanOptions : SourceOptions {
  // --threads: who runs the task items; null: discovery runs them itself, in order.
  TaskRunner* runner = nullptr;
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

// Parses every task of a root and writes its rows, file by file, through the writer; with opts.runner, its task
// directories are handed to the runner as task items instead. Returns the ids of the tasks the root knows (its task
// directories and its index entries).
std::set<std::string> process_root(FileSystemView& fs, const RooRoot& root, RowSink& out, ScanReport& report,
                                   const ScanOptions& opts,
                                   const GlobalHistory* global_history = nullptr);

// All of it for one file system: find roots, process each.
// Home by home: its Roo roots (tasks), then its other stores (settings, credentials, CLI history).
void scan_file_system(FileSystemView& fs, RowSink& out, ScanReport& report, const ScanOptions& opts = {});

// Looks for a custom storage path another file system's settings named (it was not there) in this one, and reads
// the tasks of the root it finds. Records the outcome in report.custom_storage_paths. Returns whether it was found.
bool scan_custom_storage_path(FileSystemView& fs, const CustomStoragePath& wanted, RowSink& out, ScanReport& report,
                              const ScanOptions& opts = {});

}  // namespace roo
