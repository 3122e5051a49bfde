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
#include "core/row.h"

namespace roo {

struct RooRoot {
  std::string surface;
  std::optional<std::string> user;  // the home directory's name
  FileMeta dir;
  std::string found_by = "catalog";  // or "customStoragePath in <settings file>"
};

// A copy of a task file other than the one read as the task's own: a deleted copy, or a safeWriteJson temp file
// (allocated or deleted). Versions are evidence: each is parsed as its kind, its rows kept.
struct FileVersion {
  TaskFileKind kind;
  FileMeta file;
  std::optional<TempFileName> temp;  // set for a .new_/.bak_ temp file
};

// A name that gets a row of its own but has nothing to parse: a deleted entry whose content cannot be trusted or
// is not a task file, or a lock directory left behind.
struct EntryNote {
  FileMeta file;
  const char* kind;     // "deleted_entry", "lock_dir" or "temp_file" (an index temp file, listed, not read)
  std::string outcome;  // what was (not) done with it, and why
  std::optional<TempFileName> temp = std::nullopt;
};

struct TaskDir {
  FileMeta dir;                            // allocated, or a deleted directory whose names libtsk still lists
  std::map<TaskFileKind, FileMeta> files;  // the task's own files by kind: the allocated one, else a deleted copy
  std::vector<FileVersion> versions;       // every other copy of a task file, by name
  std::vector<FileMeta> command_outputs;   // command-output/cmd-*.txt, allocated and deleted, by name
  std::vector<EntryNote> notes;
  std::optional<FileMeta> checkpoints;     // checkpoints/: the task's shadow git repository (docs/roo-format.md §9.1)
};

// A copy of tasks/_index.json other than the one read as the root's index: a deleted one, or a safeWriteJson temp
// file of it. Parsed as an index; entries identical to the index's are folded into it.
struct IndexVersion {
  FileMeta file;
  std::optional<TempFileName> temp;
};

struct RootContents {
  std::vector<TaskDir> tasks;  // sorted by directory name (a deleted directory after a live one of the same name)
  std::optional<FileMeta> index;  // the allocated _index.json, else a deleted one (a deleted root's only index)
  std::vector<IndexVersion> index_versions;  // every other copy of it, by name
  std::vector<EntryNote> notes;  // in tasks/ itself (a deleted _index.json, an _index.json.lock, index temp files)
  int64_t deleted_names = 0;     // deleted names seen under tasks/
  bool tasks_name_first_byte_lost = false;  // tasks/ is FAT's deleted "_asks": its rows say name_match
};

// A view that lists each directory once: discovery resolves many catalog patterns through the same directories (a
// home, .config, a workspaceStorage/<hash> and the files beside its state.vscdb), and a listing reads every entry's
// metadata. A listing is kept only when the underlying view reported no error while making it (errors() did not
// grow), so a directory that cannot be read is listed again each time and its errors are reported as often as
// before. Listings are the view's, whole (allocated, deleted and reallocated names): callers filter as before.
// Everything else is passed through. One per scan (not shared between threads); the evidence does not change while
// it lives. A listing of more than kMaxKeptEntries names is not kept either: the directories listed again are small
// (a home, .config, a workspaceStorage/<hash>), and a temp folder of 100,000 files held for the whole scan would
// cost tens of MB of memory for nothing.
class ListingCache : public FileSystemView {
 public:
  static constexpr size_t kMaxKeptEntries = 4096;
  explicit ListingCache(FileSystemView& base) : base_(base) {}
  const VolumeInfo& volume() const override { return base_.volume(); }
  FileMeta root() override { return base_.root(); }
  std::vector<FileMeta> list_dir(const FileMeta& dir) override {
    std::vector<FileMeta> scratch;
    const std::vector<FileMeta>& l = listing(dir, scratch);
    if (&l == &scratch) return scratch;  // not kept: moved out
    return l;
  }
  std::unique_ptr<ByteSource> open(const FileMeta& file) override { return base_.open(file); }
  std::vector<FileMeta> list_orphans() override { return base_.list_orphans(); }
  std::vector<std::string> errors() const override { return base_.errors(); }
  // dir's listing: the kept one, or a new one (kept when it raised no error; else left in scratch and returned).
  const std::vector<FileMeta>& listing(const FileMeta& dir, std::vector<FileMeta>& scratch);
  FileSystemView& base() { return base_; }

