#include "core/stores.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <deque>

#include "core/open_source.h"
#include "core/parsers/config_stores.h"
#include "core/state_db.h"
#include "core/text_util.h"

namespace roo {

namespace {

const char* store_kind_name(StoreKind kind) {
  switch (kind) {
    case StoreKind::global_state_db: return "global_state_db";
    case StoreKind::workspace_state_db: return "workspace_state_db";
    case StoreKind::global_state_json: return "global_state";
    case StoreKind::workspace_state_json: return "workspace_state";
    case StoreKind::cli_secrets: return "cli_secrets";
    case StoreKind::mcp_settings: return "mcp_settings";
    case StoreKind::cli_history: return "cli_history";
    case StoreKind::cli_settings: return "cli_settings";
    case StoreKind::cli_credentials: return "cli_credentials";
    case StoreKind::host_settings: return "host_settings";
    case StoreKind::extension_manifest: return "extension_manifest";
    case StoreKind::extension_dir: return "extension_dir";
    case StoreKind::cli_machine_id: return "cli_machine_id";
    case StoreKind::roo_config_entry: return "roo_config_entry";
    case StoreKind::worktree: return "worktree";
  }
  return "store";
}

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

// The whole file, read through the hashing stream (so its digest is the file's), up to the shared record cap.
std::optional<std::string> read_whole(HashingStream& in) {
  bool over = false;
  std::string bytes = read_up_to(in, kMaxRecordBytes, &over);
  if (over) return std::nullopt;
  return bytes;
}

// Legacy taskHistory entries (docs/roo-format.md §4, §5) of tasks no root of this home knows: all that is left of a
// deleted task in releases before the per-task history_item.json files. Identities live in `identities` until the
// source ends.
void emit_history_tasks(const std::vector<GlobalStateTask>& history, const std::string& surface, const HomeTasks& home,
                        const ParseContext& base, std::deque<TaskIdentity>& identities) {
  std::set<std::string> known;
  for (const auto& [root, ids] : home.task_ids_by_root) known.insert(ids.begin(), ids.end());
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

std::optional<std::string> profile_of(const std::string& path);

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

void read_extension_state(const StorePattern& pattern, const StateDbRead& read, OpenSource& src,
                          const ParseContext& ctx, const HomeTasks& home, ScanReport& report,
                          std::deque<TaskIdentity>& identities);

// VS Code's state.vscdb: each Roo extension's ItemTable row (global or workspace state) and its secret key names.
void read_state_db_store(FileSystemView& fs, const StorePattern& pattern, const FileMeta& dir, OpenSource& src,
                         const ScanOptions& opts, const HomeTasks& home, ScanReport& report, RowSink& out,
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
    OpenSource wal_src(fs, f, ctx.identity, out, report, opts.native, "state_db_wal");
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
    read_extension_state(pattern, read, src, ext_ctx, home, report, identities);
  }
}

// One extension's rows of a state.vscdb: its ItemTable row's rows, then its secret:// rows. ctx's sink and identity
// are this extension's.
void read_extension_state(const StorePattern& pattern, const StateDbRead& read, OpenSource& src,
                          const ParseContext& ctx, const HomeTasks& home, ScanReport& report,
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
    emit_history_tasks(g.task_history, ctx.identity->surface, home, ctx, identities);
  }
  if (read.extension_row_from_wal)
    report.errors.push_back(where + ": values marked value_from_wal are only in the -wal file");
  secret_rows();
}

std::string read_file_bytes(FileSystemView& fs, const FileMeta& file);

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

std::string read_file_bytes(FileSystemView& fs, const FileMeta& file) {
  std::string bytes;
  if (auto src = fs.open(file)) {
    HashingStream in(*src);
    if (auto all = read_whole(in)) bytes = std::move(*all);
  }
  return bytes;
}

// The setting as a row: examiners see where tasks were kept, and whether that place was found. Each Roo extension has
// its own setting (roo-cline.customStoragePath, the nightly's roo-code-nightly.customStoragePath, docs/roo-format.md
// §1.1); the rows of one file are numbered among their kind, the release's first. The nightly's row has its surface.
void host_settings_rows(FileSystemView& fs, OpenSource& src, std::deque<TaskIdentity>& identities) {
  const ParseContext& ctx = src.ctx;
  auto bytes = read_whole(*src.stream());
  if (!bytes) return;
  int64_t part = 0;
  for (const RooExtension& ext : roo_extensions()) {
    auto custom = custom_storage_path(*bytes, ext.setting_prefix);
    if (!custom) continue;
    const std::string key = std::string(ext.setting_prefix) + ".customStoragePath";
    TaskIdentity& identity = identities.emplace_back(*ctx.identity);
    if (ext.surface_override) identity.surface = ext.surface_override;
    ParseContext ext_ctx = ctx;
    ext_ctx.identity = &identity;
    Row r = ext_ctx.row("host_setting");
    r.role = "system";
    r.position.part_index = part++;  // whole-document rows are numbered among their kind (docs/row-contract.md)
    if (ctx.native) {
      rapidjson::Document one(rapidjson::kObjectType);
      one.AddMember(rapidjson::Value(key.data(), key.size(), one.GetAllocator()),
                    rapidjson::Value(custom->data(), custom->size(), one.GetAllocator()), one.GetAllocator());
      r.native = to_json_text(one);
    }
    ParseContext::stamp_file_time(r, ctx.source->file.mtime, "file.mtime");
    r.text = "host setting: " + key + "=" + *custom + " (from " + ctx.source->file.path + ", file mtime)";
    r.set("setting_key", key).set("setting_value", *custom);
    if (auto dir = find_directory(fs, *custom))
      r.set("resolved_path", dir->path).set("resolution", std::string("found on this file system"));
    else  // a drive letter may name another volume: the run looks there next (report.json says what it found)
      r.set("resolution", std::string(kNotOnThisFileSystem));
    ctx.sink->emit(std::move(r));
  }
}

// ~/.roo inventories and worktrees: one row per entry, timed by its modification time.
void inventory_row(const StorePattern& pattern, const FileMeta& dir, const ParseContext& ctx) {
  const FileMeta& f = ctx.source->file;
  const bool worktree = pattern.kind == StoreKind::worktree;
  Row r = ctx.row(worktree ? "worktree" : "roo_config_entry");
  r.role = "system";
  ParseContext::stamp_file_time(r, f.mtime, "file.mtime");
  // The area is the folder the entry is in: rules, rules-<mode>, commands, skills (~/.roo or ~/.agents).
  const std::string area = dir.name;
  if (worktree) {
    // docs/row-contract.md "Scratch directories": ~/.roo/worktrees/<project>-<suffix> is Roo's suggested worktree
    // root; a task whose workspace is there ran in a scratch checkout.
    r.text = "worktree: " + f.path + " (scratch directory)";
    r.set("classification", std::string("scratch"));
  } else {
    r.text = "roo config: " + area + "/" + f.name + (f.is_dir ? "/" : "");
    r.set("config_area", area);
  }
  r.set("entry_name", f.name).set("entry_path", f.path).set("is_dir", f.is_dir);
  if (!f.is_dir && f.size) r.set("size_bytes", static_cast<int64_t>(*f.size));
  ctx.sink->emit(std::move(r));
}

// ~/.vscode-mock/.machine-id: 64 hex characters naming this CLI install (docs/roo-format.md §1.3); kept even by
// --ephemeral runs, so it ties ephemeral traces to the home.
void machine_id_row(OpenSource& src) {
  const ParseContext& ctx = src.ctx;
  auto bytes = read_whole(*src.stream());
  if (!bytes) return;
  const std::string id(trim(*bytes));
  Row r = ctx.row("install_identity");
  r.role = "system";
  ParseContext::stamp_file_time(r, ctx.source->file.mtime, "file.mtime");
  const bool hex64 = id.size() == 64 && std::all_of(id.begin(), id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  r.text = "cli machine id: " + (hex64 ? id : std::string("(not 64 hex characters)")) + " (from " + ctx.source->file.path + ")";
  if (hex64) r.set("machine_id", id);
  if (ctx.native) r.native = *bytes;  // the file is the record (an identifier, not a secret)
  ctx.sink->emit(std::move(r));
}

}  // namespace

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

std::string cli_workspace_hash(std::string_view utf8_path) {
  int32_t h = 0;
  auto add = [&](uint32_t unit) { h = static_cast<int32_t>(static_cast<uint32_t>(h) * 31u + unit); };
  for (size_t i = 0; i < utf8_path.size();) {
    // Decode one UTF-8 character (invalid bytes count as U+FFFD, as Node's decoder gives), then feed UTF-16 units.
    const unsigned char c = static_cast<unsigned char>(utf8_path[i]);
    uint32_t cp = 0xFFFD;
    size_t len = 1;
    if (c < 0x80) {
      cp = c;
    } else if ((c >> 5) == 0x6 && i + 1 < utf8_path.size()) {
      cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(utf8_path[i + 1]) & 0x3Fu), len = 2;
    } else if ((c >> 4) == 0xE && i + 2 < utf8_path.size()) {
      cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(utf8_path[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(utf8_path[i + 2]) & 0x3Fu);
      len = 3;
    } else if ((c >> 3) == 0x1E && i + 3 < utf8_path.size()) {
      cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(utf8_path[i + 1]) & 0x3Fu) << 12) |
           ((static_cast<unsigned char>(utf8_path[i + 2]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(utf8_path[i + 3]) & 0x3Fu);
      len = 4;
    }
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      add(0xD800 + (cp >> 10));
      add(0xDC00 + (cp & 0x3FF));
    } else {
      add(cp);
    }
  }
  // Math.abs(-2^31) is 2^31 in JavaScript: the magnitude is taken in 64 bits.
  const int64_t magnitude = h < 0 ? -static_cast<int64_t>(h) : h;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(magnitude));
  return buf;
}

