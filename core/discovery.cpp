#include "core/discovery.h"

#include <algorithm>
#include <functional>
#include <set>

#include "core/file_kinds.h"
#include "core/json_records.h"
#include "core/sha256.h"
#include "core/source_reading.h"
#include "core/store_assembly.h"
#include "core/task_assembly.h"
#include "core/parsers/parsers.h"
#include "core/text_util.h"

namespace roo {

namespace {

// Why a deleted name's content is not read as the file it was, or nothing when it can be.
std::optional<std::string> untrusted_content(const FileMeta& f) {
  if (f.reallocated) return "name deleted and its metadata reused by another file: content not read as this file's";
  if (!f.is_dir && f.size && *f.size == 0) return "no content left (size 0)";
  return std::nullopt;
}

void note_deleted(std::vector<EntryNote>& notes, FileMeta f, std::string outcome) {
  // A snapshot's name is not deleted there: its note says where it is from (docs/row-contract.md "APFS snapshots").
  if (f.snapshot) {
    const std::string deleted = "deleted ";
    if (outcome.compare(0, deleted.size(), deleted) == 0) outcome.erase(0, deleted.size());
    outcome = "in snapshot " + f.snapshot->name + " only: " + outcome;
  }
  notes.push_back({std::move(f), "deleted_entry", std::move(outcome)});
}

// A name that is not the live file system's: a deleted one (not a snapshot's, which is counted apart).
bool deleted_name(const FileMeta& f) { return !f.name_allocated && !f.snapshot; }

bool is_lock_dir(const FileMeta& f) {
  return f.is_dir && f.name.size() > kLockSuffix.size() &&
         std::string_view(f.name).substr(f.name.size() - kLockSuffix.size()) == kLockSuffix;
}

// The entries of one task directory, sorted into its own files, other versions, command outputs and notes.
void list_task_dir(FileSystemView& fs, TaskDir& td, int64_t& deleted_names) {
  std::map<TaskFileKind, std::vector<FileMeta>> deleted_copies;
  for (FileMeta& f : fs.list_dir(td.dir)) {
    if (f.name == "." || f.name == "..") continue;
    if (deleted_name(f)) ++deleted_names;
    if (is_lock_dir(f)) {
      td.notes.push_back({f, "lock_dir", "a write of " + f.name.substr(0, f.name.size() - kLockSuffix.size()) +
                                             " was in progress, or the process died before releasing its lock"});
      continue;
    }
    if (f.is_dir) {
      if (iequals(f.name, kCommandOutputDir)) {
        for (FileMeta& out : fs.list_dir(f)) {
          if (out.name == "." || out.name == ".." || out.is_dir || !is_command_output_file(out.name)) continue;
          if (deleted_name(out)) ++deleted_names;
          if (auto why = untrusted_content(out); why && !out.name_allocated)
            note_deleted(td.notes, std::move(out), *why);
          else
            td.command_outputs.push_back(std::move(out));
        }
      } else if (!f.name_allocated) {
        note_deleted(td.notes, std::move(f), "deleted directory, not a task file");
      } else if (iequals(f.name, "checkpoints")) {
        td.checkpoints = std::move(f);
      }
      continue;
    }
    if (auto temp = parse_temp_file_name(f.name)) {
      const TaskFileKind kind = task_file_kind(temp->base);
      if (kind != TaskFileKind::unknown && !f.reallocated) {
        td.versions.push_back({kind, std::move(f), std::move(temp)});
        continue;
      }
    }
    const TaskFileKind kind = task_file_kind(f.name);
    if (f.name_allocated) {
      if (kind != TaskFileKind::unknown) td.files.emplace(kind, std::move(f));
      continue;
    }
    if (auto why = untrusted_content(f))
      note_deleted(td.notes, std::move(f), *why);
    else if (kind == TaskFileKind::unknown)
      note_deleted(td.notes, std::move(f), "deleted file, not a task file: not read");
    else
      deleted_copies[kind].push_back(std::move(f));
  }
  // A deleted copy stands in for a task file that has no live one; every other deleted copy is a version.
  for (auto& [kind, copies] : deleted_copies)
    for (FileMeta& f : copies) {
      if (!td.files.count(kind))
        td.files.emplace(kind, std::move(f));
      else
        td.versions.push_back({kind, std::move(f), std::nullopt});
    }
  auto by_name = [](const auto& a, const auto& b) { return a.name < b.name; };
  std::stable_sort(td.command_outputs.begin(), td.command_outputs.end(), by_name);
  std::stable_sort(td.versions.begin(), td.versions.end(),
                   [](const FileVersion& a, const FileVersion& b) { return a.file.name < b.file.name; });
}

}  // namespace

uint64_t task_dir_bytes(const TaskDir& td) {
  uint64_t n = 0;
  for (const auto& [kind, f] : td.files) n += f.size.value_or(0);
  for (const FileVersion& v : td.versions) n += v.file.size.value_or(0);
  for (const FileMeta& f : td.command_outputs) n += f.size.value_or(0);
  return n;
}

RootContents list_root(FileSystemView& fs, const RooRoot& root) {
  RootContents rc;
  std::vector<FileMeta> deleted_indexes;
  // A deleted root (an ephemeral dir removed at exit) has only deleted names below it: they are read all the same.
  const bool with_deleted = !root.dir.name_allocated;
  for (const FileMeta& tasks : children(fs, root.dir, std::string(kTasksDir), true, with_deleted)) {
    if (path_lost_first_byte(tasks.path, {std::string(kTasksDir)})) rc.tasks_name_first_byte_lost = true;
    for (FileMeta& e : fs.list_dir(tasks)) {
      if (e.name == "." || e.name == "..") continue;
      if (deleted_name(e)) ++rc.deleted_names;
      if (is_lock_dir(e)) {
        rc.notes.push_back({e, "lock_dir", "a write of " + e.name.substr(0, e.name.size() - kLockSuffix.size()) +
                                               " was in progress, or the process died before releasing its lock"});
        continue;
      }
      if (!e.is_dir) {
        // Older versions of the index are read as versions; a deleted one stands in for a missing live one.
        auto temp = parse_temp_file_name(e.name);
        const bool index_temp = temp && temp->base == kTaskIndexFile;
        if (e.name == kTaskIndexFile && e.name_allocated) {
          rc.index = std::move(e);
        } else if (e.name == kTaskIndexFile || index_temp) {
          if (auto why = untrusted_content(e); why && !e.name_allocated)
            note_deleted(rc.notes, std::move(e), *why);
          else if (index_temp)
            rc.index_versions.push_back({std::move(e), std::move(temp)});
          else
            deleted_indexes.push_back(std::move(e));
        }
        continue;
      }
      // Roo's own reconciliation ignores names starting with '_' or '.' (docs/roo-format.md §2.9).
      if (e.name.empty() || e.name[0] == '.' || e.name[0] == '_') continue;
      if (auto why = untrusted_content(e); why && !e.name_allocated) {
        note_deleted(rc.notes, std::move(e), *why);
        continue;
      }
      TaskDir td;
      td.dir = std::move(e);
      list_task_dir(fs, td, rc.deleted_names);
      rc.tasks.push_back(std::move(td));
    }
  }
  for (FileMeta& f : deleted_indexes) {
    if (!rc.index)
      rc.index = std::move(f);
    else
      rc.index_versions.push_back({std::move(f), std::nullopt});
  }
  std::stable_sort(rc.index_versions.begin(), rc.index_versions.end(),
                   [](const IndexVersion& a, const IndexVersion& b) { return a.file.name < b.file.name; });
  return rc;  // list_dir's order: by name, a live directory before a deleted one of the same name
}

namespace {

// In front of the rows of files read through a FAT deleted entry matched with its first byte lost: each
// says so, as the path it names ("_asks") is not the name Roo wrote.
class FirstByteLostRows : public RowFilter {
 public:
  using RowFilter::RowFilter;