 private:
  FileSystemView& base_;
  // A listing depends on the directory's metadata address and its path (the children's paths are built from it).
  std::map<std::pair<std::optional<uint64_t>, std::string>, std::vector<FileMeta>> kept_;
};

// dir's listing through fs: a ListingCache's kept one without a copy, else fs.list_dir(dir) (left in scratch).
const std::vector<FileMeta>& dir_listing(FileSystemView& fs, const FileMeta& dir, std::vector<FileMeta>& scratch);

// Allocated children of dir whose name matches pattern case-insensitively (NTFS, FAT and HFS+ ignore case, and a
// pattern's case can differ from what the user's system wrote); "*" matches every child, "prefix*" every child
// whose name starts with prefix.
std::vector<FileMeta> children(FileSystemView& fs, const FileMeta& dir, const std::string& pattern, bool dirs_only,
                               bool with_deleted = false);
// FAT marks a deleted entry by overwriting the first byte of its 8.3 name with 0xE5, which libtsk lists as '_': a
// deleted name that had no long name ("tasks") reads "_asks". children() matches such an entry by the rest of its
// name, on FAT12/16/32 only; the rows read through it carry name_match = kNameMatchFirstByteLost.
inline constexpr std::string_view kNameMatchFirstByteLost = "first byte lost (FAT deleted entry)";
// Whether a path found by following segments (the last components of path, one per segment) went through such an
// entry: a component that differs from its literal segment.
bool path_lost_first_byte(const std::string& path, const std::vector<std::string>& segments);
// Every directory reached by following segments from start.
std::vector<FileMeta> resolve(FileSystemView& fs, const FileMeta& start, const std::vector<std::string>& segments,
                              bool with_deleted = false);

// The task directories and index of one root.
RootContents list_root(FileSystemView& fs, const RooRoot& root);
// The bytes of every file a task directory's parse reads (its own files, versions, command outputs).
uint64_t task_dir_bytes(const TaskDir& td);

// What was searched and found in one file system, for the run report.
struct FileParseRecord {
  std::string path;
  std::string kind;
  std::string sha256;
  int64_t records = 0, good_records = 0, errors = 0, folded = 0;
  int64_t version_folded = 0;  // records identical to the task's own file's (this file is a version of it)
  uint64_t bytes = 0;
  // The file as opened, and the identity its rows carry when it ends: --deep's carving folds what it finds against
  // the records of the Roo files the scan read, and attributes neighbours to their task (plugin/image_carving.cpp).
  FileMeta meta;
  std::optional<TaskIdentity> identity;
};
struct RootRecord {
  std::string surface;
  std::optional<std::string> user;
  std::string path;
  int64_t tasks = 0;
  // Directories of tasks/ that hold only checkpoints/ (no task file, no index entry): the default-root half of a task
  // whose files a customStoragePath moved (docs/roo-format.md §1.2). Counted here, not in tasks.
  int64_t checkpoint_only_dirs = 0;
  int64_t deleted_names = 0;
  std::string found_by;
};
// A roo-cline.customStoragePath an editor's settings name (docs/roo-format.md §1.2), and whether this file system holds
// it. One that is not here may be on another partition of the evidence (a Windows drive letter names a volume the
// file system cannot tie to itself): the run looks for it there (scan_custom_storage_path).
struct CustomStoragePath {
  std::string surface;
  std::optional<std::string> user;
  std::string settings_file;
  std::string recorded_path;
  bool found_here = false;
  std::string found_at;  // the directory's path in the file system that holds it
};

// --deep's look through $OrphanFiles: how many orphan files libtsk listed, how many were read as Roo files.
struct OrphanScan {
  int64_t files_seen = 0;
  int64_t roo_files_parsed = 0;
};

struct ScanReport {
  std::vector<std::string> homes_searched;
  std::vector<std::string> temp_dirs_searched;  // temp locations looked through for roo --ephemeral dirs
  std::vector<CustomStoragePath> custom_storage_paths;
  int64_t root_patterns = 0;
  std::vector<RootRecord> roots;
  std::vector<FileParseRecord> files;
  std::vector<std::string> errors;
  std::optional<OrphanScan> orphans;  // set when --deep looked through $OrphanFiles
  std::string carving_json;  // --deep: plugin/image_carving.cpp's counts (CarveStats::to_json), written as scan.carving
  // Called when a source file is done (after its line is added to `files`): the run's progress display.
  std::function<void(const FileParseRecord&)> file_done;
  // Called when a root's contents are listed, with the bytes of its task files and index: the progress total.
  std::function<void(uint64_t)> bytes_planned;
};

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

struct ScanOptions {
  bool native = false;      // copy each record's verbatim text into its rows (--native)
  // --threads: this worker's share of the file system's tasks; null when one worker does everything.
  TaskShare* split = nullptr;
  std::string scratch_dir;  // a private directory for copies SQLite needs (never beside the evidence); empty: none,
                            // and state.vscdb files are reported as not read
  bool deep = false;        // --deep: also read the Roo files among the file system's orphans
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
