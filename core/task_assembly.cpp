#include "core/task_assembly.h"

#include <algorithm>
#include <tuple>
#include <type_traits>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

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


// Adds project_path_source to every row of a task whose project path no HistoryItem named (docs/row-contract.md
// "Project path"): set once the path is known, before the task's first row.
class ProjectPathSourceRows : public RowFilter {
 public:
  using RowFilter::RowFilter;
  std::optional<std::string> source;

 protected:
  void adapt(Row& row) override {
    if (source && row.identity && row.identity->project_path) row.set("project_path_source", *source);
  }
};

// One HistoryItem field as JSON text, when the item records it.
template <typename T>
std::optional<std::string> json_of(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  if constexpr (std::is_same_v<T, std::string>)
    w.String(v->data(), static_cast<rapidjson::SizeType>(v->size()));
  else if constexpr (std::is_same_v<T, double>) {
    // As JSON.stringify wrote it: an integral cost is written without a fraction ("0", not "0.0").
    if (*v == static_cast<double>(static_cast<int64_t>(*v)) && *v > -9.0e15 && *v < 9.0e15)
      w.Int64(static_cast<int64_t>(*v));
    else
      w.Double(*v);
  }
  else
    w.Int64(*v);
  return std::string(buf.GetString(), buf.GetSize());
}

// The fields two reports of one task's HistoryItem both record and disagree on, by their HistoryItem names, each with
// its two values as JSON text (first: a's).
std::vector<std::tuple<const char*, std::string, std::string>> history_differences(const HistoryItem& a,
                                                                                   const HistoryItem& b) {
  std::vector<std::tuple<const char*, std::string, std::string>> out;
  auto cmp = [&](const char* name, const auto& x, const auto& y) {
    auto jx = json_of(x), jy = json_of(y);
    if (jx && jy && *jx != *jy) out.emplace_back(name, *jx, *jy);
  };
  cmp("ts", a.ts, b.ts);
  cmp("task", a.task, b.task);
  cmp("number", a.number, b.number);
  cmp("tokensIn", a.tokens_in, b.tokens_in);
  cmp("tokensOut", a.tokens_out, b.tokens_out);
  cmp("cacheWrites", a.cache_writes, b.cache_writes);
  cmp("cacheReads", a.cache_reads, b.cache_reads);
  cmp("totalCost", a.total_cost, b.total_cost);
  cmp("size", a.size, b.size);
  cmp("workspace", a.workspace, b.workspace);
  cmp("mode", a.mode, b.mode);
  cmp("status", a.status, b.status);
  return out;
}

// A report of a task's HistoryItem: the file it is in, and where in it.
struct HistoryReport {
  const HistoryItem* item = nullptr;
  const char* known_from = "";  // history_item | index | global_state
  std::string where;            // the file (or state.vscdb row) as the row's text names it
  const SourceRef* source = nullptr;
  std::string sha256;
  std::optional<int64_t> record_index;
  const std::string* native_text = nullptr;
};

