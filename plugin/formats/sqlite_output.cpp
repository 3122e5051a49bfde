#include "plugin/formats/sqlite_output.h"

#include <sqlite3.h>

#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "plugin/formats/row_fields.h"

namespace roo {

namespace {

// The provenance fields that describe the file itself; the record's position in it (record_index …) stays in the
// row.
// "pool_volume.uuid" is a field of the source's pool_volume object (an APFS volume's: docs/row-contract.md "APFS
// volumes"): two volumes of one container share its offset and can hold the same path and inode.
const char* const kSourceFileFields[] = {
    "evidence",         "partition_offset", "fs_type",          "pool_volume.uuid", "pool_volume.name",
    "pool_volume.role", "pool_volume.block", "path",            "inode",            "meta_seq",
    "attr",             "name_allocated",   "meta_allocated",   "reallocated",      "recovery",
    "size",             "mtime",            "atime",            "ctime",            "crtime",
    "sha256"};

// A member by its name, or "outer.inner" for a member of an object member (kSourceFileFields' pool_volume.uuid).
const rapidjson::Value* dotted_member(const rapidjson::Value& source, const char* field) {
  const char* dot = std::strchr(field, '.');
  if (!dot) return member(source, field);
  const rapidjson::Value* outer = member(source, std::string_view(field, static_cast<size_t>(dot - field)));
  return outer && outer->IsObject() ? member(*outer, dot + 1) : nullptr;
}

// The row columns beside row_json, in table order; each is the row's top-level field of that name.
const char* const kRowColumns[] = {"row_id",          "kind",         "time_utc",   "time_source",
                                   "surface",         "user",         "session_id", "parent_session_id",
                                   "root_session_id", "project_path", "role"};

// The evidence id rows carry in source.evidence: the image's first segment's file name, or the folder's own name
// (also when given as "." or with a trailing "/"), as the evidence readers name it.
std::string evidence_id(const std::string& kind, const std::string& path) {
  std::string p = path;
  if (kind == "folder") {
    if (char* real = realpath(path.c_str(), nullptr)) {
      p = real;
      std::free(real);
    }
    while (p.size() > 1 && p.back() == '/') p.pop_back();
  }
  return std::filesystem::path(p).filename().string();
}

class SqliteWriter : public CountingWriter {
 public:
  SqliteWriter(const std::filesystem::path& out_file, const FormatContext& ctx) : path_(out_file), ctx_(ctx) {
    std::error_code ec;
    std::filesystem::remove(path_, ec);  // a leftover in the work dir is ours; never append to it
    if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
      fail();
      return;
    }
    // No rollback journal on disk and no fsync per step: the file is in the work dir and is moved into OUTDIR only
    // after COMMIT, so a crash leaves nothing that looks finished. A small page cache keeps memory small; large
    // pages keep most rows (row_json holds whole command outputs) out of overflow chains.
    exec("PRAGMA page_size=16384");
    exec("PRAGMA journal_mode=MEMORY");
    exec("PRAGMA synchronous=OFF");
    exec("PRAGMA cache_size=-16384");
    exec("PRAGMA user_version=" + std::to_string(kSqliteSchemaVersion));
    exec("BEGIN");
    for (const std::string& sql : sqlite_schema_tables()) exec(sql);
    insert_row_ = prepare(
        "INSERT INTO rows (row_number, row_id, kind, time_utc, time_source, surface, user, session_id, "
        "parent_session_id, root_session_id, project_path, role, recovery, source_id, row_json) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    insert_source_ = prepare(
        "INSERT INTO sources (source_id, evidence, partition_offset, fs_type, pool_volume_uuid, pool_volume_name, "
        "pool_volume_role, pool_volume_block, path, inode, meta_seq, attr, name_allocated, meta_allocated, "
        "reallocated, recovery, size, mtime, atime, ctime, crtime, sha256) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  }

  ~SqliteWriter() override {
    sqlite3_finalize(insert_row_);
    sqlite3_finalize(insert_source_);
    if (db_) sqlite3_close(db_);
  }

  void row(const rapidjson::Value& row, std::string_view line) override {
    if (!error_.empty()) return;
    ++row_number_;
    sqlite3_int64 source_id = 0;
    const rapidjson::Value* source = member(row, "source");
    if (source && source->IsObject()) source_id = source_id_of(*source);
    sqlite3_stmt* s = insert_row_;
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, row_number_);
    int i = 2;
    for (const char* column : kRowColumns) bind(s, i++, member(row, column));
    bind(s, i++, source ? member(*source, "recovery") : nullptr);
    if (source_id)
      sqlite3_bind_int64(s, i++, source_id);
    else
      sqlite3_bind_null(s, i++);
    // SQLITE_STATIC: the line and the row's strings outlive the step, and every parameter is bound again before the
    // next one, so SQLite need not copy 270 MB of rows first.
    sqlite3_bind_text64(s, i, line.data(), line.size(), SQLITE_STATIC, SQLITE_UTF8);
    step(s);
    ++written_;
  }