std::optional<std::string> workspace_json_folder(const std::string& workspace_json) {
  rapidjson::Document doc;
  if (!parse_json(workspace_json.data(), workspace_json.size(), doc, nullptr) || !doc.IsObject()) return std::nullopt;
  auto uri = get_string(doc, "folder");
  if (!uri) uri = get_string(doc, "workspace");
  if (!uri || !starts_with(*uri, "file://")) return std::nullopt;
  std::string path;
  const std::string& u = *uri;
  for (size_t i = 7; i < u.size(); ++i) {
    auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    if (u[i] == '%' && i + 2 < u.size() && std::isxdigit(static_cast<unsigned char>(u[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(u[i + 2]))) {
      path += static_cast<char>(hex(u[i + 1]) * 16 + hex(u[i + 2]));
      i += 2;
    } else {
      path += u[i];
    }
  }
  // file:///c:/Users/x is VS Code's Uri for the fsPath c:\Users\x: a lower-case drive letter and backslashes, the
  // form task rows carry as their workspace (history_item.workspace), so the two join.
  if (path.size() >= 3 && path[0] == '/' && path[2] == ':' && std::isalpha(static_cast<unsigned char>(path[1]))) {
    path.erase(0, 1);
    path[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(path[0])));
    std::replace(path.begin(), path.end(), '/', '\\');
  }
  return path;
}

std::optional<std::string> custom_storage_path(const std::string& settings_json, std::string_view setting_prefix) {
  rapidjson::Document doc;
  const std::string json = strip_jsonc(settings_json);
  if (!parse_json(json.data(), json.size(), doc, nullptr) || !doc.IsObject()) return std::nullopt;
  auto path = get_string(doc, (std::string(setting_prefix) + ".customStoragePath").c_str());
  if (!path || trim(*path).empty()) return std::nullopt;
  return std::string(trim(*path));
}

std::optional<FileMeta> find_directory(FileSystemView& fs, std::string_view recorded) {
  std::string_view p = recorded;
  if (p.size() >= 2 && p[1] == ':') p.remove_prefix(2);  // a drive letter: see the header
  std::vector<std::string> segments;
  std::string seg;
  for (char c : p) {
    if (c == '/' || c == '\\') {
      if (!seg.empty() && seg != ".") segments.push_back(std::move(seg));
      seg.clear();
    } else {
      seg += c;
    }
  }
  if (!seg.empty() && seg != ".") segments.push_back(std::move(seg));
  if (segments.empty()) return std::nullopt;
  for (const std::string& s : segments)
    if (s == ".." || s == "*") return std::nullopt;  // not a plain path: never guessed at
  auto found = resolve(fs, fs.root(), segments);
  if (found.empty()) return std::nullopt;
  return found.front();
}

std::string custom_storage_setting_key(std::string_view surface) {
  for (const RooExtension& ext : roo_extensions())
    if (ext.surface_override && surface == ext.surface_override)
      return std::string(ext.setting_prefix) + ".customStoragePath";
  return "roo-cline.customStoragePath";
}

std::vector<RooRoot> custom_storage_roots(FileSystemView& fs, const FileMeta& home, ScanReport& report) {
  std::vector<RooRoot> roots;
  for (const StorePattern& sp : store_patterns()) {
    // The CLI keeps VS Code configuration in its global state under the same dotted key (docs/roo-format.md §1.3).
    if (sp.kind != StoreKind::host_settings && sp.kind != StoreKind::global_state_json) continue;
    std::vector<std::string> dirs(sp.segments.begin(), sp.segments.end() - 1);
    for (const FileMeta& dir : resolve(fs, home, dirs))
      for (const FileMeta& file : children(fs, dir, sp.segments.back(), false)) {
        if (file.is_dir) continue;
        const std::string bytes = read_file_bytes(fs, file);
        for (const RooExtension& ext : roo_extensions()) {
          // The CLI runs the release's bundle (Package.name roo-cline): the nightly's setting is an editor's only.
          if (ext.surface_override && sp.kind != StoreKind::host_settings) continue;
          auto custom = custom_storage_path(bytes, ext.setting_prefix);
          if (!custom) continue;
          const std::string surface = ext.surface_override ? ext.surface_override : sp.surface;
          auto root = find_directory(fs, *custom);
          report.custom_storage_paths.push_back(
              {surface, home.name, file.path, *custom, root.has_value(), root ? root->path : std::string()});
          if (root) roots.push_back({surface, home.name, *root, "customStoragePath in " + file.path});
        }
      }
  }
  return roots;
}

void process_store(FileSystemView& fs, const StorePattern& pattern, const FileMeta& dir, const FileMeta& file,
                   const std::optional<std::string>& user, RowSink& out, ScanReport& report, const ScanOptions& opts,
                   const HomeTasks& home, const std::optional<std::string>& project_path) {
  TaskIdentity identity{pattern.surface, user, {}, {}, {}, project_path};
  if (store_is_directory(pattern.kind) || store_is_any_entry(pattern.kind)) {
    // An entry whose name and times are the fact: its contents are not read (rules and skills are the user's
    // text, a worktree a whole checkout).
    SourceRef entry{&fs.volume(), file};
    ParseContext ctx;
    ctx.identity = &identity;
    ctx.source = &entry;
    ctx.file_name = file.name;
    ctx.sink = &out;
    if (pattern.kind == StoreKind::extension_dir)
      emit_extension_dir_row(ctx);
    else
      inventory_row(pattern, dir, ctx);
    out.end_source("");
    return;
  }
  // Workspace state belongs to a project: VS Code names it in workspace.json beside it, the CLI only by a hash of
  // its path, matched against the workspaces of this home's tasks.
  if (pattern.kind == StoreKind::workspace_state_db) {
    std::vector<FileMeta> scratch;
    for (const FileMeta& f : dir_listing(fs, dir, scratch))
      if (f.name_allocated && !f.is_dir && iequals(f.name, "workspace.json"))
        identity.project_path = workspace_json_folder(read_file_bytes(fs, f));
  } else if (pattern.kind == StoreKind::workspace_state_json) {
    for (const auto& [p, surface] : home.project_paths)
      if (cli_workspace_hash(p) == dir.name) identity.project_path = p;
  }
  std::deque<TaskIdentity> task_identities;  // rows of taskHistory tasks point here until the source ends
  OpenSource src(fs, file, &identity, out, report, opts.native, store_kind_name(pattern.kind));
  HashingStream* in = src.stream();
  if (!in) return;
  const ParseContext& ctx = src.ctx;
  switch (pattern.kind) {
    case StoreKind::global_state_db:
    case StoreKind::workspace_state_db: {
      // A VS Code profile keeps its own global state in User/profiles/<id>/globalStorage (its name is in the
      // default profile's globalStorage/storage.json userDataProfiles): its rows say which profile.
      std::optional<AddFieldsSink> profile;
      if (auto id = profile_of(file.path)) {
        std::vector<std::pair<std::string, FieldValue>> fields{{"profile_id", *id}};
        if (auto name = profile_name(fs, dir, *id)) fields.emplace_back("profile_name", *name);
        src.ctx.sink = &profile.emplace(out, std::move(fields));
      }
      read_state_db_store(fs, pattern, dir, src, opts, home, report, *src.ctx.sink, task_identities);
      break;
    }
    case StoreKind::global_state_json: {
      GlobalStateResult g = parse_global_state_file(*in, ctx);
      src.add_stats(g.stats);
      emit_history_tasks(g.task_history, pattern.surface, home, ctx, task_identities);
      break;
    }
    case StoreKind::workspace_state_json: {
      TaskSessionSink by_task(out, task_identities);
      ParseContext task_ctx = ctx;
      task_ctx.sink = &by_task;
      src.add_stats(parse_workspace_state_file(*in, task_ctx));
      break;
    }
    case StoreKind::cli_secrets: src.add_stats(parse_cli_secrets(*in, ctx)); break;
    case StoreKind::mcp_settings: src.add_stats(parse_mcp_settings(*in, ctx)); break;
    case StoreKind::cli_settings: src.add_stats(parse_cli_settings(*in, ctx)); break;
    case StoreKind::cli_credentials: src.add_stats(parse_cli_credentials(*in, ctx)); break;
    case StoreKind::host_settings: host_settings_rows(fs, src, task_identities); break;
    case StoreKind::extension_manifest: src.add_stats(parse_extensions_manifest(*in, ctx)); break;
    case StoreKind::extension_dir:
    case StoreKind::roo_config_entry:
    case StoreKind::worktree: break;  // entries: handled above
    case StoreKind::cli_machine_id: machine_id_row(src); break;
    case StoreKind::cli_history: {
      // docs/row-contract.md "Past-use rows and secondary sources": a line is kept only when no task of this home
      // has a user row with its text; the others are the same fact as that row (counted as folded).
      CliHistory history = parse_cli_history(*in, ctx);
      for (const CliHistoryEntry& e : history.entries) {
        if (home.user_words.contains(e.text))
          ++history.stats.folded;
        else
          emit_cli_history_row(e, ctx);
      }
      src.add_stats(history.stats);
      break;
    }
  }
}

}  // namespace roo
