// The merge: one case from the items with a valid marker (README.md "Many drives": its tables and files).
//
// Each item is merged once into a part of its own, .merge/<id>-<marker sha256 prefix>.sqlite: its rows, each with
// the evidence id put first ({"evidence_id":"…", then the row's own fields), written by the same SQLite writer as
// roo.sqlite (plugin/formats/sqlite_output.h), with its report.json. A part is rebuilt only when the item's marker
// changes, so adding a drive parses only that drive's rows; the case files are then assembled from the parts by
// SQLite's own copying, in manifest order. Nothing of the merge's own time or place goes into them: the same
// markers give the same bytes.
#include <fcntl.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/exit_codes.h"
#include "core/sha256.h"
#include "plugin/batch/batch.h"
#include "plugin/batch/batch_internal.h"
#include "plugin/formats/row_fields.h"
#include "plugin/formats/sqlite_output.h"

namespace roo::batch {

namespace fs = std::filesystem;
using namespace detail;

namespace {

constexpr int kCaseSchemaVersion = 1;

fs::path merge_dir(const BatchOptions& o) { return fs::path(o.batch_dir) / ".merge"; }

// A rows.jsonl line with the evidence id as its first field. Ids are letters, digits, '.', '_' and '-' (manifest.cpp),
// so they need no escaping.
std::string with_evidence_id(std::string_view line, const std::string& id) {
  std::string out = "{\"evidence_id\":\"" + id + "\"";
  if (line.size() > 2) out += ',';
  out.append(line.substr(1));
  return out;
}

// Builds an item's part into `part`: false with *error set when its rows.jsonl no longer matches the sha256 its
// marker recorded (the item is then left out of the case and said so).
bool build_part(const ManifestItem& item, const BatchOptions& o, const std::string& rows_sha256, const fs::path& part,
                std::string* error) {
  const fs::path out = item_out(o, item);
  FormatContext ctx;
  ctx.display_tz = o.tz;
  ctx.report_json = read_file(out / "report.json").value_or("");
  ctx.tool_version = ROO_INGEST_VERSION;
  const fs::path tmp = part.string() + ".tmp";
  auto writer = make_sqlite_writer(tmp, ctx);
  std::ifstream in(out / "rows.jsonl", std::ios::binary);
  if (!in) {
    *error = "cannot read " + (out / "rows.jsonl").string();
    return false;
  }
  Sha256 hash;
  std::string line;
  while (std::getline(in, line)) {
    hash.update(line.data(), line.size());
    hash.update("\n", 1);
    const std::string merged = with_evidence_id(line, item.id);
    rapidjson::Document row;
    row.Parse(merged.data(), merged.size());
    if (row.HasParseError()) {
      *error = (out / "rows.jsonl").string() + " holds a line that is not JSON";
      return false;
    }
    writer->row(row, merged);
  }
  if (hash.hex() != rows_sha256) {
    *error = (out / "rows.jsonl").string() + " no longer has the sha256 its marker recorded";
    return false;
  }
  if (!writer->finish(error)) return false;
  std::error_code ec;
  fs::rename(tmp, part, ec);
  if (ec) *error = "cannot write " + part.string() + ": " + ec.message();
  return !ec;
}

class CaseDb {
 public:
  explicit CaseDb(const fs::path& path) {
    std::error_code ec;
    fs::remove(path, ec);
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
      fail();
  }
  ~CaseDb() {
    if (db_) sqlite3_close(db_);
  }
  void exec(const std::string& sql) {
    if (!error_.empty()) return;
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      error_ = std::string(msg ? msg : "?") + " in: " + sql.substr(0, 200);
      sqlite3_free(msg);
    }
  }
  // One statement with text parameters (?1, ?2 …); NULL for an absent one.
  void exec(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
    if (!error_.empty()) return;
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) return fail(sql);
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i])
        sqlite3_bind_text64(s, static_cast<int>(i) + 1, params[i]->data(), params[i]->size(), SQLITE_TRANSIENT,
                            SQLITE_UTF8);
      else
        sqlite3_bind_null(s, static_cast<int>(i) + 1);
    if (sqlite3_step(s) != SQLITE_DONE) fail(sql);
    sqlite3_finalize(s);
  }
  // Each row of a query, its columns as text (none for NULL).
  std::vector<std::vector<std::optional<std::string>>> query(const std::string& sql) {
    std::vector<std::vector<std::optional<std::string>>> rows;
    if (!error_.empty()) return rows;
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
      fail(sql);
      return rows;
    }
    for (int rc; (rc = sqlite3_step(s)) == SQLITE_ROW;) {
      auto& r = rows.emplace_back();
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        const unsigned char* t = sqlite3_column_text(s, c);
        if (t)
          r.emplace_back(std::string(reinterpret_cast<const char*>(t), sqlite3_column_bytes(s, c)));
        else
          r.emplace_back(std::nullopt);
      }
    }
    sqlite3_finalize(s);
    return rows;
  }
  // Streams a one-column query's values, each followed by a newline, into `out`.
  bool lines_to(const std::string& sql, const fs::path& out) {
    std::FILE* f = std::fopen(out.c_str(), "wb");
    if (!f) return false;
    sqlite3_stmt* s = nullptr;
    bool ok = sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) == SQLITE_OK;
    while (ok && sqlite3_step(s) == SQLITE_ROW) {
      const void* t = sqlite3_column_blob(s, 0);
      const size_t n = static_cast<size_t>(sqlite3_column_bytes(s, 0));
      ok = (n == 0 || std::fwrite(t, 1, n, f) == n) && std::fputc('\n', f) != EOF;
    }
    sqlite3_finalize(s);
    return std::fclose(f) == 0 && ok;
  }
  bool close(std::string* error) {
    if (db_ && sqlite3_close(db_) != SQLITE_OK && error_.empty()) fail();
    db_ = nullptr;
    if (error_.empty()) return true;
    *error = error_;
    return false;
  }
  const std::string& error() const { return error_; }

 private:
  void fail(const std::string& sql = "") {
    if (error_.empty()) error_ = std::string(db_ ? sqlite3_errmsg(db_) : "cannot open") + (sql.empty() ? "" : " in: " + sql.substr(0, 200));
  }
  sqlite3* db_ = nullptr;
  std::string error_;
};

