#include "core/state_vscdb_rows.h"

#include <cstring>
#include <optional>
#include <utility>

#include "core/fs_lookup.h"
#include "core/state_db.h"
#include "core/text_util.h"

namespace roo {

namespace {

// Counts the credential_present rows passing through.
class CredentialCounter : public RowFilter {
 public:
  CredentialCounter(RowSink& out, int64_t& count) : RowFilter(out), count_(count) {}

 private:
  void adapt(Row& row) override {
    if (row.kind == "credential_present") ++count_;
  }
  int64_t& count_;
};

// Adds the same fields to every row passing through (e.g. the VS Code profile a state database belongs to).
class AddFieldsSink : public RowFilter {
 public:
  AddFieldsSink(RowSink& out, std::vector<std::pair<std::string, FieldValue>> fields)
      : RowFilter(out), fields_(std::move(fields)) {}

 private:
  void adapt(Row& row) override {
    for (const auto& f : fields_) row.fields.push_back(f);
  }
  std::vector<std::pair<std::string, FieldValue>> fields_;
};

// Marks the rows whose value the main database file alone does not hold: the -wal file is their only source.
// A row names its setting (setting_key) or stands for a whole value; the main file's object decides per key.
class WalOnlySink : public RowFilter {
 public:
  WalOnlySink(RowSink& out, const rapidjson::Value* main_value) : RowFilter(out), main_(main_value) {}

 private:
  void adapt(Row& row) override {
    if (from_wal_only(row)) row.set("value_from_wal", true);
  }
  bool from_wal_only(const Row& row) const {
    if (!main_) return true;  // the main file holds no such row at all
    const std::string* key = row.string_field("setting_key");
    if (!key) return false;  // rows that state no setting (tasks, credentials) are not judged value by value
    const rapidjson::Value* main_v = lookup(*main_, *key);
    if (row.field("setting_unset")) return main_v != nullptr;  // the WAL removed a value the main file has
    if (!main_v) return true;
    // The row states one scalar or one list entry: it came from the WAL unless the main file states it too.
    const std::string* value = row.string_field("setting_value");
    auto same = [&](const rapidjson::Value& x) {
      if (!value) return false;
      if (x.IsString()) return *value == std::string(x.GetString(), x.GetStringLength());
      return *value == to_json_text(x);
    };
    if (main_v->IsArray()) {
      for (const auto& e : main_v->GetArray())
        if (same(e)) return false;
      return true;
    }
    return !same(*main_v);
  }
  // A setting key is a member name ("roo-cline.allowedCommands") or a dotted path into nested objects
  // ("organization-settings.cloudSettings.recordTaskMessages"); the longest member name that matches wins.
  static const rapidjson::Value* lookup(const rapidjson::Value& obj, std::string_view key) {
    if (!obj.IsObject()) return nullptr;
    for (size_t end = key.size();; end = key.rfind('.', end - 1)) {
      const std::string head(key.substr(0, end));
      if (const rapidjson::Value* v = member(obj, head.c_str())) {
        if (end == key.size()) return v;
        if (const rapidjson::Value* deeper = lookup(*v, key.substr(end + 1))) return deeper;
      }
      if (end == 0 || end == std::string_view::npos || key.rfind('.', end - 1) == std::string_view::npos) return nullptr;
    }
  }
  const rapidjson::Value* main_;
};

// "<…>/User/profiles/<id>/globalStorage/state.vscdb" → "<id>".
std::optional<std::string> profile_of(const std::string& path) {
  const std::string marker = "/profiles/";
  size_t at = path.find(marker);
  if (at == std::string::npos) return std::nullopt;
  at += marker.size();
  size_t end = path.find('/', at);
  if (end == std::string::npos || path.compare(end, 15, "/globalStorage/") != 0) return std::nullopt;
  return path.substr(at, end - at);
}

// The profile's name: User/globalStorage/storage.json {"userDataProfiles":[{"location":"<id>","name":"Work"}]}.
// dir is User/profiles/<id>/globalStorage, so User is three levels up: found by walking from the root.
std::optional<std::string> profile_name(FileSystemView& fs, const FileMeta& dir, const std::string& id) {
  const std::string& p = dir.path;
  const size_t at = p.rfind("/profiles/");
  if (at == std::string::npos) return std::nullopt;
  auto user = find_directory(fs, p.substr(0, at));
  if (!user) return std::nullopt;
  for (const FileMeta& gs : children(fs, *user, "globalStorage", true))
    for (const FileMeta& f : children(fs, gs, "storage.json", false)) {
      rapidjson::Document doc;
      const std::string bytes = read_file_bytes(fs, f);
      if (!parse_json(bytes.data(), bytes.size(), doc, nullptr) || !doc.IsObject()) continue;
      const rapidjson::Value* profiles = member(doc, "userDataProfiles");
      if (!profiles || !profiles->IsArray()) continue;
      for (const auto& pr : profiles->GetArray())
        if (get_string(pr, "location") == std::optional<std::string>(id)) return get_string(pr, "name");
    }
  return std::nullopt;
}

// The extension's name in its id ("roo-cline" of "RooVeterinaryInc.roo-cline"): its state row and its secret://
// rows both hold it as text.
std::string_view extension_name(const RooExtension& ext) {
  const std::string_view id = ext.id;
  return id.substr(id.find('.') + 1);
}

// One state.vscdb may hold the rows of both Roo extensions (release and nightly, docs/roo-format.md §1.1). Row ids
// hash the file, the row's position and its kind (core/row.cpp row_id), and both extensions' rows have the same
// positions (the nightly's `mode` row is part 0 like the release's), so the rows of one file are numbered per kind
// across the keys: the first key's rows keep their numbers and are counted; a later key's row gets part_index = the
// rows of its kind written before it from this file. No existing row id changes, none collides.
class NumberAcrossKeys : public RowFilter {
 public:
  NumberAcrossKeys(RowSink& out, std::map<std::string, int64_t>& rows_so_far, bool renumber)
      : RowFilter(out), rows_so_far_(rows_so_far), renumber_(renumber) {}

