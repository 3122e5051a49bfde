#include "plugin/report.h"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>

#include "core/row.h"
#include "core/text_util.h"
#include "plugin/body_file.h"

namespace roo {

namespace {

using Pretty = rapidjson::PrettyWriter<rapidjson::StringBuffer>;
using Compact = rapidjson::Writer<rapidjson::StringBuffer>;

template <typename W>
void put(W& w, const char* key, const std::string& v) {
  w.Key(key);
  std::string clean = utf8_sanitize(v);
  w.String(clean.c_str(), static_cast<rapidjson::SizeType>(clean.size()));
}
template <typename W>
void put(W& w, const char* key, int64_t v) {
  w.Key(key);
  w.Int64(v);
}
template <typename W>
void put_opt(W& w, const char* key, const std::optional<std::string>& v) {
  w.Key(key);
  if (v)
    w.String(utf8_sanitize(*v).c_str());
  else
    w.Null();
}
template <typename W>
void put_strings(W& w, const char* key, const std::vector<std::string>& v) {
  w.Key(key);
  w.StartArray();
  for (const auto& s : v) w.String(utf8_sanitize(s).c_str());
  w.EndArray();
}

std::string scan_json(const ScanReport& s) {
  rapidjson::StringBuffer buf;
  Compact w(buf);
  w.StartObject();
  put_strings(w, "homes_searched", s.homes_searched);
  put_strings(w, "temp_dirs_searched", s.temp_dirs_searched);
  w.Key("custom_storage_paths");
  w.StartArray();
  for (const CustomStoragePath& c : s.custom_storage_paths) {
    w.StartObject();
    put(w, "surface", c.surface);
    put_opt(w, "user", c.user);
    put(w, "settings_file", c.settings_file);
    put(w, "recorded_path", c.recorded_path);
    w.Key("found_here");
    w.Bool(c.found_here);
    if (c.found_here) put(w, "found_at", c.found_at);
    w.EndObject();
  }
  w.EndArray();
  put(w, "root_patterns_per_home", s.root_patterns);
  w.Key("roots_found");
  w.StartArray();
  for (const RootRecord& r : s.roots) {
    w.StartObject();
    put(w, "surface", r.surface);
    put_opt(w, "user", r.user);
    put(w, "path", r.path);
    put(w, "task_dirs", r.tasks);
    put(w, "deleted_names_seen", r.deleted_names);
    put(w, "found_by", r.found_by);
    w.EndObject();
  }
  w.EndArray();
  w.Key("files_parsed");
  w.StartArray();
  for (const FileParseRecord& f : s.files) {
    w.StartObject();
    put(w, "path", f.path);
    put(w, "kind", f.kind);
    put_opt(w, "sha256", f.sha256.empty() ? std::nullopt : std::optional<std::string>(f.sha256));
    put(w, "bytes", static_cast<int64_t>(f.bytes));
    put(w, "records", f.records);
    put(w, "good_records", f.good_records);
    put(w, "errors", f.errors);
    put(w, "folded_into_api_rows", f.folded);
    if (f.version_folded) put(w, "records_folded_into_task_file", f.version_folded);
    w.EndObject();
  }
  w.EndArray();
  put_strings(w, "errors", s.errors);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

const char* partition_kind_name(tsk::Partition::Kind k) {
  switch (k) {
    case tsk::Partition::allocated: return "allocated";
    case tsk::Partition::unallocated: return "unallocated";
    case tsk::Partition::meta: return "meta";
  }
  return "unknown";
}

}  // namespace

std::string part_report_json(const PartReport& part) {
  rapidjson::StringBuffer buf;
  Compact w(buf);
  w.StartObject();
  put(w, "status", part.status);
  put(w, "reason", part.reason);
  put(w, "fs_type", part.fs_type);
  w.Key("scan");
  std::string scan = scan_json(part.scan);
  w.RawValue(scan.data(), scan.size(), rapidjson::kObjectType);
  w.Key("counts");
  w.StartObject();
  put(w, "rows", part.counts.rows);
  put(w, "body_lines", part.counts.body_lines);
  w.Key("by_kind");
  w.StartObject();
  for (const auto& [k, n] : part.counts.by_kind) put(w, k.c_str(), n);
  w.EndObject();
  w.Key("tasks");
  w.StartArray();
  for (const auto& [id, t] : part.counts.tasks) {
    w.StartObject();
    put(w, "session_id", id);
    put(w, "surface", t.surface);
    put(w, "title", t.title);
    put(w, "rows", t.rows);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

PartReport parse_part_report(const std::string& json) {
  PartReport part;
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject()) {
    part.status = "failed";
    part.reason = "worker report unreadable";
    return part;
  }
  auto s = [&](const char* k) { return d.HasMember(k) && d[k].IsString() ? std::string(d[k].GetString()) : ""; };
  part.status = s("status");
  part.reason = s("reason");
  part.fs_type = s("fs_type");
  if (d.HasMember("scan") && d["scan"].IsObject()) {
    rapidjson::StringBuffer buf;
    Compact w(buf);
    d["scan"].Accept(w);
    part.scan_json.assign(buf.GetString(), buf.GetSize());
  }
  if (d.HasMember("counts") && d["counts"].IsObject()) {
    const rapidjson::Value& c = d["counts"];
    part.counts.rows = c["rows"].GetInt64();
    part.counts.body_lines = c["body_lines"].GetInt64();
    for (const auto& k : c["by_kind"].GetObject()) part.counts.by_kind[k.name.GetString()] = k.value.GetInt64();
    for (const auto& t : c["tasks"].GetArray())
      part.counts.tasks[t["session_id"].GetString()] = {t["surface"].GetString(), t["title"].GetString(),
                                                         t["rows"].GetInt64()};
  }
  return part;
}

void RowCounts::emit(const Row& row) {
  ++rows;
  ++by_kind[row.kind];
  if (body_time(row)) ++body_lines;  // the same test the body file uses
  if (!row.identity || !row.identity->session_id) return;
  Task& t = tasks[*row.identity->session_id];
  ++t.rows;
  t.surface = row.identity->surface;
  if (row.kind == "task" && row.text) t.title = *row.text;
}

void RowCounts::merge(const RowCounts& o) {
  rows += o.rows;
  body_lines += o.body_lines;
  for (const auto& [k, n] : o.by_kind) by_kind[k] += n;
  for (const auto& [id, t] : o.tasks) {
    Task& mine = tasks[id];
    mine.rows += t.rows;
    mine.surface = t.surface;
    if (!t.title.empty()) mine.title = t.title;
  }
}

std::string run_report_json(const RunReport& r) {
  rapidjson::StringBuffer buf;
  Pretty w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  put(w, "tool", std::string("roo-ingest"));
  put(w, "version", std::string(ROO_INGEST_VERSION));
  put(w, "row_schema", std::string(kRowSchema));
  put_strings(w, "command_line", r.command_line);
  w.Key("evidence");
  w.StartObject();
  put(w, "kind", r.evidence_kind);
  put_strings(w, "paths", r.evidence_paths);
  if (r.image) {
    put(w, "image_type", r.image->type);
    put(w, "size_bytes", static_cast<int64_t>(r.image->size));
    put(w, "sector_size", static_cast<int64_t>(r.image->sector_size));
    put_strings(w, "segments", r.image->segments);
    w.Key("stored_hashes");
    w.StartObject();
    if (!r.image->stored_md5.empty()) put(w, "md5", r.image->stored_md5);
    if (!r.image->stored_sha1.empty()) put(w, "sha1", r.image->stored_sha1);
    w.EndObject();
  }
  w.EndObject();
  w.Key("partitions");
  w.StartArray();
  for (const auto& [p, part] : r.partitions) {
    w.StartObject();
    if (p) {
      put(w, "index", static_cast<int64_t>(p->index));
      put(w, "offset_bytes", static_cast<int64_t>(p->offset_bytes));
      put(w, "length_bytes", static_cast<int64_t>(p->length_bytes));
      put(w, "description", p->description);
      put(w, "volume_system", p->vs_type);
      put(w, "kind", std::string(partition_kind_name(p->kind)));
    }
    if (part.status.empty()) {
      put(w, "status", std::string(p && p->kind == tsk::Partition::meta
                                       ? "not searched: volume system table"
                                       : "not searched: unallocated space (carving is a later stage)"));
    } else {
      put(w, "status", part.status);
      if (!part.reason.empty()) put(w, "reason", part.reason);
      if (!part.fs_type.empty()) put(w, "fs_type", part.fs_type);
      if (!part.scan_json.empty()) {
        w.Key("scan");
        w.RawValue(part.scan_json.data(), part.scan_json.size(), rapidjson::kObjectType);
      }
    }
    w.EndObject();
  }
  w.EndArray();
  // Each other partition searched for a custom storage path the partition's own file system did not hold.
  w.Key("custom_storage_path_scans");
  w.StartArray();
  for (const auto& [p, part] : r.custom_scans) {
    w.StartObject();
    if (p) put(w, "partition_index", static_cast<int64_t>(p->index));
    put(w, "status", part.status);
    if (!part.reason.empty()) put(w, "reason", part.reason);
    if (!part.scan_json.empty()) {
      w.Key("scan");
      w.RawValue(part.scan_json.data(), part.scan_json.size(), rapidjson::kObjectType);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("rows");
  w.StartObject();
  put(w, "total", r.totals.rows);
  w.Key("by_kind");
  w.StartObject();
  for (const auto& [k, n] : r.totals.by_kind) put(w, k.c_str(), n);
  w.EndObject();
  put(w, "body_file_lines", r.totals.body_lines);
  put(w, "rows_without_time_not_in_body_file", r.totals.rows - r.totals.body_lines);
  w.EndObject();
  if (r.outputs) {
    w.Key("outputs");
    w.StartObject();
    put(w, "display_time_zone", r.outputs->display_time_zone);
    if (r.outputs->rows_jsonl_lines_unreadable > 0)
      put(w, "rows_jsonl_lines_unreadable", r.outputs->rows_jsonl_lines_unreadable);
    w.Key("files");
    w.StartArray();
    for (const DerivedOutput& f : r.outputs->files) {
      w.StartObject();
      put(w, "format", f.format);
      put(w, "file", f.file);
      if (f.rows_written) put(w, "rows_written", *f.rows_written);
      if (f.rows_left_out) put(w, "rows_left_out", *f.rows_left_out);
      if (!f.left_out_reason.empty()) put(w, "left_out_reason", f.left_out_reason);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

std::string run_summary(const RunReport& r) {
  std::string out = "roo-ingest " ROO_INGEST_VERSION " — " + r.evidence_kind + " " +
                    (r.evidence_paths.empty() ? "" : r.evidence_paths.front()) + "\n";
  for (const auto& [p, part] : r.partitions) {
    std::string where = p ? "partition " + std::to_string(p->index) + " @" + std::to_string(p->offset_bytes) + " (" +
                                p->description + ")"
                          : "folder";
    std::string status = part.status;
    if (status.empty())
      status = p && p->kind == tsk::Partition::meta ? "volume system table, not searched"
                                                    : "unallocated space, not searched yet (carving is a later stage)";
    out += "  " + where + ": " + status;
    if (!part.fs_type.empty()) out += " (" + part.fs_type + ")";
    if (!part.reason.empty()) out += " — " + part.reason;
    rapidjson::Document scan;
    if (!part.scan_json.empty() && !scan.Parse(part.scan_json.c_str()).HasParseError() &&
        scan.HasMember("roots_found")) {
      for (const auto& root : scan["roots_found"].GetArray()) {
        out += "\n    Roo root [" + std::string(root["surface"].GetString()) + "] " + root["path"].GetString() + ": " +
               std::to_string(root["task_dirs"].GetInt64()) + " task dir(s)";
      }
    }
    out += "\n";
  }
  if (!r.totals.tasks.empty()) out += "  tasks:\n";
  for (const auto& [session, t] : r.totals.tasks) {
    std::string title = t.title.size() > 60 ? t.title.substr(0, 60) + "…" : t.title;
    for (char& c : title)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    out += "    " + session + " [" + t.surface + "] " + std::to_string(t.rows) + " rows  " + title + "\n";
  }
  out += "  rows: " + std::to_string(r.totals.rows);
  for (const auto& [k, n] : r.totals.by_kind) out += "  " + k + "=" + std::to_string(n);
  out += "\n";
  return out;
}

}  // namespace roo