// roo.sqlite's table, as a case table: the evidence id first, and no key of its own (row_number and source_id are
// unique per evidence only).
std::string case_table(const std::string& create) {
  std::string sql = create;
  const size_t open = sql.find("(\n");
  sql.insert(open + 2, "  evidence_id TEXT NOT NULL,  -- the manifest's evidence id (evidence.evidence_id)\n");
  for (const std::string cut : {" PRIMARY KEY", " REFERENCES sources(source_id)"})
    for (size_t at; (at = sql.find(cut)) != std::string::npos;) sql.erase(at, cut.size());
  return sql;
}

const char* const kCaseTables[] = {
    "CREATE TABLE evidence (\n"
    "  evidence_id TEXT PRIMARY KEY,  -- the manifest's evidence id; every other table's evidence_id\n"
    "  manifest_index INTEGER,        -- its data line in the manifest, from 1\n"
    "  kind TEXT,                     -- image, folder\n"
    "  paths TEXT,                    -- JSON array: the manifest's paths, resolved\n"
    "  evidence_files TEXT,           -- JSON array of {path, size_bytes, mtime_ns}: the files the marker stamps\n"
    "  size_bytes INTEGER,            -- of those files together\n"
    "  image_name TEXT,               -- = sources.evidence (the image's or folder's own name)\n"
    "  image_type TEXT,\n"
    "  media_size_bytes INTEGER,\n"
    "  segments TEXT,                 -- JSON array\n"
    "  stored_md5 TEXT,               -- the hashes the container stores (E01)\n"
    "  stored_sha1 TEXT,\n"
    "  verification_result TEXT,      -- report.json evidence.verification.result (--verify)\n"
    "  verified_md5 TEXT,\n"
    "  verified_sha1 TEXT,\n"
    "  tool_version TEXT,\n"
    "  exit_code INTEGER,             -- 0, or 5, 6, 7 (README.md \"Exit codes\")\n"
    "  rows INTEGER,\n"
    "  report_html TEXT,              -- the item's report.html, relative to the batch folder\n"
    "  marker_sha256 TEXT,\n"
    "  marker TEXT                    -- the done marker, as written\n"
    ")",
    "CREATE TABLE items (\n"
    "  manifest_index INTEGER PRIMARY KEY,\n"
    "  evidence_id TEXT,\n"
    "  paths TEXT,     -- JSON array\n"
    "  status TEXT,    -- done, partial (marked 5, 6, 7: in the case), failed, running, missing (not in the case)\n"
    "  exit_code INTEGER,\n"
    "  why TEXT,\n"
    "  merged INTEGER  -- 1 when its rows are in this case\n"
    ")",
    "CREATE TABLE completeness (\n"
    "  evidence_id TEXT NOT NULL,\n"
    "  partition_index INTEGER,\n"
    "  offset_bytes INTEGER,\n"
    "  status TEXT,\n"
    "  statement TEXT  -- JSON: report.json partitions[].completeness\n"
    ")",
};

