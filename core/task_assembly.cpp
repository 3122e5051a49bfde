#include "core/task_assembly.h"

#include <algorithm>

#include "core/file_kinds.h"
#include "core/json_records.h"
#include "core/source_reading.h"
#include "core/sha256.h"
#include "core/text_util.h"

namespace roo {

namespace {

// The time a task id embeds (UUIDv7, 13-digit ms) against the first record's ts (docs/roo-format.md §2.10): the id is
// made when the task is, seconds before its first message. A difference above a minute is reported, both times
// kept. Returns whether the check could be made (the file had a timed record).
bool check_task_id_time(const ParseContext& ctx, std::optional<int64_t> first_ts) {
  if (!first_ts || !ctx.identity || !ctx.identity->session_id) return false;
  TaskIdTime idt = task_id_time(*ctx.identity->session_id);
  if (!idt.ms) return true;
  const int64_t diff = *first_ts - *idt.ms;
  if (diff >= -60000 && diff <= 60000) return true;
  Row r = ctx.row("task_id_time_mismatch");
  r.role = "system";
  r.time_ms = idt.ms;
  r.time_source = idt.format == "uuidv7" ? "task_id.uuidv7" : "task_id.epoch_ms";
  r.text = "task id time " + iso_from_ms(*idt.ms) + " differs from the first record's ts " + iso_from_ms(*first_ts) +
           " by " + std::to_string(diff) + " ms";
  r.set("task_id_time_utc", iso_from_ms(*idt.ms))
      .set("first_record_time_utc", iso_from_ms(*first_ts))
      .set("difference_ms", diff);
  ctx.sink->emit(std::move(r));
  return true;
}

// The row that says a file is a safeWriteJson temp file, timed by the ms its name carries (docs/roo-format.md §2.2).
void emit_temp_file_row(const ParseContext& ctx, const TempFileName& temp) {
  Row r = ctx.row("temp_file");
  r.role = "system";
  r.time_ms = temp.ms;
  r.time_source = "file_name.epoch_ms";
  r.text = std::string(temp.kind == "new" ? "next" : "previous") + " version of " + temp.base + " left by a save (" +
           ctx.source->file.name + ")";
  r.set("temp_kind", temp.kind).set("base_file", temp.base);
  ctx.sink->emit(std::move(r));
}

// In front of a version's rows: drops the rows of its records that the task's own file also has (the rows there
// name this copy in also_in). The parser still reads those records, so later rows that depend on them are right.
class FoldedRecordRows : public RowSink {
 public:
  explicit FoldedRecordRows(RowSink& out) : out_(out) {}
  void emit(const Row& row) override {
    if (!folded(row)) out_.emit(row);
  }
  void take(Row&& row) override {
    if (!folded(row)) out_.emit(std::move(row));
  }
  void end_source(const std::string& sha) override { out_.end_source(sha); }
  std::set<int64_t> records;  // filled by for_each_object_record

