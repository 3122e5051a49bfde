#include "plugin/formats/html_report.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "plugin/formats/json_text.h"
#include "plugin/formats/output_file.h"

namespace roo {

namespace {

// The page (plugin/formats/report_template.html), turned into a raw string literal by plugin/CMakeLists.txt.
constexpr std::string_view kTemplate =
#include "report_template.inc"
    ;
// Where the data goes (near the end of the body): the page before it is written first, the rest last.
constexpr std::string_view kDataMarker = "<!--ROO:DATA-->";
static_assert(kTemplate.find(kDataMarker) != std::string_view::npos, "report_template.html lost its data marker");

// A data chunk is closed at this size or row count: JSON.parse gets pieces of a few MB, not one of hundreds.
constexpr size_t kChunkBytes = 1 << 20;
constexpr size_t kChunkRows = 2000;
// The parts' unwritten chunks together stay below this: past it every part's chunk is written out.
constexpr size_t kBufferedBytes = 32 << 20;

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// The source fields that differ between rows of one file. The rest (evidence, path, inode, allocation, MAC times,
// sha256 …) is the file's: written once per page and named by number from each row, which keeps a 110k-row page
// about 600 bytes a row smaller. Every field is still there for the page to show.
bool is_record_field(std::string_view key) {
  return key == "record_index" || key == "sub_index" || key == "part_index" || key == "byte_offset" ||
         key == "byte_length";
}

void append_script_safe(std::string& out, std::string_view json) {
  size_t run = 0;  // the bytes since the last escaped one are copied whole
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c != '<' && c != '>' && c != '&') continue;
    out.append(json.substr(run, i - run));
    out += c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : "\\u0026";
    run = i + 1;
  }
  out.append(json.substr(run));
}

// Copies one row's values into the page's JSON, cutting long strings and arrays (kHtml* limits). It writes the text
// html_script_safe_json would make of RapidJSON's Writer's, straight into the page (append_json_string's
// ScriptSafe): the HTML writer took a fifth less CPU than writing JSON first and making it script-safe after. It
// recurses like every DOM walk of the formats: rows come from core's parse_json, which refuses nesting deeper than
// kMaxJsonDepth.
class CuttingCopier {
 public:
  CuttingCopier(std::string& out, std::string_view row_id) : out_(out), row_id_(row_id) {}

  void value(const rapidjson::Value& v) {
    if (v.IsString()) {
      string(std::string_view(v.GetString(), v.GetStringLength()));
    } else if (v.IsArray()) {
      out_ += '[';
      const size_t n = v.Size();
      for (size_t i = 0; i < n && i < kHtmlArrayItems; ++i) {
        if (i > 0) out_ += ',';
        value(v[static_cast<rapidjson::SizeType>(i)]);
      }
      if (n > kHtmlArrayItems) {
        out_ += ',';
        string_raw("… " + std::to_string(n - kHtmlArrayItems) + " more items — full array in rows.jsonl row_id " +
                   std::string(row_id_));
      }
      out_ += ']';
    } else if (v.IsObject()) {
      out_ += '{';
      bool first = true;
      for (const auto& m : v.GetObject()) {
        if (!first) out_ += ',';
        first = false;
        string_raw(std::string_view(m.name.GetString(), m.name.GetStringLength()));
        out_ += ':';
        value(m.value);
      }
      out_ += '}';
    } else {
      append_json(out_, v);  // numbers, booleans, null as they are
    }
  }

 private:
  void string(std::string_view s) {
    const size_t limit = used_ < kHtmlRowBudgetBytes ? kHtmlTextBytes : kHtmlRowTailBytes;
    if (s.size() <= limit) {
      used_ += s.size();
      string_raw(s);
    } else {
      used_ += limit;
      string_raw(html_truncated_text(s, limit, row_id_));
    }
  }
  void string_raw(std::string_view s) { append_json_string(out_, s, JsonEscape::ScriptSafe); }