// The cross-drive tables: one row per key and evidence, only for keys seen on two or more evidence ids. `key` is an
// SQL expression over rows; `extra` more columns (names and expressions).
struct Correlation {
  const char* table;
  const char* what;  // comment
  const char* match;
  const char* key;
  const char* where;
};

const Correlation kCorrelations[] = {
    {"same_task", "a Roo task seen on several drives", "task_id", "session_id",
     "kind = 'task' AND session_id IS NOT NULL"},
    {"same_task", nullptr, "first_prompt_and_time",
     "json_extract(row_json, '$.text') || ' @ ' || time_utc",
     "kind = 'task' AND json_extract(row_json, '$.text') IS NOT NULL AND time_utc IS NOT NULL"},
    {"same_workspace", "a workspace (project_path) with rows on several drives", "project_path", "project_path",
     "project_path IS NOT NULL"},
    // A task's api_config_name and the CLI's provider_profile rows name the same thing (docs/row-contract.md); the
    // profile_name of other kinds is a VS Code profile's, not an API profile's.
    {"same_api_profile", "an API configuration profile named on several drives", "profile",
     "CASE kind WHEN 'task' THEN json_extract(row_json, '$.api_config_name') "
     "ELSE json_extract(row_json, '$.profile_name') END",
     "kind IN ('task', 'provider_profile') AND CASE kind WHEN 'task' THEN json_extract(row_json, "
     "'$.api_config_name') ELSE json_extract(row_json, '$.profile_name') END IS NOT NULL"},
    {"same_command", "a command run on several drives", "command", "json_extract(row_json, '$.command')",
     "kind = 'command' AND json_extract(row_json, '$.command') IS NOT NULL"},
};

void write_correlations(CaseDb& db) {
  std::set<std::string> made;
  for (const Correlation& c : kCorrelations) {
    const std::string t = c.table;
    if (made.insert(t).second)
      db.exec("CREATE TABLE " + t + " (  -- " + c.what +
              "\n"
              "  match TEXT,            -- what is the same: " +
              (t == "same_task" ? "task_id (the task's UUID), or first_prompt_and_time" : c.match) +
              "\n"
              "  key TEXT,              -- the value that is the same\n"
              "  evidence_count INTEGER,  -- on how many evidence ids\n"
              "  evidence_id TEXT,\n"
              "  rows INTEGER,          -- its rows on this evidence\n"
              "  first_time_utc TEXT,\n"
              "  last_time_utc TEXT,\n"
              "  first_row_number INTEGER,  -- rows.row_number of its first row on this evidence\n"
              "  session_ids TEXT       -- JSON array of the tasks' ids on this evidence\n"
              ")");
    const std::string keyed = "SELECT " + std::string(c.key) + " AS key, * FROM rows WHERE " + c.where;
    // first_prompt_and_time lists only tasks not already matched by one id (a task copied under a new id).
    const std::string having = std::string(c.match) == "first_prompt_and_time"
                                   ? "COUNT(DISTINCT evidence_id) > 1 AND COUNT(DISTINCT session_id) > 1"
                                   : "COUNT(DISTINCT evidence_id) > 1";
    db.exec("INSERT INTO " + t +
            " SELECT '" + c.match + "', k.key, m.n, k.evidence_id, COUNT(*), MIN(k.time_utc), MAX(k.time_utc), "
            "MIN(k.row_number), json_group_array(DISTINCT k.session_id) FILTER (WHERE k.session_id IS NOT NULL) "
            "FROM (" + keyed + ") k JOIN (SELECT key, COUNT(DISTINCT evidence_id) AS n FROM (" + keyed +
            ") GROUP BY key HAVING " + having + ") m ON m.key = k.key "
            "JOIN evidence e ON e.evidence_id = k.evidence_id "
            "GROUP BY k.key, k.evidence_id ORDER BY k.key, MIN(e.manifest_index)");
  }
}