 protected:
  void adapt(Row& row) override {
    if (!row.string_field("name_match")) row.set("name_match", std::string(kNameMatchFirstByteLost));  // once
  }
};

// One root's task directories as task items: the root's contents and joins, read once by discovery, shared by every
// item and kept until the last one is run.
class RootTaskItems : public TaskItems {
 public:
  RootContents contents;
  RootJoins joins;
  bool name_first_byte_lost = false;
  bool native = false;

  size_t size() const override { return contents.tasks.size(); }
  uint64_t bytes(size_t i) const override { return task_dir_bytes(contents.tasks[i]); }
  void run(size_t i, FileSystemView& fs, RowSink& out, ScanReport& report) const override {
    FirstByteLostRows marked_name(out);
    assemble_task(fs, contents.tasks[i], joins, name_first_byte_lost ? static_cast<RowSink&>(marked_name) : out,
                  report, native);
  }
};

}  // namespace

std::set<std::string> process_root(FileSystemView& fs, const RooRoot& root, RowSink& sink, ScanReport& report,
                                   const ScanOptions& opts, const GlobalHistory* global_history) {
  const bool native = opts.native;
  auto items = std::make_shared<RootTaskItems>();
  items->contents = list_root(fs, root);
  const RootContents& rc = items->contents;
  RootJoins& joins = items->joins;
  items->name_first_byte_lost = rc.tasks_name_first_byte_lost || root.name_first_byte_lost;
  items->native = native;
  FirstByteLostRows marked_name(sink);
  RowSink& out = items->name_first_byte_lost ? static_cast<RowSink&>(marked_name) : sink;
  if (report.bytes_planned) {  // the progress display's total: what this root's task files and index hold
    uint64_t bytes = rc.index ? rc.index->size.value_or(0) : 0;
    for (const TaskDir& td : rc.tasks) bytes += task_dir_bytes(td);
    report.bytes_planned(bytes);
  }
  const size_t root_record = report.roots.size();
  report.roots.push_back({root.surface, root.user, root.dir.path, static_cast<int64_t>(rc.tasks.size()), 0,
                          rc.deleted_names, root.found_by});

  joins.global_history = global_history;
  join_root(fs, root, rc, out, report, native, joins);
  // A directory with only checkpoints/ is not a task of this root (its checkpoint_repo row joins the task): counted
  // apart in the report.
  for (const TaskDir& td : rc.tasks)
    if (holds_only_checkpoints(td) && !joins.index_by_id.count(td.dir.name)) {
      --report.roots[root_record].tasks;
      ++report.roots[root_record].checkpoint_only_dirs;
    }
  // The task directories, in name order: here, or by the runner (their rows still come out here, in that order).
  if (opts.runner && !rc.tasks.empty())
    opts.runner->run(items);
  else
    for (size_t i = 0; i < rc.tasks.size(); ++i) items->run(i, fs, sink, report);
  for (const EntryNote& note : rc.notes) emit_note(fs, note, joins.root_identity, out);

  assemble_index_versions(fs, rc, joins, out, report, native);

  assemble_index_only_tasks(joins, out, native);
  return known_task_ids(joins);
}

namespace {

// A root's own settings/mcp_settings.json (and the legacy cline_mcp_settings.json): read for roots outside the
// catalog (a custom storage path), whose settings folder no store pattern reaches. seen, when given, keeps a file
// from being read twice.
void read_root_mcp_settings(FileSystemView& fs, const RooRoot& root, RowSink& out, ScanReport& report,
                            const ScanOptions& opts, const HomeTasks& home, std::set<std::string>* seen) {
  for (const FileMeta& settings : children(fs, root.dir, "settings", true))
    for (const char* name : {"mcp_settings.json", "cline_mcp_settings.json"})
      for (const FileMeta& file : children(fs, settings, name, false))
        if (!file.is_dir && (!seen || seen->insert(file.path).second))
          process_store(fs, StorePattern{root.surface, {}, StoreKind::mcp_settings}, settings, file, root.user, out,
                        report, opts, home);
}

}  // namespace

namespace {

// The evidence under a ListingCache: a root's task directories are read once each, and not kept.
FileSystemView& uncached(FileSystemView& fs) {
  if (auto* cache = dynamic_cast<ListingCache*>(&fs)) return cache->base();
  return fs;
}

// The path component at index i of a '/'-separated path that starts with '/'.
std::optional<std::string> path_component(const std::string& path, int i) {
  size_t start = 1;
  for (int k = 0; k < i; ++k) {
    start = path.find('/', start);
    if (start == std::string::npos) return std::nullopt;
    ++start;
  }
  return path.substr(start, path.find('/', start) - start);
}

// What the tasks of one home (or ephemeral dir) tell its other stores (HomeTasks): collected from the rows of its
// roots as they pass, and, when a runner runs the task items, from the items' rows too (gathered before the stores).
class HomeFindings {
 public:
  HomeFindings(RowSink& out, const ScanOptions& opts)
      : runner_(opts.runner), collect_(out, tasks_, runner_ ? runner_->position() : nullptr) {}
  // Where the home's roots write their rows.
  RowSink& roots_out() { return collect_; }
  void add_root(const std::string& path, std::set<std::string> task_ids) {
    tasks_.task_ids_by_root[path] = std::move(task_ids);
  }
  // What every task of the home told: the stores' input.
  const HomeTasks& gathered() {
    if (runner_) runner_->gather(tasks_);
    return tasks_;
  }