// docs/row-contract.md "Disagreeing reports": another report of the task's HistoryItem that differs from the one its
// rows take is kept (its verbatim entry with --native) in a row that says which fields, which values, which files.
void emit_history_disagreement(const HistoryReport& used, const HistoryReport& other, const TaskIdentity& id,
                               RowSink& out, bool native) {
  const auto diffs = history_differences(*used.item, *other.item);
  if (diffs.empty()) return;
  ParseContext ctx;
  ctx.identity = &id;
  ctx.source = other.source;
  ctx.file_name = other.source->file.name;
  ctx.native = native;
  ctx.sink = &out;
  JsonRecord pos;
  if (other.record_index) pos.index = *other.record_index;
  Row r = ctx.row("history_disagreement", other.record_index ? &pos : nullptr);
  if (native && other.native_text) r.native = *other.native_text;
  r.role = "system";
  if (other.item->ts) {
    r.time_ms = other.item->ts;
    r.time_source = std::string(other.known_from) + ".ts";
  }
  std::string text = "task " + id.session_id.value_or("") + ": " + other.where + " disagrees with " + used.where + ":";
  std::string values = "{";
  std::string names = "[";
  for (const auto& [name, a, b] : diffs) {
    text += std::string(names.size() > 1 ? ";" : "") + " " + name + " " + b + " vs " + a;
    if (names.size() > 1) {
      names += ",";
      values += ",";
    }
    names += "\"" + std::string(name) + "\"";
    values += "\"" + std::string(name) + "\":{\"" + other.known_from + "\":" + b + ",\"" + used.known_from + "\":" + a + "}";
  }
  names += "]";
  values += "}";
  // An index entry older than the task's own report: Roo rewrites the entry on every save (TaskHistoryStore), so the
  // task was saved again, i.e. resumed, after the entry's moment. The global state's taskHistory stopped at the
  // migration to files, so its lag says nothing of the kind.
  const bool older = other.known_from == std::string_view("index") && other.item->ts && used.item->ts &&
                     *other.item->ts < *used.item->ts;
  if (older)
    text += " (" + other.where + " was last written for this task at " + iso_from_ms(*other.item->ts) +
            ": the task was resumed after that moment)";
  r.text = std::move(text);
  r.set("disagreeing_fields", RawJson{names})
      .set("reported_values", RawJson{values})
      .set("report_known_from", std::string(other.known_from))
      .set("report_file", other.where)
      .set("compared_with_known_from", std::string(used.known_from))
      .set("compared_with_file", used.where);
  if (older) r.set("resumed_after_utc", iso_from_ms(*other.item->ts));
  out.emit(std::move(r));
  out.end_source(other.sha256);
}

// The working directory the task's api history names in its first <environment_details> (no rows).
std::optional<std::string> environment_workspace(FileSystemView& fs, const TaskDir& td) {
  for (TaskFileKind kind : {TaskFileKind::api_history, TaskFileKind::legacy_claude_messages}) {
    auto it = td.files.find(kind);
    if (it == td.files.end()) continue;
    auto bytes = fs.open(it->second);
    if (!bytes) continue;
    HashingStream in(*bytes);
    if (auto dir = api_history_first_workspace_dir(in)) return dir;
  }
  return std::nullopt;
}