std::string html_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// case.html: the items and their status, with a link to each item's report.html, and the cross-drive tables.
std::string case_html(CaseDb& db) {
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<title>roo-ingest case</title>\n<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:"
      "collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}"
      "th{background:#eee}.failed,.missing{color:#a00}.partial{color:#a60}</style></head><body>\n"
      "<h1>Case: every drive of the batch</h1>\n<h2>Evidence</h2>\n<table><tr><th>#</th><th>evidence id</th>"
      "<th>status</th><th>exit code</th><th>rows</th><th>paths</th><th>why</th><th>report</th></tr>\n";
  for (auto& r : db.query("SELECT i.manifest_index, i.evidence_id, i.status, i.exit_code, e.rows, i.paths, i.why, "
                          "e.report_html FROM items i LEFT JOIN evidence e USING (evidence_id) "
                          "ORDER BY i.manifest_index")) {
    auto cell = [&](size_t i) { return html_escaped(r[i].value_or("")); };
    h += "<tr class=\"" + cell(2) + "\"><td>" + cell(0) + "</td><td>" + cell(1) + "</td><td>" + cell(2) +
         "</td><td>" + cell(3) + "</td><td>" + cell(4) + "</td><td>" + cell(5) + "</td><td>" + cell(6) + "</td><td>" +
         (r[7] ? "<a href=\"" + cell(7) + "\">report.html</a>" : "") + "</td></tr>\n";
  }
  h += "</table>\n<h2>Across drives</h2>\n";
  const std::pair<const char*, const char*> sections[] = {
      {"same_task", "The same Roo task on several drives"},
      {"same_workspace", "The same workspace on several drives"},
      {"same_api_profile", "The same API profile on several drives"},
      {"same_command", "The same command on several drives"}};
  for (const auto& [table, title] : sections) {
    h += "<h3>" + std::string(title) + "</h3>\n";
    auto rows = db.query(std::string("SELECT match, key, evidence_count, group_concat(evidence_id || ' (' || rows || "
                                     "' rows, ' || COALESCE(first_time_utc, 'no time') || ')', '; ') FROM ") +
                         table + " GROUP BY match, key ORDER BY match, key");
    if (rows.empty()) {
      h += "<p>None.</p>\n";
      continue;
    }
    h += "<table><tr><th>match</th><th>key</th><th>drives</th><th>seen on</th></tr>\n";
    for (auto& r : rows)
      h += "<tr><td>" + html_escaped(r[0].value_or("")) + "</td><td>" + html_escaped(r[1].value_or("")) +
           "</td><td>" + html_escaped(r[2].value_or("")) + "</td><td>" + html_escaped(r[3].value_or("")) +
           "</td></tr>\n";
    h += "</table>\n";
  }
  h += "<p>Every row of every drive: case.sqlite (table rows, with evidence_id) and case.rows.jsonl.</p>\n"
       "</body></html>\n";
  return h;
}

std::optional<std::string> text_at(const rapidjson::Value* v, const char* key) {
  if (!v || !v->IsObject()) return std::nullopt;
  const rapidjson::Value* m = member(*v, key);
  if (!m || m->IsNull()) return std::nullopt;
  return m->IsString() ? std::string(m->GetString(), m->GetStringLength()) : json_text(*m);
}

}  // namespace