  std::string& out_;
  std::string_view row_id_;
  size_t used_ = 0;  // string bytes this row has put into the page
};

// Member name of v as a string, or "" when v lacks it or it is not a string.
std::string_view str_member(const rapidjson::Value& v, const char* name) {
  const auto it = v.FindMember(name);
  if (it == v.MemberEnd() || !it->value.IsString()) return {};
  return std::string_view(it->value.GetString(), it->value.GetStringLength());
}
bool bool_member_is(const rapidjson::Value& v, const char* name, bool want) {
  const auto it = v.FindMember(name);
  return it != v.MemberEnd() && it->value.IsBool() && it->value.GetBool() == want;
}
// A value as a part of a grouping key: null and a missing value as "", strings as they are, others as JSON.
std::string join_text(const rapidjson::Value& v, const char* name) {
  const auto it = v.FindMember(name);
  if (it == v.MemberEnd() || it->value.IsNull()) return {};
  if (it->value.IsString()) return std::string(it->value.GetString(), it->value.GetStringLength());
  std::string out;
  append_json(out, it->value);
  return out;
}

// The page's row classes (report_template.html's isDenied, isError, sourceRecovered), here to count a task's rows
// for the index and to put the denials on one page; both sides must say the same.
bool is_denied(const rapidjson::Value& r) {
  const std::string_view outcome = str_member(r, "outcome");
  return (str_member(r, "kind") == "permission_decision" && str_member(r, "decision") == "denied") ||
         outcome == "denied" || outcome == "access_denied" || str_member(r, "result_status") == "denied";
}
bool is_error(const rapidjson::Value& r) {
  const std::string_view kind = str_member(r, "kind");
  if (kind == "parser_error" || kind == "ui_error" || str_member(r, "outcome") == "error" ||
      bool_member_is(r, "is_error", true))
    return true;
  const auto exit = r.FindMember("exit_code");
  return exit != r.MemberEnd() && exit->value.IsNumber() && exit->value.GetDouble() != 0;
}
bool source_recovered(const rapidjson::Value& src) {
  const std::string_view recovery = str_member(src, "recovery");
  return (!recovery.empty() && recovery != "allocated") || bool_member_is(src, "name_allocated", false) ||
         bool_member_is(src, "meta_allocated", false) || bool_member_is(src, "reallocated", true);
}
bool is_call_kind(std::string_view k) {
  return k == "command" || k == "file_edit" || k == "file_read" || k == "tool_call";
}
// time_utc cut to milliseconds with a fraction always present ("…T09:20:00.772"), so that keys compare as times do;
// "" when it is not an ISO time the page could read.
std::string time_key(std::string_view iso) {
  if (iso.size() < 20 || iso.back() != 'Z' || iso[4] != '-' || iso[10] != 'T') return {};
  std::string key(iso.substr(0, 19));
  std::string_view frac = iso.substr(19, iso.size() - 20);  // ".772123" or ""
  if (!frac.empty() && frac[0] == '.') frac.remove_prefix(1);
  key += '.';
  for (size_t i = 0; i < 3; ++i) key += i < frac.size() ? frac[i] : '0';
  return key;
}

// A file name part: kinds are lower-case identifiers; anything else is replaced, so no name can leave the folder.
std::string file_name_part(std::string_view s) {
  std::string out;
  for (char c : s) out += ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') ? c : '-';
  return out.empty() ? "-" : out;
}

// One page part (report/<name>.js): a task's rows, the configuration rows, one kind's rows, the denials. Written
// as rooPart("name", {"files":{…},"rows":[…]}); statements, chunk by chunk, then rooPartEnd("name", {"rows":N});.
struct Part {
  std::string name;
  std::string chunk_files, chunk_rows;
  size_t rows_in_chunk = 0, rows = 0;
  bool created = false;           // the file was started in this run (later chunks are appended)
  std::unordered_set<size_t> has_file;  // source files whose fields this part already holds
};