 private:
  bool folded(const Row& row) const {
    return row.position.record_index && records.count(*row.position.record_index) > 0;
  }
  RowSink& out_;
};

// The sha256 of each record of an array file, framed without building rows (records after a stray ']' included).
std::vector<std::string> record_digests(FileSystemView& fs, const FileMeta& file) {
  std::vector<std::string> out;
  auto bytes = fs.open(file);
  if (!bytes) return out;
  HashingStream in(*bytes);
  JsonArrayReader reader(in);
  JsonRecord rec;
  for (;;) {
    const JsonArrayReader::Status st = reader.next(rec);
    if (st == JsonArrayReader::Status::record)
      out.push_back(sha256_hex(rec.text));
    else if (st != JsonArrayReader::Status::trailing && st != JsonArrayReader::Status::junk)
      return out;
  }
}

// For each array file of a task that has versions: which records the task's own file has, and which of them a
// version holds too (an identical record is one row naming both sources).
std::map<TaskFileKind, RecordFolds> fold_versions(FileSystemView& fs, const TaskDir& td) {
  std::map<TaskFileKind, RecordFolds> folds;
  for (const FileVersion& v : td.versions) {
    auto own = td.files.find(v.kind);
    if (!file_kind(v.kind).is_array || own == td.files.end()) continue;
    auto [it, first] = folds.try_emplace(v.kind);
    RecordFolds& f = it->second;
    if (first)
      for (std::string& d : record_digests(fs, own->second)) f.live.insert(std::move(d));
    const std::vector<std::string> digests = record_digests(fs, v.file);
    for (size_t i = 0; i < digests.size(); ++i)
      if (f.live.count(digests[i]))
        f.in_versions[digests[i]].push_back({v.file.path, v.file.inode,
                                             recovery_name(v.temp ? Recovery::temp_leftover : v.file.recovery),
                                             static_cast<int64_t>(i), v.file.snapshot});
  }
  return folds;
}

// In front of the rows of a task whose directory is only a deleted name (or is only in a snapshot): its task row says
// so, with task_dir_present false (the caller's) and task_dir_deleted true, whichever file the row is made from.
class DeletedTaskDirRows : public RowFilter {
 public:
  using RowFilter::RowFilter;

 protected:
  void adapt(Row& row) override {
    if (row.kind == "task") row.set("task_dir_deleted", true);
  }
};

// In front of an index parse that keeps every entry's text (the index's versions are folded by it): the rows keep
// their verbatim record only with --native.
class WithoutNative : public RowFilter {
 public:
  WithoutNative(RowSink& out, bool keep) : RowFilter(out), keep_(keep) {}

 protected:
  void adapt(Row& row) override {
    if (!keep_) row.native.reset();
  }