int merge(const Manifest& m, const BatchOptions& o) {
  std::error_code ec;
  fs::create_directories(merge_dir(o), ec);
  // One merge at a time (a Slurm merge job and a local --merge): the second waits for the first.
  const int lock_fd = ::open((merge_dir(o) / ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (lock_fd < 0 || flock(lock_fd, LOCK_EX) != 0) {
    std::fprintf(stderr, "roo-ingest: error: cannot lock %s\n", merge_dir(o).c_str());
    if (lock_fd >= 0) close(lock_fd);
    return kExitInternal;
  }
  struct Merged {
    const ManifestItem* item;
    ItemStatus status;
    std::string marker, marker_sha256;
    fs::path part;
  };
  std::vector<Merged> merged;
  std::vector<ItemStatus> statuses;
  std::set<std::string> keep;
  int rebuilt = 0;
  for (const ManifestItem& item : m.items) {
    ItemStatus s = item_status(item, o);
    if (s.status == "done" || s.status == "partial") {
      const std::string marker = read_file(marker_path(o, item)).value_or("");
      const std::string sha = sha256_hex(marker);
      const fs::path part = merge_dir(o) / (item.id + "-" + sha.substr(0, 16) + ".sqlite");
      std::string error;
      auto marker_doc = read_json(marker_path(o, item));
      const rapidjson::Value* outputs = marker_doc ? member(*marker_doc, "outputs") : nullptr;
      const auto rows_sha = text_at(outputs ? member(*outputs, "rows.jsonl") : nullptr, "sha256");
      bool ready = fs::exists(part, ec);
      if (!ready) {
        ready = build_part(item, o, rows_sha.value_or(""), part, &error);
        if (ready) {
          ++rebuilt;
        } else {
          fs::remove(part.string() + ".tmp", ec);
          s.status = "failed";
          s.why = "not merged: " + error;
        }
      }
      if (ready) {
        keep.insert(part.filename().string());
        merged.push_back({&item, s, marker, sha, part});
      }
    }
    statuses.push_back(s);
  }
  // Parts of markers that are gone or replaced.
  for (const fs::directory_entry& e : fs::directory_iterator(merge_dir(o), ec)) {
    const std::string name = e.path().filename().string();
    if (name != ".lock" && !keep.count(name)) fs::remove(e.path(), ec);
  }

  const fs::path tmp_db = fs::path(o.batch_dir) / ".case.sqlite.tmp";
  CaseDb db(tmp_db);
  db.exec("PRAGMA page_size=16384");
  db.exec("PRAGMA journal_mode=OFF");
  db.exec("PRAGMA synchronous=OFF");
  // The cross-drive tables and the indexes scan the rows table several times: read through a map and a 64 MiB page
  // cache rather than a pread per page (37,000 of them, most of a merge's time, on one bench image's rows).
  db.exec("PRAGMA cache_size=-65536");
  db.exec("PRAGMA mmap_size=1073741824");
  db.exec("PRAGMA user_version=" + std::to_string(kCaseSchemaVersion));
  for (const char* sql : kCaseTables) db.exec(sql);
  for (const std::string& sql : sqlite_schema_tables())
    for (const char* name : {"run", "partitions", "sources", "rows"})
      if (sql.rfind("CREATE TABLE " + std::string(name) + " (", 0) == 0) db.exec(case_table(sql));

  for (const Merged& x : merged) {
    const ManifestItem& item = *x.item;
    db.exec("ATTACH DATABASE ?1 AS part", {x.part.string()});
    db.exec("BEGIN");
    for (const auto& [table, order] : {std::pair<const char*, const char*>{"run", "rowid"},
                                       {"partitions", "rowid"},
                                       {"sources", "source_id"},
                                       {"rows", "row_number"}})
      db.exec(std::string("INSERT INTO main.") + table + " SELECT ?1, * FROM part." + table + " ORDER BY " + order,
              {item.id});
    auto marker = read_json(marker_path(o, item));
    auto report = read_json(item_out(o, item) / "report.json");
    const rapidjson::Value* ev = report ? member(*report, "evidence") : nullptr;
    const rapidjson::Value* verification = ev ? member(*ev, "verification") : nullptr;
    const rapidjson::Value* files = marker ? member(*marker, "evidence_files") : nullptr;
    int64_t size = 0;
    if (files && files->IsArray())
      for (const rapidjson::Value& f : files->GetArray()) size += std::max<int64_t>(0, int_member(f, "size_bytes", 0));
    const bool has_html = fs::exists(item_out(o, item) / "report.html", ec);
    db.exec(
        "INSERT INTO evidence SELECT ?1, ?2, ?3, ?4, ?5, ?6, (SELECT evidence_id FROM part.evidence), "
        "(SELECT image_type FROM part.evidence), (SELECT size_bytes FROM part.evidence), "
        "(SELECT segments FROM part.evidence), (SELECT stored_md5 FROM part.evidence), "
        "(SELECT stored_sha1 FROM part.evidence), ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15",
        {item.id, std::to_string(item.index), item.folder ? "folder" : "image",
         marker ? text_at(marker.operator->(), "paths") : std::nullopt,
         files ? std::optional<std::string>(json_text(*files)) : std::nullopt, std::to_string(size),
         text_at(verification, "result"), text_at(verification, "md5"), text_at(verification, "sha1"),
         marker ? text_at(marker.operator->(), "tool_version") : std::nullopt, std::to_string(x.status.exit_code),
         std::to_string(x.status.rows),
         has_html ? std::optional<std::string>("items/" + item.id + "/report.html") : std::nullopt, x.marker_sha256,
         x.marker});
    const rapidjson::Value* parts = report ? member(*report, "partitions") : nullptr;
    if (parts && parts->IsArray())
      for (const rapidjson::Value& p : parts->GetArray())
        db.exec("INSERT INTO completeness VALUES (?1, ?2, ?3, ?4, ?5)",
                {item.id, text_at(&p, "index"), text_at(&p, "offset_bytes"), text_at(&p, "status"),
                 text_at(&p, "completeness")});
    db.exec("COMMIT");
    db.exec("DETACH DATABASE part");
  }
  db.exec("BEGIN");
  for (const ItemStatus& s : statuses) {
    std::string paths = "[";
    for (const std::string& p : s.item->paths) {
      rapidjson::StringBuffer buf;
      rapidjson::Writer<rapidjson::StringBuffer> w(buf);
      w.String(p.c_str());
      paths += (paths.size() > 1 ? "," : "") + std::string(buf.GetString(), buf.GetSize());
    }
    paths += "]";
    const bool in_case = s.status == "done" || s.status == "partial";
    db.exec("INSERT INTO items VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            {std::to_string(s.item->index), s.item->id, paths, s.status,
             s.exit_code >= 0 ? std::optional<std::string>(std::to_string(s.exit_code)) : std::nullopt,
             s.why.empty() ? std::nullopt : std::optional<std::string>(s.why), in_case ? "1" : "0"});
  }
  db.exec("CREATE INDEX rows_evidence ON rows(evidence_id, row_number)");
  for (const std::string& sql : sqlite_schema_indexes()) db.exec(sql);
  write_correlations(db);
  for (std::string sql : sqlite_schema_views()) {
    const size_t at = sql.find("SELECT\n  row_number");
    if (at != std::string::npos) sql.insert(at + 9, "evidence_id, ");
    db.exec(sql);
  }
  db.exec("COMMIT");
  const std::string html = case_html(db);
  const fs::path tmp_rows = fs::path(o.batch_dir) / ".case.rows.jsonl.tmp";
  const bool rows_ok = db.error().empty() && db.lines_to("SELECT row_json FROM rows ORDER BY rowid", tmp_rows);
  std::string error;
  if (!db.close(&error) || !rows_ok) {
    std::fprintf(stderr, "roo-ingest: error: cannot write the case database %s: %s\n", tmp_db.c_str(),
                 error.empty() ? "cannot write case.rows.jsonl" : error.c_str());
    close(lock_fd);
    return kExitInternal;
  }
  const fs::path out = o.batch_dir;
  fs::rename(tmp_db, out / "case.sqlite", ec);
  if (!ec) fs::rename(tmp_rows, out / "case.rows.jsonl", ec);
  if (!ec && !write_atomically(out / "case.html", html)) ec = std::make_error_code(std::errc::io_error);
  close(lock_fd);
  if (ec) {
    std::fprintf(stderr, "roo-ingest: error: cannot write the case files into %s: %s\n", out.c_str(),
                 ec.message().c_str());
    return kExitInternal;
  }
  if (!o.quiet) {
    int in_case = 0;
    for (const ItemStatus& s : statuses) in_case += s.status == "done" || s.status == "partial";
    std::fprintf(stderr,
                 "roo-ingest: merged %d of %zu items into %s (case.sqlite, case.rows.jsonl, case.html); %d of them "
                 "read anew, the others from their parts in %s\n",
                 in_case, m.items.size(), out.c_str(), rebuilt, merge_dir(o).c_str());
  }
  return kExitOk;
}

}  // namespace roo::batch