 private:
  void adapt(Row& row) override {
    int64_t& n = rows_so_far_[row.kind];
    if (renumber_) row.position.part_index = n;
    ++n;
  }
  std::map<std::string, int64_t>& rows_so_far_;
  bool renumber_;
};


void read_extension_state(const StorePattern& pattern, const StateDbRead& read, SourceReading& src,
                          const ParseContext& ctx, const TaskIdsByRoot& task_ids_by_root, ScanReport& report,
                          std::deque<TaskIdentity>& identities);

// VS Code's state.vscdb: each Roo extension's ItemTable row (global or workspace state) and its secret key names.
void read_state_db_store(FileSystemView& fs, const StorePattern& pattern, const FileMeta& dir, SourceReading& src,
                         const SourceOptions& opts, const TaskIdsByRoot& task_ids_by_root, ScanReport& report, RowSink& out,
                         std::deque<TaskIdentity>& identities) {
  const ParseContext& ctx = src.ctx;
  auto db = read_whole(*src.stream());
  if (!db) {
    src.error("parser: " + ctx.file_name + " is larger than roo-ingest reads");
    return;
  }
  // The -wal beside it holds the newest values (SQLite write-ahead log); it is read with the database.
  std::optional<std::string> wal;
  // Under discovery's ListingCache this is the listing that found the database (and workspace.json beside it).
  std::vector<FileMeta> scratch;
  const std::string wal_name = src.ctx.file_name + "-wal";
  for (const FileMeta& f : dir_listing(fs, dir, scratch)) {
    if (!f.name_allocated || f.is_dir || !iequals(f.name, wal_name)) continue;
    SourceReading wal_src(fs, f, ctx.identity, out, report, opts.native, "state_db_wal");
    if (HashingStream* in = wal_src.stream()) wal = read_whole(*in);
  }
  // Most state databases (one per folder ever opened) hold nothing of Roo's. Its rows' keys are stored as UTF-8
  // text inside the pages (the extension row and its secret:// rows both name "roo-cline", or "roo-code-nightly"),
  // so bytes without either name hold no Roo row and need no SQLite copy. A UTF-16 database is always opened.
  std::vector<const RooExtension*> named;
  for (const RooExtension& ext : roo_extensions())
    if (state_db_may_hold(*db, extension_name(ext)) || (wal && state_db_may_hold(*wal, extension_name(ext))))
      named.push_back(&ext);
  if (named.empty()) return;
  if (opts.scratch_dir.empty()) {
    src.error("parser: " + ctx.file_name + " was not read (no scratch directory for its private copy)");
    return;
  }
  std::map<std::string, int64_t> rows_so_far;  // this file's rows by kind, over every extension's key
  for (const RooExtension* ext : named) {
    StateDbRead read = read_state_db(*db, wal, ext->id, opts.scratch_dir);
    if (!read.ok) {
      // docs/row-contract.md "Bad-line rows": one parser row, never the value. The database is unreadable: one row.
      src.error("parser: " + ctx.file_name + " could not be read (" + read.error + ")");
      return;
    }
    // Each row says which extension's it is; the nightly's rows have its surface, as its roots' rows do. The
    // identity lives in `identities` until the source ends, as the rows pointing to it may.
    TaskIdentity& ext_identity = identities.emplace_back(*ctx.identity);
    if (ext->surface_override) ext_identity.surface = ext->surface_override;
    NumberAcrossKeys numbered(out, rows_so_far, ext != named.front());
    AddFieldsSink marked(numbered, {{"extension_id", std::string(ext->folder)}});
    ParseContext ext_ctx = ctx;
    ext_ctx.identity = &ext_identity;
    ext_ctx.sink = &marked;
    read_extension_state(pattern, read, src, ext_ctx, task_ids_by_root, report, identities);
  }
}

// One extension's rows of a state.vscdb: its ItemTable row's rows, then its secret:// rows. ctx's sink and identity
// are this extension's.
void read_extension_state(const StorePattern& pattern, const StateDbRead& read, SourceReading& src,
                          const ParseContext& ctx, const TaskIdsByRoot& task_ids_by_root, ScanReport& report,
                          std::deque<TaskIdentity>& identities) {
  const std::string path = src.ctx.source->file.path;
  // VS Code keeps every profile's secrets in application scope (BaseSecretStorageService, StorageScope.APPLICATION):
  // the default profile's User/globalStorage/state.vscdb. A secret:// row met in a profile's or a workspace's
  // database (an older or altered install) is reported where it is, never copied to or from the other databases,
  // so each row of the evidence is one credential_present row.
  const char* secret_scope = pattern.kind == StoreKind::workspace_state_db ? "workspace"
                             : profile_of(path)                            ? "profile"
                                                                           : "application";
  // The SecretStorage rows come after the extension row's own rows and are numbered after its credential rows:
  // both are credential_present rows of this one file, and their part_index keeps their row ids apart.
  int64_t credentials_so_far = 0;
  auto secret_rows = [&] {
    int64_t part = credentials_so_far;
    for (const std::string& key : read.secret_keys) {
      Row r = ctx.row("credential_present");
      r.role = "system";
      r.position.part_index = part++;
      ParseContext::stamp_file_time(r, ctx.source->file.mtime, "file.mtime");
      r.text = "credential present: " + key + " (from " + path + " SecretStorage, encrypted)";
      r.set("credential_key", key).set("credential_location", path + " SecretStorage");
      r.set("secret_scope", std::string(secret_scope));
      ctx.sink->emit(std::move(r));
    }
    // A secret the -wal deleted (a sign-out not yet checkpointed): its encrypted row is still in the main file.
    for (const std::string& key : read.secret_keys_deleted_in_wal) {
      Row r = ctx.row("credential_present");
      r.role = "system";
      r.position.part_index = part++;
      ParseContext::stamp_file_time(r, ctx.source->file.mtime, "file.mtime");
      r.text = "credential present: " + key + " (from " + path +
               " SecretStorage, encrypted; deleted in the -wal, still in the main file)";
      r.set("credential_key", key).set("credential_location", path + " SecretStorage");
      r.set("secret_scope", std::string(secret_scope)).set("deleted_in_wal", true);
      ctx.sink->emit(std::move(r));
    }
  };
  if (!read.extension_row) return secret_rows();
  const std::string where = path + " ItemTable " + read.extension_row->key;
  rapidjson::Document value;
  if (!parse_json(read.extension_row->value.data(), read.extension_row->value.size(), value, nullptr) ||
      !value.IsObject()) {
    ctx.error("parser: " + ctx.file_name + " ItemTable " + read.extension_row->key + " is not a JSON object");
    src.count_error();
    return secret_rows();
  }
  // When the WAL changed the row, each row says whether its value is one the main file alone lacks.
  rapidjson::Document main_value;
  const rapidjson::Value* main_object = nullptr;
  if (read.extension_row_main_file &&
      parse_json(read.extension_row_main_file->value.data(), read.extension_row_main_file->value.size(), main_value,
                 nullptr) &&
      main_value.IsObject())
    main_object = &main_value;
  std::optional<WalOnlySink> wal_marks;
  ParseContext value_ctx = ctx;
  if (read.extension_row_from_wal) value_ctx.sink = &wal_marks.emplace(*ctx.sink, main_object);
  CredentialCounter counted(*value_ctx.sink, credentials_so_far);
  value_ctx.sink = &counted;
  if (pattern.kind == StoreKind::workspace_state_db) {
    TaskSessionSink by_task(*value_ctx.sink, identities);
    ParseContext task_ctx = value_ctx;
    task_ctx.sink = &by_task;
    src.add_stats(parse_workspace_state(value, task_ctx, where));
  } else {
    GlobalStateResult g = parse_global_state(value, value_ctx, where);
    src.add_stats(g.stats);
    emit_history_tasks(g.task_history, ctx.identity->surface, task_ids_by_root, ctx, identities);
  }
  if (read.extension_row_from_wal)
    report.errors.push_back(where + ": values marked value_from_wal are only in the -wal file");
  secret_rows();
}

}  // namespace

void emit_history_tasks(const std::vector<GlobalStateTask>& history, const std::string& surface,
                        const TaskIdsByRoot& task_ids_by_root, const ParseContext& base,
                        std::deque<TaskIdentity>& identities) {
  std::set<std::string> known;
  for (const auto& [root, ids] : task_ids_by_root) known.insert(ids.begin(), ids.end());
  for (const GlobalStateTask& t : history) {
    if (!t.item.id || known.count(*t.item.id)) continue;
    TaskIdentity& id = identities.emplace_back(*base.identity);
    id.surface = surface;
    id.session_id = t.item.id;
    id.parent_session_id = t.item.parent_task_id;
    id.root_session_id = t.item.root_task_id;
    id.project_path = t.item.workspace;
    ParseContext ctx = base;
    ctx.identity = &id;
    JsonRecord pos;
    pos.index = t.record_index;
    if (ctx.native) pos.text = t.text;
    emit_task_row(t.item, ctx, "global_state", false, &pos, known);
  }
}

void read_state_vscdb(FileSystemView& fs, const StorePattern& pattern, const FileMeta& dir, SourceReading& src,
                      const SourceOptions& opts, const TaskIdsByRoot& task_ids_by_root, ScanReport& report,
                      RowSink& out, std::deque<TaskIdentity>& identities) {
  // A VS Code profile keeps its own global state in User/profiles/<id>/globalStorage (its name is in the
  // default profile's globalStorage/storage.json userDataProfiles): its rows say which profile.
  std::optional<AddFieldsSink> profile;
  if (auto id = profile_of(src.ctx.source->file.path)) {
    std::vector<std::pair<std::string, FieldValue>> fields{{"profile_id", *id}};
    if (auto name = profile_name(fs, dir, *id)) fields.emplace_back("profile_name", *name);
    src.ctx.sink = &profile.emplace(out, std::move(fields));
  }
  read_state_db_store(fs, pattern, dir, src, opts, task_ids_by_root, report, *src.ctx.sink, identities);
}

std::vector<SurfacedHistoryTask> state_vscdb_task_history(FileSystemView& fs, const FileMeta& dir,
                                                          const FileMeta& file, const std::string& bytes,
                                                          const std::string& surface, const std::string& scratch_dir,
                                                          bool native) {
  std::vector<SurfacedHistoryTask> out;
  if (scratch_dir.empty()) return out;
  std::optional<std::string> wal;
  std::vector<FileMeta> scratch;
  const std::string wal_name = file.name + "-wal";
  for (const FileMeta& f : dir_listing(fs, dir, scratch))
    if (f.name_allocated && !f.is_dir && iequals(f.name, wal_name)) wal = read_file_bytes(fs, f);
  struct Discard : RowSink {
    void emit(const Row&) override {}
  } discard;
  const TaskIdentity identity{surface, {}, {}, {}, {}, {}};
  const SourceRef source{&fs.volume(), file};
  for (const RooExtension& ext : roo_extensions()) {
    if (!state_db_may_hold(bytes, extension_name(ext)) && !(wal && state_db_may_hold(*wal, extension_name(ext))))
      continue;
    StateDbRead read = read_state_db(bytes, wal, ext.id, scratch_dir);
    if (!read.ok || !read.extension_row) continue;
    rapidjson::Document value;
    if (!parse_json(read.extension_row->value.data(), read.extension_row->value.size(), value, nullptr) ||
        !value.IsObject())
      continue;
    ParseContext ctx;
    ctx.identity = &identity;
    ctx.source = &source;
    ctx.file_name = file.name;
    ctx.native = native;
    ctx.sink = &discard;
    const std::string where = file.path + " ItemTable " + read.extension_row->key;
    for (GlobalStateTask& t : parse_global_state(value, ctx, where).task_history)
      out.push_back({ext.surface_override ? ext.surface_override : surface, where, std::move(t)});
  }
  return out;
}

bool contains_ascii_case_insensitive(std::string_view bytes, std::string_view name) {
  if (name.empty()) return !bytes.empty();  // as std::search: an empty name is found at the start of any bytes
  if (bytes.size() < name.size()) return false;
  auto fold = [](unsigned char c) { return static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c | 0x20 : c); };
  const unsigned char first = fold(static_cast<unsigned char>(name[0]));
  const unsigned char first_upper = first >= 'a' && first <= 'z' ? static_cast<unsigned char>(first & ~0x20) : first;
  const char* const begin = bytes.data();
  const size_t starts = bytes.size() - name.size() + 1;  // the positions a match can start at: [0, starts)
  // The next start holding the first byte in either case (memchr finds each case; nullptr when there is none left).
  auto next = [&](const char* from, unsigned char c) -> const char* {
    const size_t left = starts - static_cast<size_t>(from - begin);
    return left ? static_cast<const char*>(std::memchr(from, c, left)) : nullptr;
  };
  const char* lo = next(begin, first);
  const char* up = first_upper != first ? next(begin, first_upper) : nullptr;
  while (lo || up) {
    const char* at = !up || (lo && lo < up) ? lo : up;
    size_t i = 1;
    while (i < name.size() &&
           fold(static_cast<unsigned char>(at[i])) == fold(static_cast<unsigned char>(name[i])))
      ++i;
    if (i == name.size()) return true;
    if (at == lo)
      lo = next(at + 1, first);
    else
      up = next(at + 1, first_upper);
  }
  return false;
}

bool state_db_may_hold(const std::string& bytes, std::string_view name) {
  if (bytes.size() >= 60 && bytes.compare(0, 16, std::string("SQLite format 3\0", 16)) == 0) {
    const auto enc = static_cast<unsigned char>(bytes[59]);
    if (enc == 2 || enc == 3) return true;
  }
  return contains_ascii_case_insensitive(bytes, name);
}

}  // namespace roo