// A task as the index shows it: where its rows are, what it holds, when.
struct Group {
  size_t n;
  std::string id, part, session, user, surface, evidence, partition, fs, workspace;  // JSON texts
  std::string first, last;                                                              // time keys
  std::string first_iso, last_iso;
  bool has_task = false;
  size_t rows = 0, user_msgs = 0, assistant = 0, calls = 0, commands = 0, edits = 0, approvals = 0, denied = 0,
         errors = 0, parser = 0, recovered = 0;
};

std::string json_text(std::string_view s) {
  std::string out;
  append_json_string(out, s, JsonEscape::ScriptSafe);
  return out;
}
std::string json_or_null(const rapidjson::Value& v, const char* name) {
  const auto it = v.FindMember(name);
  if (it == v.MemberEnd()) return "null";
  std::string out;
  append_json(out, it->value, JsonEscape::ScriptSafe);
  return out;
}

class HtmlReportWriter : public FormatWriter {
 public:
  HtmlReportWriter(const std::filesystem::path& out_file, const FormatContext& ctx)
      : out_(out_file), parts_dir_(out_file.parent_path() / kHtmlPartsFolder) {
    out_.write(kTemplate.substr(0, kTemplate.find(kDataMarker)));
    out_.write(meta_script(ctx));
    // The folder is the page's own: parts of an earlier writer there must not mix with this one's.
    std::error_code ec;
    std::filesystem::remove_all(parts_dir_, ec);
    std::filesystem::create_directory(parts_dir_, ec);
  }

  void row(const rapidjson::Value& row, std::string_view) override {
    if (!row.IsObject()) return;
    std::string_view row_id = "(none)";
    if (row.HasMember("row_id") && row["row_id"].IsString())
      row_id = std::string_view(row["row_id"].GetString(), row["row_id"].GetStringLength());

    // The row as the page's JSON, once; every part it goes into gets these bytes.
    row_json_.clear();
    has_source_ = false;
    CuttingCopier copy(row_json_, row_id);
    row_json_ += '{';
    bool first = true;
    const rapidjson::Value* source = nullptr;
    for (const auto& m : row.GetObject()) {
      if (!first) row_json_ += ',';
      first = false;
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      append_json_string(row_json_, name, JsonEscape::ScriptSafe);
      row_json_ += ':';
      if (name == "source" && m.value.IsObject()) {
        source = &m.value;
        write_source(row_json_, m.value);  // never cut: provenance must stay citable
      } else {
        copy.value(m.value);
      }
    }
    row_json_ += ",\"_n\":" + std::to_string(rows_) + '}';  // its place in rows.jsonl: views of many parts keep that order
    ++rows_;

    const std::string_view kind = str_member(row, "kind");
    const bool denied = is_denied(row);
    Group* g = group_of(row, source, kind);
    if (g) count(*g, row, source, kind, denied);
    add_to(g ? part(g->part) : part("config"), "");
    const std::string group_field = g ? ",\"_group\":" + std::to_string(g->n) : std::string();
    add_to(part("kind-" + file_name_part(kind)), group_field);
    if (denied) add_to(part("denied"), group_field);
    if (kind == "task") add_to(index_, group_field);
    if (buffered_ >= kBufferedBytes)
      for (auto& [name, p] : parts_) flush(*p);
  }

  bool finish(std::string* error) override {
    flush(index_);
    std::vector<std::string> names;
    for (const auto& [name, p] : parts_) names.push_back(name);
    std::sort(names.begin(), names.end());  // deterministic order of the writes (not of the bytes: each part is one file)
    for (const std::string& name : names) {
      Part& p = *parts_[name];
      flush(p);
      append_to_file(p, "rooPartEnd(" + json_text(p.name) + ",{\"rows\":" + std::to_string(p.rows) + "});\n");
    }
    out_.write(index_script());
    // The end mark: a page without it was cut off (a killed run, a full disk) and says so.
    out_.write("<script type=\"application/json\" id=\"roo-end\">{\"rows\":" + std::to_string(rows_) +
               ",\"files\":" + std::to_string(files_.size()) + "}</script>\n");
    out_.write(kTemplate.substr(kTemplate.find(kDataMarker) + kDataMarker.size()));
    if (!part_error_.empty()) {
      std::string ignored;
      out_.close(&ignored);
      *error = part_error_;
      return false;
    }
    return out_.close(error);
  }