 private:
  bool keep_;
};

// The entries of an _index.json, each with its verbatim text (what its versions are folded by).
std::vector<IndexEntry> read_index_entries(HashingStream& in, const ParseContext& ctx) {
  WithoutNative sink(*ctx.sink, ctx.native);
  ParseContext c = ctx;
  c.native = true;
  c.sink = &sink;
  return parse_task_index(in, c);
}

// The entries of an index version, read without rows (its rows are made when it is parsed as a source).
std::vector<IndexEntry> index_entries_of(FileSystemView& fs, const FileMeta& file) {
  auto bytes = fs.open(file);
  if (!bytes) return {};
  HashingStream in(*bytes);
  struct Discard : RowSink {
    void emit(const Row&) override {}
  } discard;
  ParseContext ctx;
  ctx.file_name = std::string(kTaskIndexFile);
  ctx.sink = &discard;
  return read_index_entries(in, ctx);
}

// A task row made from an index entry: the index file is its source, already hashed above.
void emit_index_task_row(const RootJoins& joins, const IndexEntry& e, const TaskIdentity& id, bool dir_present,
                       bool dir_deleted, RowSink& out, bool native) {
  DeletedTaskDirRows marked(out);
  ParseContext ctx;
  ctx.identity = &id;
  ctx.source = &joins.index_source;
  ctx.file_name = std::string(kTaskIndexFile);
  ctx.native = native;
  ctx.sink = dir_deleted ? static_cast<RowSink*>(&marked) : &out;
  ctx.deleted_task_dirs = &joins.deleted_task_dirs;
  ctx.folds = &joins.index_folds;
  ctx.folds_are_live = true;
  JsonRecord pos;
  pos.index = e.record_index;
  pos.text_sha256 = sha256_hex(e.text);
  if (native) pos.text = e.text;
  emit_task_row(e.item, ctx, "index", dir_present, &pos, joins.task_dirs);
  out.end_source(joins.index_sha);
}

}  // namespace

// The task's identity fields from its HistoryItem, each falling back to the index entry's when the item lacks it.
void apply_history(TaskIdentity& id, const HistoryItem* h, const HistoryItem* indexed) {
  auto pick = [&](std::optional<std::string> HistoryItem::*field) {
    if (h && h->*field) return h->*field;
    return indexed ? indexed->*field : std::nullopt;
  };
  id.parent_session_id = pick(&HistoryItem::parent_task_id);
  id.root_session_id = pick(&HistoryItem::root_task_id);
  id.project_path = pick(&HistoryItem::workspace);
}

// Emits one system row about a directory entry whose content is not read (so its source has no digest): fill sets
// its time, text and fields.
void emit_entry_row(FileSystemView& fs, const FileMeta& entry, const TaskIdentity& id, RowSink& out, const char* kind,
                    const std::function<void(Row&)>& fill) {
  const SourceRef source{&fs.volume(), entry};
  ParseContext ctx;
  ctx.identity = &id;
  ctx.source = &source;
  ctx.file_name = entry.name;
  ctx.sink = &out;
  Row r = ctx.row(kind);
  r.role = "system";
  fill(r);
  out.emit(std::move(r));
  out.end_source("");
}

// The row of a name that has nothing to parse (EntryNote). Its time is the entry's own mtime: libtsk keeps a
// deleted entry's times. It has no content digest: nothing was read.
void emit_note(FileSystemView& fs, const EntryNote& note, const TaskIdentity& id, RowSink& out) {
  emit_entry_row(fs, note.file, id, out, note.kind, [&](Row& r) {
    if (note.temp) {
      r.time_ms = note.temp->ms;
      r.time_source = "file_name.epoch_ms";
      r.text = std::string(note.temp->kind == "new" ? "next" : "previous") + " version of " + note.temp->base +
               " left by a save (" + note.file.name + "): " + note.outcome;
      r.set("temp_kind", note.temp->kind).set("base_file", note.temp->base);
    } else {
      ParseContext::stamp_file_time(r, note.file.mtime, "file.mtime");
      const std::string what = note.kind == std::string_view("lock_dir") ? "lock directory"
                               : note.file.is_dir                          ? "deleted directory"
                                                                           : "deleted file";
      r.text = what + " " + note.file.path + ": " + note.outcome;
    }
    r.set("entry_type", std::string(note.file.is_dir ? "directory" : "file")).set("entry_outcome", note.outcome);
  });
}

// docs/roo-format.md §1.2: a task directory with its checkpoint repository and nothing else of the task's.
bool holds_only_checkpoints(const TaskDir& td) {
  return td.checkpoints && td.files.empty() && td.versions.empty() && td.command_outputs.empty();
}

void join_root(FileSystemView& fs, const RooRoot& root, const RootContents& rc, RowSink& out, ScanReport& report,
               bool native, RootJoins& joins) {
  joins.root_identity = TaskIdentity{root.surface, root.user, {}, {}, {}, {}};
  const TaskIdentity& root_identity = joins.root_identity;
  std::vector<IndexEntry>& index_entries = joins.index_entries;
  std::map<std::string, const IndexEntry*>& index_by_id = joins.index_by_id;
  SourceRef& index_source = joins.index_source;
  std::string& index_sha = joins.index_sha;
  if (rc.index) {
    {
      SourceReading src(fs, *rc.index, &root_identity, out, report, native, task_index_kind().report_kind);
      if (HashingStream* in = src.stream()) {
        index_entries = read_index_entries(*in, src.ctx);
        ParseStats s;  // bad entries gave their own parser_error rows; the report counts the good ones
        s.records = s.good_records = static_cast<int64_t>(index_entries.size());
        src.add_stats(s);
      }
    }
    index_sha = report.files.back().sha256;
    index_source = {&fs.volume(), *rc.index};
    for (const IndexEntry& e : index_entries)
      if (e.item.id) index_by_id.emplace(*e.item.id, &e);
  }
  std::set<std::string>& task_dirs = joins.task_dirs;
  std::map<std::string, bool>& task_dir_live = joins.task_dir_live;
  for (const TaskDir& td : rc.tasks) {
    task_dirs.insert(td.dir.name);
    task_dir_live[td.dir.name] = task_dir_live[td.dir.name] || td.dir.name_allocated;
  }
  std::set<std::string>& deleted_task_dirs = joins.deleted_task_dirs;
  for (const auto& [name, live] : task_dir_live)
    if (!live) deleted_task_dirs.insert(name);
  // The index's versions: an entry whose bytes the index also holds is folded into it, like a task file's
  // version's records; the index's row of that entry names the versions in also_in.
  RecordFolds& index_folds = joins.index_folds;
  if (!rc.index_versions.empty()) {
    for (const IndexEntry& e : index_entries) index_folds.live.insert(sha256_hex(e.text));
    for (const IndexVersion& v : rc.index_versions) {
      const char* recovery = recovery_name(v.temp ? Recovery::temp_leftover : v.file.recovery);
      for (const IndexEntry& e : index_entries_of(fs, v.file))
        if (std::string d = sha256_hex(e.text); index_folds.live.count(d))
          index_folds.in_versions[d].push_back({v.file.path, v.file.inode, recovery, e.record_index, v.file.snapshot});
    }
  }
}

void assemble_task(FileSystemView& fs, const TaskDir& td, const RootJoins& joins, RowSink& out, ScanReport& report,
                   bool native) {
  const TaskIdentity& root_identity = joins.root_identity;
  const std::set<std::string>& task_dirs = joins.task_dirs;
  const std::set<std::string>& deleted_task_dirs = joins.deleted_task_dirs;
  const std::map<std::string, const IndexEntry*>& index_by_id = joins.index_by_id;
  auto emit_from_index = [&](const IndexEntry& e, const TaskIdentity& id, bool dir_present, bool dir_deleted = false) {
    emit_index_task_row(joins, e, id, dir_present, dir_deleted, out, native);
  };
  TaskIdentity id = root_identity;
  id.session_id = td.dir.name;  // docs/row-contract.md "Identity": the directory name is the session id

  auto found = index_by_id.find(td.dir.name);
  const IndexEntry* indexed = found == index_by_id.end() ? nullptr : found->second;

  // A deleted task directory is there only as a deleted name: its task row says so.
  const bool dir_live = td.dir.name_allocated;
  DeletedTaskDirRows marked(out);
  bool task_row_done = false;
  if (auto it = td.files.find(TaskFileKind::history_item); it != td.files.end()) {
    SourceReading src(fs, it->second, &id, out, report, native, file_kind(TaskFileKind::history_item).report_kind);
    src.ctx.deleted_task_dirs = &deleted_task_dirs;
    if (!dir_live) src.ctx.sink = &marked;
    std::optional<HistoryItem> item;
    std::string text;
    if (HashingStream* in = src.stream()) item = parse_history_item_file(*in, src.ctx, &text);
    if (item) {
      task_row_done = true;
      // The task's rows point at `id`: it is filled in before the first of them (the task row) is emitted.
      apply_history(id, &*item, indexed ? &indexed->item : nullptr);
      emit_task_row(*item, src.ctx, "history_item", dir_live, nullptr, task_dirs, &text);
      if (item->id && *item->id != td.dir.name) {
        // Both ids are kept; the directory name stays the session id (docs/row-contract.md "Identity").
        Row r = src.ctx.row("identity_conflict");
        r.role = "system";
        r.text = "task id mismatch: directory " + td.dir.name + " holds history_item.id " + *item->id;
        if (item->ts) {
          r.time_ms = item->ts;
          r.time_source = "history_item.ts";
        }
        r.set("history_item_id", *item->id);
        out.emit(std::move(r));
      }
    }
  }
  if (!task_row_done && indexed) {  // no history_item.json, or one that could not be read
    apply_history(id, nullptr, &indexed->item);
    emit_from_index(*indexed, id, dir_live, !dir_live);
  }

  const std::map<TaskFileKind, RecordFolds> folds = fold_versions(fs, td);
  auto fold = [&](ParseContext& ctx, TaskFileKind kind, bool live) {
    if (auto f = folds.find(kind); f != folds.end()) {
      ctx.folds = &f->second;
      ctx.folds_are_live = live;
    }
  };
  std::optional<ConversationTexts> api_texts;
  bool id_time_checked = false;
  for (TaskFileKind kind : {TaskFileKind::api_history, TaskFileKind::legacy_claude_messages}) {
    auto it = td.files.find(kind);
    if (it == td.files.end()) continue;
    SourceReading src(fs, it->second, &id, out, report, native, file_kind(kind).report_kind);
    src.ctx.task_dirs = &task_dirs;
    src.ctx.deleted_task_dirs = &deleted_task_dirs;
    fold(src.ctx, kind, true);
    if (HashingStream* in = src.stream()) {
      ConversationTexts texts;
      ParseStats s = parse_api_history(*in, src.ctx, &texts);
      src.add_stats(s);
      if (s.good_records > 0) api_texts = std::move(texts);
      id_time_checked = check_task_id_time(src.ctx, s.first_ts) || id_time_checked;
    }
  }
  if (auto it = td.files.find(TaskFileKind::ui_messages); it != td.files.end()) {
    SourceReading src(fs, it->second, &id, out, report, native, file_kind(TaskFileKind::ui_messages).report_kind);
    fold(src.ctx, TaskFileKind::ui_messages, true);
    if (HashingStream* in = src.stream()) {
      ParseStats s = parse_ui_messages(*in, src.ctx, api_texts ? &*api_texts : nullptr);
      src.add_stats(s);
      if (!id_time_checked) check_task_id_time(src.ctx, s.first_ts);
    }
  }
  // The task's other files (those no join needs), in table order.
  for (const FileKind& k : file_kinds()) {
    if (k.place != FilePlace::task_dir || k.joined || !k.parse) continue;
    auto it = td.files.find(k.kind);
    if (it == td.files.end()) continue;
    SourceReading src(fs, it->second, &id, out, report, native, k.report_kind);
    if (HashingStream* in = src.stream()) src.add_stats(k.parse(*in, src.ctx, nullptr));
  }
  const FileKind& command_output = command_output_kind();
  for (const FileMeta& f : td.command_outputs) {
    SourceReading src(fs, f, &id, out, report, native, command_output.report_kind);
    if (HashingStream* in = src.stream()) src.add_stats(command_output.parse(*in, src.ctx, nullptr));
  }
  // Other versions of the task's files (deleted copies, temp files of interrupted or unfinished saves): parsed as
  // their kind, every row kept with its own source, so an older text or a record the live file lost is there.
  for (const FileVersion& v : td.versions) {
    FileMeta meta = v.file;
    if (v.temp) meta.recovery = Recovery::temp_leftover;
    FoldedRecordRows unfolded(out);
    SourceReading src(fs, meta, &id, out, report, native, file_kind(v.kind).report_kind);
    src.ctx.task_dirs = &task_dirs;
    src.ctx.deleted_task_dirs = &deleted_task_dirs;
    fold(src.ctx, v.kind, false);
    if (src.ctx.folds) {
      src.ctx.sink = &unfolded;
      src.ctx.folded_records = &unfolded.records;
    }
    if (v.temp) emit_temp_file_row(src.ctx, *v.temp);
    HashingStream* in = src.stream();
    if (!in) continue;
    if (v.kind == TaskFileKind::history_item) {
      std::string text;
      if (!dir_live) src.ctx.sink = &marked;
      if (auto item = parse_history_item_file(*in, src.ctx, &text))
        emit_task_row(*item, src.ctx, "history_item", dir_live, nullptr, task_dirs, &text);
    } else if (const FileKind& k = file_kind(v.kind); k.parse) {
      src.add_stats(k.parse(*in, src.ctx, api_texts ? &*api_texts : nullptr));
    }
  }
  // docs/roo-format.md §1.2: checkpoint repositories ignore customStoragePath and stay in the default root, so a task
  // whose files a custom path moved is split across two roots, and here are only its checkpoints. One row says so,
  // with the task id as session: the task is one task, its rows from the other root.
  if (holds_only_checkpoints(td) && !indexed)
    emit_entry_row(fs, *td.checkpoints, id, out, "checkpoint_repo", [&](Row& r) {
      ParseContext::stamp_file_time(r, td.checkpoints->mtime, "file.mtime");
      r.text = "checkpoint repository of task " + td.dir.name + " at " + td.checkpoints->path +
               ": no task file beside it in this root";
      r.set("checkpoint_dir", td.checkpoints->path).set("task_files_in_this_root", false);
    });
  for (const EntryNote& note : td.notes) emit_note(fs, note, id, out);
}

void assemble_index_versions(FileSystemView& fs, const RootContents& rc, const RootJoins& joins, RowSink& out,
                             ScanReport& report, bool native) {
  const TaskIdentity& root_identity = joins.root_identity;
  const std::set<std::string>& task_dirs = joins.task_dirs;
  const std::set<std::string>& deleted_task_dirs = joins.deleted_task_dirs;
  const std::map<std::string, bool>& task_dir_live = joins.task_dir_live;
  const RecordFolds& index_folds = joins.index_folds;
  // Other versions of the index (a deleted copy, a temp file of a save), by name: each entry the index does not
  // hold gives its task row, with this copy as source (an older state of a task, or a task the index lost).
  for (const IndexVersion& v : rc.index_versions) {
    FileMeta meta = v.file;
    if (v.temp) meta.recovery = Recovery::temp_leftover;
    SourceReading src(fs, meta, &root_identity, out, report, native, task_index_kind().report_kind);
    src.ctx.deleted_task_dirs = &deleted_task_dirs;
    if (v.temp) emit_temp_file_row(src.ctx, *v.temp);
    HashingStream* in = src.stream();
    if (!in) continue;
    const std::vector<IndexEntry> entries = read_index_entries(*in, src.ctx);
    ParseStats s;
    s.records = s.good_records = static_cast<int64_t>(entries.size());
    for (const IndexEntry& e : entries) {
      if (index_folds.live.count(sha256_hex(e.text))) {
        ++s.version_folded;
        continue;
      }
      TaskIdentity id = root_identity;
      id.session_id = e.item.id;
      apply_history(id, nullptr, &e.item);
      const auto dir = e.item.id ? task_dir_live.find(*e.item.id) : task_dir_live.end();
      const bool present = dir != task_dir_live.end() && dir->second;
      const bool deleted = dir != task_dir_live.end() && !dir->second;
      DeletedTaskDirRows marked(out);
      ParseContext ctx = src.ctx;
      ctx.identity = &id;
      if (deleted) ctx.sink = &marked;
      JsonRecord pos;
      pos.index = e.record_index;
      if (native) pos.text = e.text;
      emit_task_row(e.item, ctx, "index", present, &pos, task_dirs);
    }
    src.add_stats(s);
  }
}

void assemble_index_only_tasks(const RootJoins& joins, RowSink& out, bool native) {
  const TaskIdentity& root_identity = joins.root_identity;
  const std::set<std::string>& task_dirs = joins.task_dirs;
  auto emit_from_index = [&](const IndexEntry& e, const TaskIdentity& id, bool dir_present, bool dir_deleted = false) {
    emit_index_task_row(joins, e, id, dir_present, dir_deleted, out, native);
  };
  // Tasks the index still lists but whose directory is gone: the index is all that is left of them.
  for (const IndexEntry& e : joins.index_entries) {
    if (e.item.id && task_dirs.count(*e.item.id)) continue;
    TaskIdentity id = root_identity;
    id.session_id = e.item.id;
    apply_history(id, nullptr, &e.item);
    emit_from_index(e, id, false);
  }
}

std::set<std::string> known_task_ids(const RootJoins& joins) {
  std::set<std::string> known = joins.task_dirs;
  for (const IndexEntry& e : joins.index_entries)
    if (e.item.id) known.insert(*e.item.id);
  return known;
}

}  // namespace roo