// The ui records that time the api history's rows (UiTurnTimes), read from the task's ui_messages.json when it has
// one; untimed says whether the api history's first record has no ts (then its turns time its records too).
struct UiTimes {
  UiTurnTimes marks;
  bool untimed = false;
};
std::optional<UiTimes> ui_times_for_api(FileSystemView& fs, const TaskDir& td, const FileMeta& api_file) {
  auto ui = td.files.find(TaskFileKind::ui_messages);
  if (ui == td.files.end()) return std::nullopt;
  UiTimes out;
  {
    auto bytes = fs.open(api_file);
    if (!bytes) return std::nullopt;
    HashingStream in(*bytes);
    out.untimed = !api_history_first_record_timed(in);
  }
  auto bytes = fs.open(ui->second);
  if (!bytes) return std::nullopt;
  HashingStream in(*bytes);
  out.marks = read_ui_turn_times(in);
  return out;
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

void assemble_task(FileSystemView& fs, const TaskDir& td, const RootJoins& joins, RowSink& task_out,
                   ScanReport& report, bool native) {
  ProjectPathSourceRows project_marked(task_out);
  RowSink& out = project_marked;
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
  // The task's taskHistory entries in the home's global states (GlobalHistory): the root's surface first.
  std::vector<const GlobalHistory::Entry*> legacy;
  if (joins.global_history)
    if (auto g = joins.global_history->by_id.find(td.dir.name); g != joins.global_history->by_id.end()) {
      for (const GlobalHistory::Entry& e : g->second)
        if (e.surface == root_identity.surface) legacy.push_back(&e);
      for (const GlobalHistory::Entry& e : g->second)
        if (e.surface != root_identity.surface) legacy.push_back(&e);
    }
  // docs/row-contract.md "Project path": with no HistoryItem naming a workspace, the one the first
  // <environment_details> names, before the task's first row.
  bool workspace_settled = false;
  auto settle_workspace = [&] {
    if (workspace_settled) return;
    workspace_settled = true;
    if (id.project_path) return;
    if (auto dir = environment_workspace(fs, td)) {
      id.project_path = std::move(dir);
      project_marked.source = "environment_details";
    }
  };

  // A deleted task directory is there only as a deleted name: its task row says so.
  const bool dir_live = td.dir.name_allocated;
  DeletedTaskDirRows marked(out);
  bool task_row_done = false;
  std::optional<HistoryItem> own_item;
  std::string own_text;
  std::string own_sha;
  std::optional<SourceRef> own_source;
  if (auto it = td.files.find(TaskFileKind::history_item); it != td.files.end()) {
    SourceReading src(fs, it->second, &id, out, report, native, file_kind(TaskFileKind::history_item).report_kind);
    src.ctx.deleted_task_dirs = &deleted_task_dirs;
    if (!dir_live) src.ctx.sink = &marked;
    std::optional<HistoryItem>& item = own_item;
    std::string& text = own_text;
    if (HashingStream* in = src.stream()) item = parse_history_item_file(*in, src.ctx, &text);
    if (item) {
      task_row_done = true;
      own_source = SourceRef{&fs.volume(), it->second};
      // The task's rows point at `id`: it is filled in before the first of them (the task row) is emitted.
      apply_history(id, &*item, indexed ? &indexed->item : nullptr);
      if (!id.project_path)
        for (const GlobalHistory::Entry* e : legacy)
          if (e->task.item.workspace) id.project_path = e->task.item.workspace;
      settle_workspace();
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
  if (own_item) own_sha = report.files.back().sha256;
  const char* used_from = task_row_done ? "history_item" : nullptr;
  if (!task_row_done && indexed) {  // no history_item.json, or one that could not be read
    apply_history(id, nullptr, &indexed->item);
    settle_workspace();
    emit_from_index(*indexed, id, dir_live, !dir_live);
    used_from = "index";
  }
  const GlobalHistory::Entry* legacy_used = nullptr;
  if (!used_from && !legacy.empty()) {
    // Before history_item.json and _index.json the global state's taskHistory held the task's HistoryItem
    // (seed 000; docs/row-contract.md "Task rows from the global state").
    legacy_used = legacy.front();
    apply_history(id, &legacy_used->task.item, nullptr);
    settle_workspace();
    DeletedTaskDirRows legacy_marked(out);
    ParseContext ctx;
    ctx.identity = &id;
    ctx.source = &legacy_used->file->source;
    ctx.file_name = legacy_used->file->source.file.name;
    ctx.native = native;
    ctx.sink = dir_live ? static_cast<RowSink*>(&out) : &legacy_marked;
    ctx.deleted_task_dirs = &deleted_task_dirs;
    JsonRecord pos;
    pos.index = legacy_used->task.record_index;
    if (native) pos.text = legacy_used->task.text;
    emit_task_row(legacy_used->task.item, ctx, "global_state", dir_live, &pos, task_dirs);
    out.end_source(legacy_used->file->sha256);
    used_from = "global_state";
  }
  settle_workspace();
  // The other reports of the task's HistoryItem, each compared with the one its rows took.
  if (used_from) {
    std::vector<HistoryReport> reports;
    if (own_item)
      reports.push_back({&*own_item, "history_item", own_source->file.path, &*own_source, own_sha, std::nullopt,
                         &own_text});
    if (indexed)
      reports.push_back({&indexed->item, "index",
                         joins.index_source.file.path + " entry " + std::to_string(indexed->record_index),
                         &joins.index_source, joins.index_sha, indexed->record_index, &indexed->text});
    for (const GlobalHistory::Entry* e : legacy)
      reports.push_back({&e->task.item, "global_state",
                         e->file->where + " taskHistory " + std::to_string(e->task.record_index), &e->file->source,
                         e->file->sha256, e->task.record_index, &e->task.text});
    if (!reports.empty() && reports.front().known_from == std::string_view(used_from))
      for (size_t i = 1; i < reports.size(); ++i) emit_history_disagreement(reports.front(), reports[i], id, out, native);
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
    // The ui records of the user's words time its user rows; an api history without ts (roo-cline up to v2.2.35)
    // has its other rows timed by the ui records of the same turns.
    const std::optional<UiTimes> ui_times = ui_times_for_api(fs, td, it->second);
    SourceReading src(fs, it->second, &id, out, report, native, file_kind(kind).report_kind);
    src.ctx.task_dirs = &task_dirs;
    src.ctx.deleted_task_dirs = &deleted_task_dirs;
    if (ui_times) {
      src.ctx.ui_words = &ui_times->marks;
      if (ui_times->untimed) src.ctx.ui_turns = &ui_times->marks;
    }
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