 private:
  // The page's settings and report.json, before any row: the zone to show times in, the cut limits to explain.
  static std::string meta_script(const FormatContext& ctx) {
    rapidjson::Document report;
    const bool report_ok =
        !ctx.report_json.empty() && !report.Parse(ctx.report_json.data(), ctx.report_json.size()).HasParseError();
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("display_tz");
    w.String(ctx.display_tz.data(), static_cast<rapidjson::SizeType>(ctx.display_tz.size()));
    w.Key("tool_version");
    w.String(ctx.tool_version.data(), static_cast<rapidjson::SizeType>(ctx.tool_version.size()));
    w.Key("text_bytes");
    w.Uint64(kHtmlTextBytes);
    w.Key("row_budget_bytes");
    w.Uint64(kHtmlRowBudgetBytes);
    w.Key("array_items");
    w.Uint64(kHtmlArrayItems);
    w.Key("parts_folder");
    w.String(kHtmlPartsFolder);
    w.Key("report");
    if (report_ok) {
      report.Accept(w);
    } else if (ctx.report_json.empty()) {
      w.Null();
    } else {  // shown as text, so nothing the run reported is lost
      w.String(ctx.report_json.data(), static_cast<rapidjson::SizeType>(ctx.report_json.size()));
    }
    w.EndObject();
    std::string out = "<script type=\"application/json\" id=\"roo-meta\">";
    append_script_safe(out, std::string_view(buf.GetString(), buf.GetSize()));
    out += "</script>\n";
    return out;
  }

  // The row's source as {"_file": N, record fields…}; a file seen for the first time gets its number (the same in
  // every part) and is noted so that each part that takes the row also takes the file's fields.
  void write_source(std::string& out, const rapidjson::Value& src) {
    std::string key = "{";  // the file's fields as compact JSON, in their order
    for (const auto& m : src.GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (is_record_field(name)) continue;
      if (key.size() > 1) key += ',';
      append_json_string(key, name);
      key += ':';
      append_json(key, m.value);
    }
    key += '}';
    auto [it, added] = files_.try_emplace(std::move(key), files_.size());
    if (added) file_json_.push_back(&it->first);
    file_ = it->second;
    out += "{\"_file\":";
    out += std::to_string(it->second);
    for (const auto& m : src.GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (!is_record_field(name)) continue;
      out += ',';
      append_json_string(out, name, JsonEscape::ScriptSafe);
      out += ':';
      append_json(out, m.value, JsonEscape::ScriptSafe);
    }
    out += '}';
    has_source_ = true;
  }

  // The task the row belongs to, as the page groups them: a task row starts one; a later row with the same
  // session in the same evidence, partition, user and surface joins it; a row of no session (and no task row) is
  // configuration (nullptr).
  Group* group_of(const rapidjson::Value& row, const rapidjson::Value* src, std::string_view kind) {
    const auto session = row.FindMember("session_id");
    const bool no_session = session == row.MemberEnd() || session->value.IsNull();
    if (no_session && kind != "task") return nullptr;
    static const rapidjson::Value kEmpty(rapidjson::kObjectType);
    const rapidjson::Value& f = src ? *src : kEmpty;
    std::string key = join_text(f, "evidence") + '\0' + join_text(f, "partition_offset") + '\0' +
                      join_text(row, "user") + '\0' + join_text(row, "surface") + '\0' + join_text(row, "session_id");
    auto it = current_.find(key);
    if (kind == "task" || it == current_.end()) {
      const size_t n = groups_.size();
      Group g;
      g.n = n;
      g.has_task = kind == "task";
      g.id = g.has_task ? std::string(str_member(row, "row_id")) : "session-" + std::to_string(n);
      char name[32];
      std::snprintf(name, sizeof name, "task-%06zu", n);
      g.part = name;
      g.session = json_or_null(row, "session_id");
      g.user = json_or_null(row, "user");
      g.surface = json_or_null(row, "surface");
      g.evidence = json_or_null(f, "evidence");
      g.partition = json_or_null(f, "partition_offset");
      g.fs = json_or_null(f, "fs_type");
      g.workspace = "null";
      groups_.push_back(std::move(g));
      it = current_.insert_or_assign(std::move(key), n).first;
    }
    return &groups_[it->second];
  }