  bool finish(std::string* error) override {
    if (error_.empty()) write_report_tables();
    for (const std::string& sql : sqlite_schema_indexes()) exec(sql);
    for (const std::string& sql : sqlite_schema_views()) exec(sql);
    exec("COMMIT");
    sqlite3_finalize(insert_row_);
    sqlite3_finalize(insert_source_);
    insert_row_ = insert_source_ = nullptr;
    if (db_ && sqlite3_close(db_) != SQLITE_OK && error_.empty()) fail();
    db_ = nullptr;
    if (error_.empty()) return true;
    *error = "cannot write " + path_.string() + ": " + error_;
    return false;
  }

 private:
  void fail() {
    if (error_.empty()) error_ = db_ ? sqlite3_errmsg(db_) : "cannot open the database";
  }
  void exec(const std::string& sql) {
    if (!error_.empty()) return;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail();
  }
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (error_.empty() && sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) fail();
    return s;
  }
  void step(sqlite3_stmt* s) {
    if (sqlite3_step(s) != SQLITE_DONE) fail();
  }

  // A JSON value into a column: text, integer, real, booleans as 0/1; objects and arrays as JSON text.
  static void bind(sqlite3_stmt* s, int i, const rapidjson::Value* v) {
    if (!v || v->IsNull())
      sqlite3_bind_null(s, i);
    else if (v->IsString())  // the row's own text, which outlives the step (see row())
      sqlite3_bind_text64(s, i, v->GetString(), v->GetStringLength(), SQLITE_STATIC, SQLITE_UTF8);
    else if (v->IsBool())
      sqlite3_bind_int(s, i, v->GetBool() ? 1 : 0);
    else if (v->IsInt64())
      sqlite3_bind_int64(s, i, v->GetInt64());
    else if (v->IsNumber())
      sqlite3_bind_double(s, i, v->GetDouble());
    else {
      const std::string text = json_text(*v);
      sqlite3_bind_text64(s, i, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    }
  }
  static void bind_text(sqlite3_stmt* s, int i, const std::string& text) {
    sqlite3_bind_text64(s, i, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  }

  // The id of the row's source file, inserting it the first time it is met: ids follow rows.jsonl order.
  sqlite3_int64 source_id_of(const rapidjson::Value& source) {
    std::string key;
    for (const char* field : kSourceFileFields) {
      const rapidjson::Value* v = dotted_member(source, field);
      key += v ? json_text(*v) : "-";
      key += '\x1f';
    }
    auto [it, inserted] = sources_.emplace(std::move(key), static_cast<sqlite3_int64>(sources_.size()) + 1);
    if (!inserted) return it->second;
    sqlite3_stmt* s = insert_source_;
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, it->second);
    int i = 2;
    for (const char* field : kSourceFileFields) bind(s, i++, dotted_member(source, field));
    step(s);
    return it->second;
  }

  // run, evidence and partitions from report.json's text.
  void write_report_tables() {
    rapidjson::Document report;
    report.Parse(ctx_.report_json.data(), ctx_.report_json.size());
    const bool readable = !report.HasParseError() && report.IsObject();
    auto at = [](const rapidjson::Value* object, const char* key) { return object ? member(*object, key) : nullptr; };
    const rapidjson::Value* root = readable ? &report : nullptr;

    sqlite3_stmt* s = prepare(
        "INSERT INTO run (tool, version, row_schema, command_line, display_time_zone, report_json) "
        "VALUES (?,?,?,?,?,?)");
    if (!s) return;
    bind(s, 1, at(root, "tool"));
    bind_text(s, 2, ctx_.tool_version);
    bind(s, 3, at(root, "row_schema"));
    bind(s, 4, at(root, "command_line"));
    bind_text(s, 5, ctx_.display_tz);
    bind_text(s, 6, ctx_.report_json);
    step(s);
    sqlite3_finalize(s);

    const rapidjson::Value* ev = at(root, "evidence");
    const rapidjson::Value* paths = at(ev, "paths");
    s = prepare(
        "INSERT INTO evidence (evidence_id, kind, paths, image_type, size_bytes, sector_size, segments, "
        "stored_md5, stored_sha1) VALUES (?,?,?,?,?,?,?,?,?)");
    if (!s) return;
    if (ev && paths && paths->IsArray() && !paths->Empty() && (*paths)[0].IsString()) {
      const auto kind = string_member(*ev, "kind");
      bind_text(s, 1, evidence_id(std::string(kind.value_or("")), (*paths)[0].GetString()));
      bind(s, 2, at(ev, "kind"));
      bind(s, 3, paths);
      bind(s, 4, at(ev, "image_type"));
      bind(s, 5, at(ev, "size_bytes"));
      bind(s, 6, at(ev, "sector_size"));
      bind(s, 7, at(ev, "segments"));
      bind(s, 8, at(at(ev, "stored_hashes"), "md5"));
      bind(s, 9, at(at(ev, "stored_hashes"), "sha1"));
      step(s);
    }
    sqlite3_finalize(s);

    s = prepare(
        "INSERT INTO partitions (partition_index, offset_bytes, length_bytes, description, volume_system, kind, "
        "apfs_container_uuid, apfs_volume_uuid, apfs_volume_name, apfs_volume_role, apfs_volume_block, status, "
        "reason, fs_type) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s) return;
    const rapidjson::Value* parts = at(root, "partitions");
    if (parts && parts->IsArray())
      for (const rapidjson::Value& p : parts->GetArray()) {
        sqlite3_reset(s);
        int i = 1;
        for (const char* key : {"index", "offset_bytes", "length_bytes", "description", "volume_system", "kind",
                                "apfs_container.uuid", "apfs_volume.uuid", "apfs_volume.name", "apfs_volume.role",
                                "apfs_volume.block", "status", "reason", "fs_type"})
          bind(s, i++, dotted_member(p, key));
        step(s);
      }
    sqlite3_finalize(s);
  }

  std::filesystem::path path_;
  const FormatContext& ctx_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_row_ = nullptr;
  sqlite3_stmt* insert_source_ = nullptr;
  sqlite3_int64 row_number_ = 0;
  std::unordered_map<std::string, sqlite3_int64> sources_;  // identity of a source file → source_id
  std::string error_;                             // the first failure, as SQLite words it
};

}  // namespace

const std::vector<std::string>& sqlite_schema_tables() {
  static const std::vector<std::string> tables = {
      "CREATE TABLE run (\n"
      "  tool TEXT,\n"
      "  version TEXT,\n"
      "  row_schema TEXT,\n"
      "  command_line TEXT,       -- JSON array\n"
      "  display_time_zone TEXT,  -- --tz (this database's times are UTC all the same)\n"
      "  report_json TEXT         -- report.json, without its \"outputs\" section (written after this file)\n"
      ")",
      "CREATE TABLE evidence (\n"
      "  evidence_id TEXT PRIMARY KEY,  -- = sources.evidence\n"
      "  kind TEXT,                     -- image, folder\n"
      "  paths TEXT,                    -- JSON array, as given\n"
      "  image_type TEXT,\n"
      "  size_bytes INTEGER,\n"
      "  sector_size INTEGER,\n"
      "  segments TEXT,                 -- JSON array\n"
      "  stored_md5 TEXT,\n"
      "  stored_sha1 TEXT\n"
      ")",
      "CREATE TABLE partitions (\n"
      "  partition_index INTEGER,\n"
      "  offset_bytes INTEGER,  -- = sources.partition_offset\n"
      "  length_bytes INTEGER,\n"
      "  description TEXT,\n"
      "  volume_system TEXT,\n"
      "  kind TEXT,\n"
      "  apfs_container_uuid TEXT,  -- a volume of an APFS container: one row per volume (report.json apfs_volume)\n"
      "  apfs_volume_uuid TEXT,  -- = sources.pool_volume_uuid\n"
      "  apfs_volume_name TEXT,\n"
      "  apfs_volume_role TEXT,\n"
      "  apfs_volume_block INTEGER,\n"
      "  status TEXT,\n"
      "  reason TEXT,\n"
      "  fs_type TEXT\n"
      ")",
      "CREATE TABLE sources (\n"
      "  source_id INTEGER PRIMARY KEY,  -- in order of first use in rows.jsonl\n"
      "  evidence TEXT,\n"
      "  partition_offset INTEGER,\n"
      "  fs_type TEXT,\n"
      "  pool_volume_uuid TEXT,  -- an APFS volume's (source.pool_volume); NULL elsewhere\n"
      "  pool_volume_name TEXT,\n"
      "  pool_volume_role TEXT,\n"
      "  pool_volume_block INTEGER,\n"
      "  path TEXT,\n"
      "  inode INTEGER,\n"
      "  meta_seq INTEGER,\n"
      "  attr TEXT,\n"
      "  name_allocated INTEGER,  -- 0/1\n"
      "  meta_allocated INTEGER,\n"
      "  reallocated INTEGER,\n"
      "  recovery TEXT,\n"
      "  size INTEGER,\n"
      "  mtime TEXT,\n"
      "  atime TEXT,\n"
      "  ctime TEXT,\n"
      "  crtime TEXT,\n"
      "  sha256 TEXT\n"
      ")",
      "CREATE TABLE rows (\n"
      "  row_number INTEGER PRIMARY KEY,  -- line number in rows.jsonl, from 1\n"
      "  row_id TEXT,\n"
      "  kind TEXT,\n"
      "  time_utc TEXT,                   -- ISO 8601 UTC; NULL when the row has no time\n"
      "  time_source TEXT,\n"
      "  surface TEXT,\n"
      "  user TEXT,\n"
      "  session_id TEXT,\n"
      "  parent_session_id TEXT,\n"
      "  root_session_id TEXT,\n"
      "  project_path TEXT,\n"
      "  role TEXT,\n"
      "  recovery TEXT,                   -- source.recovery\n"
      "  source_id INTEGER REFERENCES sources(source_id),\n"
      "  row_json TEXT NOT NULL           -- the rows.jsonl line: json_extract(row_json, '$.text')\n"
      ")"};
  return tables;
}

const std::vector<std::string>& sqlite_schema_indexes() {
  static const std::vector<std::string> indexes = {"CREATE INDEX rows_kind ON rows(kind)",
                                                   "CREATE INDEX rows_time_utc ON rows(time_utc)",
                                                   "CREATE INDEX rows_session_id ON rows(session_id)",
                                                   "CREATE INDEX rows_project_path ON rows(project_path)",
                                                   "CREATE INDEX rows_recovery ON rows(recovery)",
                                                   "CREATE INDEX rows_user ON rows(user)",
                                                   "CREATE INDEX rows_surface ON rows(surface)",
                                                   "CREATE INDEX rows_row_id ON rows(row_id)",
                                                   "CREATE INDEX rows_source_id ON rows(source_id)",
                                                   "CREATE INDEX sources_path ON sources(path)",
                                                   "CREATE INDEX sources_sha256 ON sources(sha256)",
                                                   // Two of the views' usual filters (a decision, a file).
                                                   // Partial: each parses only its kind's rows, and an equality
                                                   // through the view uses it. More of them cost the writer more
                                                   // than they save (docs/output-formats.md "roo.sqlite").
                                                   "CREATE INDEX decisions_decision ON rows(json_extract(row_json, "
                                                   "'$.decision')) WHERE kind = 'permission_decision'",
                                                   "CREATE INDEX edits_resolved_path ON rows(json_extract(row_json, "
                                                   "'$.file_path_resolved')) WHERE kind = 'file_edit'"};
  return indexes;
}

// The views are what an examiner would otherwise write with json_extract every time (docs/output-formats.md
// "roo.sqlite"): one kind (or a few that say the same kind of thing), the rows table's own columns first, then the
// kind's fields from docs/row-contract.md under short names. A view costs nothing to write; each expression is
// spelt exactly as in the partial index on it, which is what lets SQLite use that index through the view.
const std::vector<std::string>& sqlite_schema_views() {
  static const std::vector<std::string> views = {
      "CREATE VIEW tasks AS SELECT\n"
      "  row_number, time_utc, session_id, parent_session_id, root_session_id, project_path, user, surface,\n"
      "  json_extract(row_json, '$.task_number') AS task_number,\n"
      "  json_extract(row_json, '$.text') AS task,                -- the task's first prompt (HistoryItem.task)\n"
      "  json_extract(row_json, '$.mode') AS mode,\n"
      "  json_extract(row_json, '$.status') AS status,\n"
      "  json_extract(row_json, '$.workspace_class') AS workspace_class,\n"
      "  json_extract(row_json, '$.tokens_in') AS tokens_in,\n"
      "  json_extract(row_json, '$.tokens_out') AS tokens_out,\n"
      "  json_extract(row_json, '$.cache_writes') AS cache_writes,\n"
      "  json_extract(row_json, '$.cache_reads') AS cache_reads,\n"
      "  json_extract(row_json, '$.cost_usd') AS cost_usd,\n"
      "  json_extract(row_json, '$.api_config_name') AS api_config_name,\n"
      "  json_extract(row_json, '$.size_bytes') AS size_bytes,\n"
      "  json_extract(row_json, '$.known_from') AS known_from,\n"
      "  json_extract(row_json, '$.task_dir_present') AS task_dir_present,  -- 0/1\n"
      "  json_extract(row_json, '$.task_dir_deleted') AS task_dir_deleted,  -- 0/1, NULL when not said\n"
      "  recovery, source_id\n"
      "FROM rows WHERE kind = 'task'",
      "CREATE VIEW commands AS SELECT\n"
      "  row_number, time_utc, session_id, project_path, user, surface,\n"
      "  json_extract(row_json, '$.tool_name') AS tool_name,\n"
      "  json_extract(row_json, '$.tool_use_id') AS tool_use_id,\n"
      "  json_extract(row_json, '$.command') AS command,\n"
      "  json_extract(row_json, '$.cwd') AS cwd,\n"
      "  json_extract(row_json, '$.exit_code') AS exit_code,\n"
      "  json_extract(row_json, '$.command_status') AS status,\n"
      "  json_extract(row_json, '$.signal') AS signal,\n"
      "  json_extract(row_json, '$.outcome') AS outcome,\n"
      "  json_extract(row_json, '$.result_time_utc') AS result_time_utc,\n"
      "  json_extract(row_json, '$.model') AS model,\n"
      "  recovery, source_id\n"
      "FROM rows WHERE kind = 'command'",
      "CREATE VIEW decisions AS SELECT\n"
      "  row_number, time_utc, session_id, project_path, user, surface,\n"
      "  json_extract(row_json, '$.decision') AS decision,\n"
      "  json_extract(row_json, '$.decided_by') AS decided_by,\n"
      "  json_extract(row_json, '$.feedback') AS feedback,\n"
      "  json_extract(row_json, '$.tool_name') AS tool_name,\n"
      "  json_extract(row_json, '$.tool_use_id') AS tool_use_id,  -- = commands.tool_use_id, edits.tool_use_id …\n"
      "  json_extract(row_json, '$.evidence') AS evidence,\n"
      "  recovery, source_id\n"
      "FROM rows WHERE kind = 'permission_decision'",
      "CREATE VIEW edits AS SELECT\n"
      "  row_number, time_utc, session_id, project_path, user, surface,\n"
      "  json_extract(row_json, '$.tool_name') AS tool_name,\n"
      "  json_extract(row_json, '$.tool_use_id') AS tool_use_id,\n"
      "  json_extract(row_json, '$.file_path') AS path,                    -- as the call wrote it\n"
      "  json_extract(row_json, '$.file_path_resolved') AS resolved_path,  -- against the task's workspace\n"
      "  json_extract(row_json, '$.edit_form') AS edit_form,\n"
      "  json_extract(row_json, '$.edit_operation') AS edit_operation,\n"
      "  json_extract(row_json, '$.hunk_count') AS hunk_count,\n"
      "  json_extract(row_json, '$.hunks') AS hunks,  -- JSON array\n"
      "  json_extract(row_json, '$.outcome') AS outcome,\n"
      "  recovery, source_id\n"
      "FROM rows WHERE kind = 'file_edit'",
      "CREATE VIEW user_words AS SELECT\n"
      "  row_number, kind,  -- user_message, or cli_history (a CLI prompt no task holds)\n"
      "  time_utc, session_id, project_path, user, surface,\n"
      "  json_extract(row_json, '$.text') AS text,\n"
      "  recovery, source_id\n"
      "FROM rows WHERE kind IN ('user_message', 'cli_history')",
      "CREATE VIEW settings AS SELECT\n"
      "  row_number, kind,  -- permission_setting, mcp_always_allow, sync_setting, cli_setting, host_setting\n"
      "  time_utc, session_id, project_path, user, surface,\n"
      "  json_extract(row_json, '$.setting_key') AS setting_key,\n"
      "  json_extract(row_json, '$.setting_value') AS setting_value,\n"
      "  json_extract(row_json, '$.setting_unset') AS setting_unset,      -- sync_setting: 1 when not set\n"
      "  json_extract(row_json, '$.setting_source') AS setting_source,\n"
      "  json_extract(row_json, '$.mcp_server') AS mcp_server,\n"
      "  json_extract(row_json, '$.mcp_tool') AS mcp_tool,\n"
      "  json_extract(row_json, '$.extension_id') AS extension_id,\n"
      "  json_extract(row_json, '$.profile_name') AS profile_name,\n"
      "  json_extract(row_json, '$.resolution') AS resolution,            -- host_setting\n"
      "  json_extract(row_json, '$.resolved_path') AS resolved_path,      -- host_setting\n"
      "  recovery, source_id\n"
      "FROM rows WHERE kind IN ('permission_setting', 'mcp_always_allow', 'sync_setting', 'cli_setting', "
      "'host_setting')"};
  return views;
}

std::unique_ptr<CountingWriter> make_sqlite_writer(const std::filesystem::path& out_file, const FormatContext& ctx) {
  return std::make_unique<SqliteWriter>(out_file, ctx);
}

}  // namespace roo