 private:
  TaskRunner* runner_;
  HomeTasks tasks_;
  UserWordsCollector collect_;
};

// One roo --ephemeral storage directory (docs/roo-format.md §1.4): its row, timed by the ms in its name, then its
// global-storage/ read as a CLI root and its stores as ~/.vscode-mock's. A live one means the CLI was killed before
// its cleanup; a deleted one is read through the names libtsk still lists.
void process_ephemeral_dir(FileSystemView& fs, const FileMeta& dir, int64_t name_ms, const std::string& temp_dir,
                           const std::optional<std::string>& user, RowSink& out, ScanReport& report,
                           const ScanOptions& opts) {
  constexpr const char* kSurface = "cli-ephemeral";
  const TaskIdentity identity{kSurface, user, {}, {}, {}, {}};
  emit_entry_row(fs, dir, identity, out, "ephemeral_dir", [&](Row& r) {
    r.time_ms = name_ms;
    r.time_source = "dir_name.epoch_ms";
    r.text = "roo --ephemeral storage " + dir.path +
             (dir.name_allocated ? " still present: the CLI did not remove it (killed, crashed or still running)"
              : dir.reallocated  ? " deleted, and its metadata now belongs to another file: not read"
                                 : " deleted (the CLI removes it on exit); read from the names left");
    r.set("dir_name", dir.name).set("temp_dir", temp_dir).set("allocated", dir.name_allocated);
  });
  if (dir.reallocated) return;  // what is below is another directory's
  const bool with_deleted = !dir.name_allocated;
  HomeFindings findings(out, opts);
  for (FileMeta& storage : children(fs, dir, "global-storage", true, with_deleted)) {
    RooRoot root{kSurface, user, std::move(storage), "roo --ephemeral dir " + dir.path};
    root.name_first_byte_lost = path_lost_first_byte(root.dir.path, {"global-storage"});
    findings.add_root(root.dir.path, process_root(uncached(fs), root, findings.roots_out(), report, opts));
  }
  const HomeTasks& tasks = findings.gathered();
  for (const StorePattern& sp : store_patterns()) {
    if (sp.segments.empty() || sp.segments.front() != kCliStorageDir) continue;
    const std::vector<std::string> dirs(sp.segments.begin() + 1, sp.segments.end() - 1);
    StorePattern here = sp;
    here.surface = kSurface;
    for (const FileMeta& d : resolve(fs, dir, dirs, with_deleted))
      for (const FileMeta& file : children(fs, d, sp.segments.back(), false, with_deleted)) {
        if (!(store_is_any_entry(sp.kind) || file.is_dir == store_is_directory(sp.kind))) continue;
        std::vector<std::string> below(dirs);
        below.push_back(sp.segments.back());
        FirstByteLostRows marked_name(out);
        process_store(fs, here, d, file, user, path_lost_first_byte(file.path, below) ? marked_name : out, report,
                      opts, tasks);
      }
  }
}

// Every temp location of the catalog, for roo --ephemeral storage directories, allocated and deleted.
void scan_temp_locations(FileSystemView& fs, RowSink& out, ScanReport& report, const ScanOptions& opts) {
  std::set<std::string> seen;
  for (const TempPattern& tp : temp_patterns())
    for (const FileMeta& temp : resolve(fs, fs.root(), tp.segments)) {
      if (!seen.insert(temp.path).second) continue;
      report.temp_dirs_searched.push_back(temp.path);
      const auto user = tp.user_segment >= 0 ? path_component(temp.path, tp.user_segment) : std::nullopt;
      std::vector<FileMeta> scratch;
      for (const FileMeta& e : dir_listing(fs, temp, scratch))
        if (auto ms = ephemeral_dir_time(e.name); ms && e.is_dir)
          process_ephemeral_dir(fs, e, *ms, temp.path, user, out, report, opts);
    }
}

}  // namespace

namespace {

// An orphan read as a row of the file kinds' table: a task directory's own file, or the index.
std::optional<OrphanKind> orphan_kind_of(const FileKind* f, OrphanKind k) {
  if (!f || !f->orphans) return std::nullopt;
  if (f->place == FilePlace::tasks_dir)
    k.is_index = true;
  else if (f->place == FilePlace::task_dir)
    k.kind = f->kind;
  else
    return std::nullopt;
  return k;
}

}  // namespace

std::optional<OrphanKind> orphan_kind_by_name(std::string_view name) {
  OrphanKind k;
  std::string_view base = name;
  if (auto temp = parse_temp_file_name(name)) {
    k.temp = std::move(temp);
    base = k.temp->base;
  }
  const FileKind* f = file_kind_named(base, FilePlace::tasks_dir);
  return orphan_kind_of(f ? f : file_kind_named(base, FilePlace::task_dir), std::move(k));
}

bool is_made_up_orphan_name(std::string_view name) {
  constexpr std::string_view prefix = "OrphanFile-";
  if (!starts_with(name, prefix) || name.size() == prefix.size()) return false;
  return std::all_of(name.begin() + prefix.size(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<OrphanKind> orphan_kind_by_content(std::string_view b) {
  OrphanKind k;
  k.decided_by = "content";
  return orphan_kind_of(file_kind_sniffed(b), std::move(k));
}

namespace {

// How much of a nameless orphan is read to tell its kind: enough for a HistoryItem's id, parent ids, number and ts.
constexpr size_t kOrphanSniffBytes = 512;

// The kind of one orphan: its name when it kept one; the opening bytes of a libtsk OrphanFile-<inode>.
std::optional<OrphanKind> orphan_kind(FileSystemView& fs, const FileMeta& f) {
  if (auto k = orphan_kind_by_name(f.name)) return k;
  if (!is_made_up_orphan_name(f.name) || (f.size && *f.size == 0)) return std::nullopt;
  auto bytes = fs.open(f);
  if (!bytes) return std::nullopt;
  char buf[kOrphanSniffBytes];
  const int64_t n = bytes->read_at(0, buf, sizeof buf);
  if (n <= 0) return std::nullopt;
  return orphan_kind_by_content(std::string_view(buf, static_cast<size_t>(n)));
}

const FileKind& orphan_file_kind(const OrphanKind& k) { return k.is_index ? task_index_kind() : file_kind(k.kind); }

// One Roo orphan: its orphan_file row, then its rows as its kind. Its identity has no surface, user or task (the
// path that said them is gone); a HistoryItem (or an index entry) names its own task, and only then is it set.
void process_orphan(FileSystemView& fs, const FileMeta& file, const OrphanKind& k, RowSink& out, ScanReport& report,
                    const ScanOptions& opts) {
  TaskIdentity id;
  const FileKind& spec = orphan_file_kind(k);
  const std::string as(spec.name);
  SourceReading src(fs, file, &id, out, report, opts.native, spec.report_kind);
  {
    Row r = src.ctx.row("orphan_file");
    r.role = "system";
    std::string how = k.decided_by == std::string_view("content")
                          ? "kind from its opening bytes (libtsk made up its name)"
                          : "kind from its name";
    if (k.temp) {
      r.time_ms = k.temp->ms;
      r.time_source = "file_name.epoch_ms";
      r.set("temp_kind", k.temp->kind).set("base_file", k.temp->base);
      how += ", a " + std::string(k.temp->kind == "new" ? "next" : "previous") + " version left by a save";
    } else {
      ParseContext::stamp_file_time(r, file.mtime, "file.mtime");
    }
    r.text = "orphan file " + file.path + " (metadata " + std::to_string(file.inode.value_or(0)) +
             ", no directory names it): read as " + as + ", " + how;
    r.set("orphan_kind", as).set("kind_decided_by", std::string(k.decided_by));
    out.emit(std::move(r));
  }
  HashingStream* in = src.stream();
  if (!in) return;
  if (k.is_index) {
    const std::vector<IndexEntry> entries = parse_task_index(*in, src.ctx);
    ParseStats s;
    s.records = s.good_records = static_cast<int64_t>(entries.size());
    src.add_stats(s);
    for (const IndexEntry& e : entries) {
      TaskIdentity eid;
      eid.session_id = e.item.id;
      apply_history(eid, nullptr, &e.item);
      ParseContext ctx = src.ctx;
      ctx.identity = &eid;
      JsonRecord pos;
      pos.index = e.record_index;
      if (opts.native) pos.text = e.text;
      emit_task_row(e.item, ctx, "index", false, &pos, {});
    }
    return;
  }
  if (k.kind == TaskFileKind::history_item) {
    std::string text;
    if (auto item = parse_history_item_file(*in, src.ctx, &text)) {
      id.session_id = item->id;  // the content's own id: the only task an orphan can name (no path says one)
      apply_history(id, &*item, nullptr);
      emit_task_row(*item, src.ctx, "history_item", false, nullptr, {}, &text);
    }
  } else if (spec.parse) {
    src.add_stats(spec.parse(*in, src.ctx, nullptr));
  }
}

}  // namespace

void scan_orphans(FileSystemView& fs, RowSink& out, ScanReport& report, const ScanOptions& opts) {
  OrphanScan scan;
  const std::vector<FileMeta> orphans = fs.list_orphans();
  scan.files_seen = static_cast<int64_t>(orphans.size());
  for (const FileMeta& f : orphans) {
    auto k = orphan_kind(fs, f);
    if (!k) continue;
    ++scan.roo_files_parsed;
    process_orphan(fs, f, *k, out, report, opts);
  }
  report.orphans = scan;
}

void scan_file_system(FileSystemView& base, RowSink& out, ScanReport& report, const ScanOptions& opts) {
  // Discovery and the stores go through one cache of listings (the catalog's patterns list the same directories
  // many times); a root's task directories are listed once each, straight from the evidence.
  ListingCache fs(base);
  report.root_patterns = static_cast<int64_t>(root_patterns().size());
  std::set<std::string> seen_homes, seen_roots, seen_stores;  // a place matched by two patterns is read once
  const FileMeta top = fs.root();
  for (const HomePattern& hp : home_patterns()) {
    for (const FileMeta& home : resolve(fs, top, hp.segments)) {
      if (!seen_homes.insert(home.path).second) continue;
      report.homes_searched.push_back(home.path);
      HomeFindings findings(out, opts);
      GlobalHistory global_history;  // before the roots: a task directory's HistoryItem may be only there
      read_home_global_history(fs, home, opts, global_history);
      std::vector<RooRoot> roots;
      for (const RootPattern& rp : root_patterns())
        for (FileMeta& dir : resolve(fs, home, rp.segments)) roots.push_back({rp.surface, home.name, std::move(dir)});
      const std::vector<RooRoot> custom_roots = custom_storage_roots(fs, home, report);
      roots.insert(roots.end(), custom_roots.begin(), custom_roots.end());
      for (const RooRoot& root : roots)
        if (seen_roots.insert(root.dir.path).second)
          findings.add_root(root.dir.path,
                            process_root(base, root, findings.roots_out(), report, opts, &global_history));
      const HomeTasks& tasks = findings.gathered();
      // A custom storage path holds the settings folder too (docs/roo-format.md §1.2): its MCP settings come first.
      for (const RooRoot& root : custom_roots)
        read_root_mcp_settings(fs, root, out, report, opts, tasks, &seen_stores);
      // A workspace's own .roo/mcp.json (docs/roo-format.md §7.3), for every workspace this home's tasks name that is
      // on this file system; its rows carry the project (docs/row-contract.md "Permission rows").
      for (const auto& [workspace, surface] : tasks.project_paths)
        if (auto ws = find_directory(fs, workspace))
          for (const FileMeta& roo_dir : children(fs, *ws, ".roo", true))
            for (const FileMeta& file : children(fs, roo_dir, "mcp.json", false))
              if (!file.is_dir && seen_stores.insert(file.path).second)
                process_store(fs, StorePattern{surface, {}, StoreKind::mcp_settings}, roo_dir, file, home.name, out,
                              report, opts, tasks, workspace);
      for (const StorePattern& sp : store_patterns()) {
        std::vector<std::string> dirs(sp.segments.begin(), sp.segments.end() - 1);
        for (const FileMeta& dir : resolve(fs, home, dirs))
          for (const FileMeta& file : children(fs, dir, sp.segments.back(), false)) {
            const bool kind_ok = store_is_any_entry(sp.kind) || file.is_dir == store_is_directory(sp.kind);
            if (!kind_ok || !seen_stores.insert(file.path).second) continue;
            process_store(fs, sp, dir, file, home.name, out, report, opts, tasks);
          }
      }
    }
  }
  scan_temp_locations(fs, out, report, opts);
  if (opts.deep) scan_orphans(base, out, report, opts);
  for (const std::string& e : base.errors()) report.errors.push_back(e);
}

bool scan_custom_storage_path(FileSystemView& fs, const CustomStoragePath& wanted, RowSink& out, ScanReport& report,
                              const ScanOptions& opts) {
  CustomStoragePath record = wanted;
  auto dir = find_directory(fs, wanted.recorded_path);
  record.found_here = dir.has_value();
  if (dir) {
    record.found_at = dir->path;
    {
      // The finding as a row, so the timeline says where the tasks the setting moved are (the setting's own row, on
      // the other file system, could only say it was not there). Its source is the directory; it records no time.
      const TaskIdentity identity{wanted.surface, wanted.user, {}, {}, {}, {}};
      emit_entry_row(fs, *dir, identity, out, "host_setting", [&](Row& r) {
        r.position.part_index = 0;
        const std::string key = custom_storage_setting_key(wanted.surface);  // the nightly's has its own name
        r.text = "host setting: " + key + "=" + wanted.recorded_path + " (from " + wanted.settings_file +
                 " on another file system) is here at " + dir->path;
        r.set("setting_key", key)
            .set("setting_value", wanted.recorded_path)
            .set("settings_file", wanted.settings_file)
            .set("resolved_path", dir->path)
            .set("resolution", std::string("found here, named on another file system"));
      });
    }
    RooRoot root{wanted.surface, wanted.user, *dir, "customStoragePath in " + wanted.settings_file + " (another file system)"};
    process_root(fs, root, out, report, opts);
    read_root_mcp_settings(fs, root, out, report, opts, HomeTasks{}, nullptr);  // its home is on the other FS
  }
  report.custom_storage_paths.push_back(std::move(record));
  for (const std::string& e : fs.errors()) report.errors.push_back(e);
  return dir.has_value();
}

}  // namespace roo