  static void count(Group& g, const rapidjson::Value& r, const rapidjson::Value* src, std::string_view kind,
                    bool denied) {
    ++g.rows;
    if (g.workspace == "null" && !str_member(r, "project_path").empty()) g.workspace = json_text(str_member(r, "project_path"));
    const std::string_view iso = str_member(r, "time_utc");
    const std::string key = time_key(iso);
    if (!key.empty()) {
      if (g.first.empty() || key < g.first) { g.first = key; g.first_iso = iso; }
      if (g.last.empty() || key > g.last) { g.last = key; g.last_iso = iso; }
    }
    if (kind == "user_message") ++g.user_msgs;
    if (kind == "assistant_message") ++g.assistant;
    if (is_call_kind(kind)) ++g.calls;
    if (kind == "command") ++g.commands;
    if (kind == "file_edit") ++g.edits;
    if (kind == "approval_request") ++g.approvals;
    if (denied && kind == "permission_decision") ++g.denied;
    if (is_error(r)) ++g.errors;
    if (kind == "parser_error") ++g.parser;
    if (src && source_recovered(*src)) ++g.recovered;
  }

  Part& part(const std::string& name) {
    auto it = parts_.find(name);
    if (it == parts_.end()) {
      auto p = std::make_unique<Part>();
      p->name = name;
      it = parts_.emplace(name, std::move(p)).first;
    }
    return *it->second;
  }

  // Appends the current row (and the fields of its file, when the part lacks them) to a part's chunk; extra is
  // more members for the row (its task's number, on pages that list rows of many tasks).
  void add_to(Part& p, const std::string& extra) {
    if (has_source_ && p.has_file.insert(file_).second) {
      const std::string& file = *file_json_[file_];
      const size_t before = p.chunk_files.size();
      if (!p.chunk_files.empty()) p.chunk_files += ',';
      p.chunk_files += '"' + std::to_string(file_) + "\":";
      append_script_safe(p.chunk_files, file);
      buffered_ += p.chunk_files.size() - before;
    }
    const size_t before = p.chunk_rows.size();
    if (p.rows_in_chunk > 0) p.chunk_rows += ',';
    if (extra.empty()) {
      p.chunk_rows += row_json_;
    } else {
      p.chunk_rows.append(row_json_, 0, row_json_.size() - 1);
      p.chunk_rows += extra;
      p.chunk_rows += '}';
    }
    buffered_ += p.chunk_rows.size() - before;
    ++p.rows_in_chunk;
    ++p.rows;
    if (p.chunk_rows.size() + p.chunk_files.size() >= kChunkBytes || p.rows_in_chunk >= kChunkRows) flush(p);
  }

  // Writes the part's chunk, {"files":{…},"rows":[…]}: the index's into the page as a data script (its task rows
  // come as they come, as before the split), a part's to its file as a rooPart statement.
  void flush(Part& p) {
    if (p.rows_in_chunk == 0 && p.chunk_files.empty()) return;
    buffered_ -= p.chunk_files.size() + p.chunk_rows.size();
    const std::string chunk = "{\"files\":{" + p.chunk_files + "},\"rows\":[" + p.chunk_rows + "]}";
    if (&p == &index_)
      out_.write("<script type=\"application/json\" class=\"roo-data\">" + chunk + "</script>\n");
    else
      append_to_file(p, "rooPart(" + json_text(p.name) + "," + chunk + ");\n");
    // Given back, not just emptied: a thousand parts each keeping a chunk's capacity would be a GB.
    std::string().swap(p.chunk_files);
    std::string().swap(p.chunk_rows);
    p.rows_in_chunk = 0;
  }
  void append_to_file(Part& p, const std::string& text) {
    const std::filesystem::path path = parts_dir_ / (p.name + ".js");
    std::FILE* f = std::fopen(path.c_str(), p.created ? "ab" : "wb");
    p.created = true;
    bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (f && std::fclose(f) != 0) ok = false;
    if (!ok && part_error_.empty()) part_error_ = "cannot write " + path.string();
  }

  // What the index needs to list, count and draw every task without loading it, and the parts it can load.
  std::string index_script() const {
    std::string s = "<script type=\"application/json\" id=\"roo-index\">{\"groups\":[";
    for (const Group& g : groups_) {
      if (g.n > 0) s += ',';
      s += "{\"id\":" + json_text(g.id) + ",\"part\":" + json_text(g.part) + ",\"task\":" +
           (g.has_task ? "true" : "false") + ",\"session\":" + g.session + ",\"user\":" + g.user +
           ",\"surface\":" + g.surface + ",\"evidence\":" + g.evidence + ",\"partition\":" + g.partition +
           ",\"fs\":" + g.fs + ",\"workspace\":" + g.workspace + ",\"first\":" +
           (g.first_iso.empty() ? "null" : json_text(g.first_iso)) +
           ",\"last\":" + (g.last_iso.empty() ? "null" : json_text(g.last_iso)) + ",\"rows\":" +
           std::to_string(g.rows) + ",\"c\":{\"user\":" + std::to_string(g.user_msgs) +
           ",\"assistant\":" + std::to_string(g.assistant) + ",\"calls\":" + std::to_string(g.calls) +
           ",\"commands\":" + std::to_string(g.commands) + ",\"edits\":" + std::to_string(g.edits) +
           ",\"approvals\":" + std::to_string(g.approvals) + ",\"denied\":" + std::to_string(g.denied) +
           ",\"errors\":" + std::to_string(g.errors) + ",\"parser\":" + std::to_string(g.parser) +
           ",\"recovered\":" + std::to_string(g.recovered) + "}}";
    }
    s += "],\"parts\":{";
    std::vector<std::string> names;
    for (const auto& [name, p] : parts_)
      if (name.rfind("task-", 0) != 0) names.push_back(name);
    std::sort(names.begin(), names.end());
    bool first = true;
    for (const std::string& name : names) {
      if (!first) s += ',';
      first = false;
      s += json_text(name) + ':' + std::to_string(parts_.at(name)->rows);
    }
    s += "}}</script>\n";
    return s;
  }

  OutputFile out_;
  std::filesystem::path parts_dir_;
  std::unordered_map<std::string, size_t> files_;  // a source file's fields (JSON) → its number in the page
  std::vector<const std::string*> file_json_;      // number → fields
  std::unordered_map<std::string, std::unique_ptr<Part>> parts_;
  Part index_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, size_t> current_;  // group key → the group rows of that key join now
  std::string row_json_;
  size_t file_ = 0;
  bool has_source_ = false;
  size_t buffered_ = 0;
  size_t rows_ = 0;
  std::string part_error_;
};

}  // namespace

std::string html_truncated_text(std::string_view s, size_t max_bytes, std::string_view row_id) {
  if (s.size() <= max_bytes) return std::string(s);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return std::string(s.substr(0, cut)) + "… " + std::to_string(s.size() - cut) +
         " more bytes — full text in rows.jsonl row_id " + std::string(row_id);
}

std::string html_script_safe_json(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  append_script_safe(out, json);
  return out;
}

std::unique_ptr<FormatWriter> make_html_report_writer(const std::filesystem::path& out_file, const FormatContext& ctx) {
  return std::make_unique<HtmlReportWriter>(out_file, ctx);
}

}  // namespace roo
