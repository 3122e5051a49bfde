#include "plugin/formats/csv.h"

#include <array>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "plugin/formats/byte_scan.h"
#include "plugin/formats/display_time.h"
#include "plugin/formats/row_fields.h"

namespace roo {

namespace {

// A plain decimal number as JSON writes one: a spreadsheet reads it as a number, never as a formula.
bool is_plain_number(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (!digits()) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

bool starts_formula(std::string_view s) {
  if (s.empty()) return false;
  const char c = s.front();
  if (c != '=' && c != '+' && c != '-' && c != '@' && c != '\t' && c != '\r') return false;
  return !(s == "-" || is_plain_number(s));
}

// The row contract's common fields, in contract order.
const std::vector<std::string> kCommonFields = {
    "schema",          "row_id",       "kind", "time_utc",   "time_source",
    "agent",           "surface",      "user", "session_id", "parent_session_id",
    "root_session_id", "project_path", "role", "text"};

// Every kind-specific field the contract (docs/row-contract.md, docs/row.schema.json) and the parsers know, in
// alphabetical order. A field added later is appended at the end of this list, never inserted, so the columns keep
// their order (docs/output-formats.md); until it is added it is written into `extra`.
// clang-format off
const std::vector<std::string> kKindFields = {
    "allocated", "also_in", "api_config_name", "api_protocol", "api_provider", "args", "base_file", "blocked_path",
    "browser_action", "cache_reads", "cache_writes", "call_closed", "call_format", "cancel_reason", "checkpoint_from",
    "checkpoint_to", "classification", "command", "command_status", "command_timeout_seconds", "commit_hash",
    "compared_with_file", "compared_with_known_from", "completion_result", "component", "condense_id", "config_area",
    "content_sha256", "content_size", "core_dump_possible", "cost_usd", "created_at", "credential_key",
    "credential_location", "current",
    "current_cost", "cwd", "decided_by", "decision", "diff", "difference_ms", "dir_name", "disabled",
    "disagreeing_fields", "edit_form", "edit_operation", "encrypted", "entry_name", "entry_path", "entry_type",
    "environment_text", "error", "error_type", "event_type", "evidence", "execution_id", "exit_code",
    "expected_replacements", "extension_id", "failure_form", "feedback", "feedback_on_decision", "file_path", "file_path_resolved", "file_pattern",
    "first_record_time_utc", "has_user_instructions", "hidden_by_condense", "hidden_by_truncation", "history_item_id",
    "http_method", "hunk_count", "hunks", "inside_roo_text", "install_path", "install_source", "is_answered",
    "is_dir", "is_error", "is_protected", "kind_decided_by", "known_from", "last_error", "level", "line_ranges",
    "linked_session_id",
    "linked_task_dir_deleted", "linked_task_dir_present", "machine_id", "mcp_server", "mcp_tool", "mcp_uri",
    "mention_kind", "mentioned_path", "mentioned_path_resolved", "mentioned_target", "message", "messages_removed", "mode", "mode_name", "model", "model_id", "model_id_key", "model_source",
    "move_to", "name_match", "new_context_tokens", "new_sha256", "new_text", "old_sha256", "old_text", "operation",
    "org_id", "outcome", "output_artifact", "output_persisted_size", "partial", "pre_release", "prev_context_tokens",
    "problems", "profile_id", "profile_name", "project_path_source", "prompt", "provider", "query", "question",
    "raw_time_ms", "raw_time_source", "read_limit", "read_mode", "read_offset", "reason", "record_source",
    "record_state", "recorded_time", "recorded_time_utc", "recursive", "regex", "relation", "relative_location",
    "replace_all", "report_file", "report_known_from", "reported_values", "request_id", "request_type", "resolution",
    "resolved_path", "result_count", "result_format", "result_recorded", "result_status", "result_time_utc",
    "resumed_after_utc", "retry_count", "roo_edit_date", "roo_read_date", "roo_text",
    "roo_text_releases", "server_count", "server_type",
    "setting_default", "setting_key",
    "setting_source", "setting_unset", "setting_value", "settings_file", "signal", "size_bytes", "skill", "skipped",
    "slash_command", "status", "subtask_id", "suggestions", "target_platform", "task_dir_deleted", "task_dir_present",
    "task_id", "task_id_format", "task_id_time_utc", "task_message", "task_number", "temp_dir", "temp_kind",
    "text_preview", "threshold", "time_from_ui_record", "time_zone", "timeout_seconds", "todos", "tokens_in", "tokens_out",
    "tool_count", "tool_description", "tool_input", "tool_name", "tool_use_id", "truncated_at_bytes", "truncation_id",
    "ui_kind", "ui_type", "unfinished", "unterminated_blocks", "updated", "url", "user_edit_date", "user_edits", "user_id",
    "user_message", "utc_offset", "value_from_wal", "version", "workspace_class", "workspace_dir",
};
// clang-format on

// The provenance object's fields, in contract order.
const std::vector<std::string> kSourceFields = {
    "evidence",       "partition_offset", "fs_type",     "pool_volume",  "path",      "inode",      "meta_seq",   "attr",
    "name_allocated", "meta_allocated",   "reallocated", "recovery",     "size",      "mtime",      "atime",
    "ctime",          "crtime",           "sha256",      "record_index", "sub_index", "part_index", "byte_offset",
    "byte_length"};

// The column of each row field: common, kind-specific and native by their own names, provenance fields as
// "source.<key>". The display_* and extra columns are not row fields.
const std::unordered_map<std::string, size_t>& column_index() {
  static const std::unordered_map<std::string, size_t> index = [] {
    std::unordered_map<std::string, size_t> m;
    size_t column = 3;  // after display_time, display_utc_offset, display_time_zone
    for (const auto* list : {&kCommonFields, &kKindFields})
      for (const std::string& name : *list) m[name] = column++;
    for (const std::string& name : kSourceFields) m["source." + name] = column++;
    m["native"] = column;
    return m;
  }();
  return index;
}

std::string text_or_dash(std::optional<std::string_view> v) {
  return v && !v->empty() ? std::string(*v) : "-";
}

// MACB as mactime and plaso mark it: which file time a row's time is; "...." for times from inside the records.
std::string macb(std::string_view time_source) {
  if (time_source == "file.mtime") return "M...";
  if (time_source == "file.crtime") return "...B";
  return "....";
}

// l2tcsv's extra: "key: value" pairs, sorted and joined by "; " as plaso writes them, for every scalar row field the
// other 16 fields do not already show, and the provenance that tells where the record is (evidence, partition,
// file system and APFS volume, recovery class, digest, position). Objects, arrays, the verbatim record and the file's own metadata
// (MAC times, size, allocation flags) are left to rows.csv; each value is one line of at most 200 bytes.
std::string l2t_extra(const rapidjson::Value& row) {
  static constexpr std::string_view kShown[] = {"schema", "kind", "time_utc", "time_source",
                                                "agent",  "user", "text",     "native"};
  static constexpr std::string_view kSourceKept[] = {"evidence", "partition_offset", "fs_type",   "recovery",
                                                     "sha256",   "record_index",     "sub_index", "part_index"};
  // The pairs are written one after another into one buffer and sorted as views into it: no string per pair to
  // make and free (making, sorting and freeing them showed as a quarter of l2t.csv's writer in perf).
  thread_local std::string text;
  thread_local std::vector<std::pair<size_t, size_t>> spans;  // offset and length in text
  text.clear();
  spans.clear();
  auto add = [&](std::string_view prefix, std::string_view key, const rapidjson::Value& v) {
    if (v.IsNull() || v.IsObject() || v.IsArray()) return;
    const size_t start = text.size();
    text.append(prefix).append(key).append(": ");
    // A string is read where it is (it can be a whole command output), and only as far as its line is shown.
    if (v.IsString())
      append_one_line_shortened(text, std::string_view(v.GetString(), v.GetStringLength()), 200);
    else
      append_one_line_shortened(text, *value_text(v), 200);
    spans.emplace_back(start, text.size() - start);
  };
  for (const auto& m : row.GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (std::find(std::begin(kShown), std::end(kShown), key) != std::end(kShown)) continue;
    if (key == "source" && m.value.IsObject()) {
      for (const auto& s : m.value.GetObject()) {
        const std::string_view skey(s.name.GetString(), s.name.GetStringLength());
        if (std::find(std::begin(kSourceKept), std::end(kSourceKept), skey) != std::end(kSourceKept))
          add("source_", skey, s.value);
        else if (skey == "pool_volume" && s.value.IsObject())  // which APFS volume of the container
          for (const auto& v : s.value.GetObject())
            add("source_pool_volume_", std::string_view(v.name.GetString(), v.name.GetStringLength()), v.value);
        else if (skey == "snapshot" && s.value.IsObject())  // which APFS snapshot the copy was read from
          for (const auto& v : s.value.GetObject())
            add("source_snapshot_", std::string_view(v.name.GetString(), v.name.GetStringLength()), v.value);
      }
    } else {
      add("", key, m.value);
    }
  }
  auto view = [&](const std::pair<size_t, size_t>& span) { return std::string_view(text).substr(span.first, span.second); };
  std::sort(spans.begin(), spans.end(), [&](const auto& a, const auto& b) { return view(a) < view(b); });
  std::string out;
  for (const auto& span : spans) {
    if (!out.empty()) out += "; ";
    out.append(view(span));
  }
  return out;
}

void append_csv_cell(std::string& line, std::string_view value);

// rows.csv: every row, in rows.jsonl's order.
class RowsCsvWriter : public CountingWriter {
 public:
  RowsCsvWriter(const std::filesystem::path& out_file, const DisplayZone& zone) : out_(out_file), zone_(zone) {
    out_.write(csv_record(rows_csv_columns()));
  }
  void row(const rapidjson::Value& row, std::string_view) override {
    line_.clear();
    append_rows_csv_record(line_, row, zone_);
    out_.write(line_);
    ++written_;
  }
  bool finish(std::string* error) override { return out_.close(error); }

 private:
  OutputFile out_;
  const DisplayZone& zone_;
  std::string line_;  // kept: its capacity serves the next row
};

// l2t.csv in time order, as plaso's psort writes l2tcsv, rows of the same time in rows.jsonl's order.
// Memory stays small whatever the rows hold: each line goes to a spill file beside the output as it comes, and only
// (time, offset, length) is kept per line (24 bytes; 127k rows need about 3 MB, not the hundreds of MB their text
// takes). finish() sorts those and copies the lines into l2t.csv in that order.
class L2tCsvWriter : public CountingWriter {
 public:
  L2tCsvWriter(const std::filesystem::path& out_file, const DisplayZone& zone)
      : out_(out_file), zone_(zone), spill_path_(out_file.string() + ".unsorted") {
    left_out_reason_ = "no time (time_utc null): an l2tcsv line needs a date";
    out_.write(l2tcsv_line(l2tcsv_header()));
    spill_ = std::fopen(spill_path_.c_str(), "w+b");
    if (!spill_)
      spill_errno_ = errno;
    else
      std::setvbuf(spill_, nullptr, _IOFBF, 1 << 20);
  }
  ~L2tCsvWriter() override {
    if (spill_) std::fclose(spill_);
    std::error_code ec;
    std::filesystem::remove(spill_path_, ec);
  }
  void row(const rapidjson::Value& row, std::string_view) override {
    auto fields = l2tcsv_fields(row, zone_);
    if (!fields) {
      ++left_out_;
      return;
    }
    // l2tcsv_fields gave a line, so time_utc is the contract's form and has an instant.
    const int64_t ms = epoch_ms_from_row_time(*string_member(row, "time_utc")).value_or(0);
    const std::string line = l2tcsv_line(*fields);
    if (spill_ && spill_errno_ == 0 && std::fwrite(line.data(), 1, line.size(), spill_) != line.size())
      spill_errno_ = errno ? errno : EIO;
    lines_.push_back({ms, spill_size_, static_cast<uint32_t>(line.size())});
    spill_size_ += line.size();
    ++written_;
  }
  bool finish(std::string* error) override {
    if (spill_ && spill_errno_ == 0 && std::fflush(spill_) != 0) spill_errno_ = errno ? errno : EIO;
    if (spill_errno_ != 0) {
      std::string ignored;
      out_.close(&ignored);
      *error = "cannot write " + spill_path_.string() + ": " + std::strerror(spill_errno_);
      return false;
    }
    std::stable_sort(lines_.begin(), lines_.end(), [](const Line& a, const Line& b) { return a.ms < b.ms; });
    // Rows of one task are mostly in time order already: lines that follow each other in the spill file are read
    // with one pread, up to a buffer's worth.
    std::string buf;
    const int fd = fileno(spill_);
    for (size_t i = 0; i < lines_.size();) {
      size_t j = i + 1;
      uint64_t end = lines_[i].offset + lines_[i].length;
      while (j < lines_.size() && lines_[j].offset == end && end - lines_[i].offset < (1u << 20))
        end += lines_[j++].length;
      buf.resize(end - lines_[i].offset);
      size_t got = 0;
      while (got < buf.size()) {
        const ssize_t n = pread(fd, buf.data() + got, buf.size() - got, static_cast<off_t>(lines_[i].offset + got));
        if (n <= 0) {
          std::string ignored;
          out_.close(&ignored);
          *error = "cannot read " + spill_path_.string() + ": " +
                   (n < 0 ? std::strerror(errno) : "file shorter than written");
          return false;
        }
        got += static_cast<size_t>(n);
      }
      out_.write(buf);
      i = j;
    }
    return out_.close(error);
  }

 private:
  struct Line {
    int64_t ms;
    uint64_t offset;
    uint32_t length;
  };
  OutputFile out_;
  const DisplayZone& zone_;
  const std::filesystem::path spill_path_;
  std::FILE* spill_ = nullptr;
  int spill_errno_ = 0;
  uint64_t spill_size_ = 0;
  std::vector<Line> lines_;
};

}  // namespace

namespace {
// Appends one RFC 4180 cell. Most cells are empty or plain: a run of bytes that needs nothing is copied whole, found
// with find_special_byte rather than a table lookup per byte. (With append_rows_csv_record, rows.csv's writer took
// 38% less CPU on the benchmark image, derive_bench; l2t.csv's 32%, with l2t_extra and one_line below.)
void append_csv_cell(std::string& line, std::string_view value) {
  const bool formula = starts_formula(value);
  const char* const begin = value.data();
  const char* const end = begin + value.size();
  const char* special = find_special_byte<1, '"', ',', '\r', '\n'>(begin, end);  // NUL too: below 1
  if (special == end) {  // nothing to quote or replace
    if (formula) line += '\'';
    line.append(value);
    return;
  }
  const bool quote = find_special_byte<0, '"', ',', '\r', '\n'>(special, end) != end;
  if (quote) line += '"';
  if (formula) line += '\'';  // inside the quotes, as the cell's first character
  const char* run = begin;
  for (const char* p = find_special_byte<1, '"'>(special, end); p != end; p = find_special_byte<1, '"'>(p, end)) {
    line.append(run, p);
    line += *p == '"' ? std::string_view("\"\"") : std::string_view("\xEF\xBF\xBD");  // NUL -> U+FFFD
    run = ++p;
  }
  line.append(run, end);
  if (quote) line += '"';
}
}  // namespace

std::string csv_cell(std::string_view value) {
  std::string cell;
  append_csv_cell(cell, value);
  return cell;
}

std::string csv_record(const std::vector<std::string>& cells) {
  std::string line;
  size_t size = 2;
  for (const std::string& c : cells) size += c.size() + 1;
  line.reserve(size + size / 8);
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) line += ',';
    append_csv_cell(line, cells[i]);
  }
  line += "\r\n";
  return line;
}

std::string l2tcsv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) line += ',';
    const std::string_view f = fields[i];
    if (starts_formula(f)) line += '\'';
    for (char c : f) line += c == ',' || c == '\r' || c == '\n' ? ' ' : c == '\0' ? '?' : c;
  }
  line += '\n';
  return line;
}

std::string l2tcsv_short(std::string_view desc) {
  size_t code_points = 0, cut = 0;
  for (size_t i = 0; i < desc.size(); ++i)
    if ((static_cast<unsigned char>(desc[i]) & 0xC0) != 0x80) {
      if (code_points == 77) cut = i;
      ++code_points;
    }
  if (code_points <= 80) return std::string(desc);
  return std::string(desc.substr(0, cut)) + "...";
}

const std::vector<std::string>& l2tcsv_header() {
  static const std::vector<std::string> header = {"date",     "time",  "timezone", "MACB",   "source", "sourcetype",
                                                  "type",     "user",  "host",     "short",  "desc",   "version",
                                                  "filename", "inode", "notes",    "format", "extra"};
  return header;
}

std::optional<std::vector<std::string>> l2tcsv_fields(const rapidjson::Value& row, const DisplayZone& zone) {
  const auto time_utc = string_member(row, "time_utc");
  const auto local = time_utc ? zone.at(*time_utc) : std::nullopt;
  if (!local) return std::nullopt;
  const std::string kind(string_member(row, "kind").value_or("row"));
  const std::string time_source(string_member(row, "time_source").value_or("none"));
  const rapidjson::Value* source = member(row, "source");
  const rapidjson::Value* inode = source ? member(*source, "inode") : nullptr;
  // notes: plaso's tags; here the recovery class of a source that is not an allocated file.
  std::string notes = "-";
  if (source)
    if (auto recovery = string_member(*source, "recovery"); recovery && *recovery != "allocated")
      notes = "recovery: " + std::string(*recovery);
  const std::string extra = l2t_extra(row);
  std::string desc = row_message(row, kL2tDescBytes);
  std::string short_message = l2tcsv_short(desc);
  return std::vector<std::string>{
      local->date_mdy(),
      local->time_hms(),
      zone.name() == "UTC" ? std::string("UTC") : local->zone_abbreviation,  // plaso: tzname(), "UTC" for UTC
      macb(time_source),
      "LOG",                 // plaso's short source class for application logs
      "Roo Code " + kind,    // sourcetype: the long source name; the kind tells the rows apart
      "Roo " + time_source,  // type: the timestamp description, as timeline.jsonl's timestamp_desc
      text_or_dash(string_member(row, "user")),
      "-",  // host: the rows do not know the machine's name
      std::move(short_message),
      std::move(desc),
      "2",
      text_or_dash(source ? string_member(*source, "path") : std::nullopt),
      inode && !inode->IsNull() ? *value_text(*inode) : "-",
      notes,
      "roo_ingest",  // format: plaso's parser name
      extra.empty() ? "-" : extra};
}

const std::vector<std::string>& rows_csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = {"display_time", "display_utc_offset", "display_time_zone"};
    c.insert(c.end(), kCommonFields.begin(), kCommonFields.end());
    c.insert(c.end(), kKindFields.begin(), kKindFields.end());
    for (const std::string& s : kSourceFields) c.push_back("source_" + s);
    c.push_back("native");
    c.push_back("extra");
    return c;
  }();
  return columns;
}

std::vector<std::string> rows_csv_fields(const rapidjson::Value& row, const DisplayZone& zone) {
  const auto& index = column_index();
  std::vector<std::string> fields(rows_csv_columns().size());
  if (const auto time_utc = string_member(row, "time_utc"))
    if (const auto local = zone.at(*time_utc)) {
      fields[0] = local->date_iso() + " " + local->time_hms_ms();  // the form spreadsheets read as a date and time
      fields[1] = local->utc_offset();
      fields[2] = zone.name();
    }
  // Fields no column holds (a kind field newer than this list) keep their names and values in `extra`.
  rapidjson::StringBuffer extra_buf;
  rapidjson::Writer<rapidjson::StringBuffer> extra(extra_buf);
  bool any_extra = false;
  auto put = [&](const std::string& name, const rapidjson::Value& value) {
    auto it = index.find(name);
    if (it != index.end()) {
      fields[it->second] = value_text(value).value_or("");
      return;
    }
    if (!any_extra) extra.StartObject();
    any_extra = true;
    extra.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    value.Accept(extra);
  };
  for (const auto& m : row.GetObject()) {
    const std::string key(m.name.GetString(), m.name.GetStringLength());
    if (key == "source" && m.value.IsObject()) {
      for (const auto& s : m.value.GetObject())
        put("source." + std::string(s.name.GetString(), s.name.GetStringLength()), s.value);
    } else {
      put(key, m.value);
    }
  }
  if (any_extra) {
    extra.EndObject();
    fields.back().assign(extra_buf.GetString(), extra_buf.GetSize());
  }
  return fields;
}

namespace {

// The columns that row fields fill, looked up by name without building a string per field: top-level names (and,
// as rows_csv_fields reads them, "source.<key>"), and a source object's keys.
struct ColumnLookup {
  std::unordered_map<std::string_view, size_t> top, source;
  ColumnLookup() {
    for (const auto& [name, column] : column_index()) top.emplace(name, column);
    for (const std::string& name : kSourceFields) source.emplace(name, column_index().at("source." + name));
  }
};

}  // namespace

// rows_csv_fields' cells, written straight from the row's values: no string for each of the 240 columns (see
// append_csv_cell for what both saved). A field's last occurrence fills its column, as there.
void append_rows_csv_record(std::string& line, const rapidjson::Value& row, const DisplayZone& zone) {
  static const ColumnLookup lookup;
  static const size_t columns = rows_csv_columns().size();
  thread_local std::vector<const rapidjson::Value*> values;
  values.assign(columns, nullptr);
  rapidjson::StringBuffer extra_buf;
  rapidjson::Writer<rapidjson::StringBuffer> extra(extra_buf);
  bool any_extra = false;
  auto put_extra = [&](std::string_view prefix, const rapidjson::Value& name, const rapidjson::Value& value) {
    if (!any_extra) extra.StartObject();
    any_extra = true;
    std::string key(prefix);
    key.append(name.GetString(), name.GetStringLength());
    extra.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    value.Accept(extra);
  };
  for (const auto& m : row.GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key == "source" && m.value.IsObject()) {
      for (const auto& s : m.value.GetObject()) {
        auto it = lookup.source.find(std::string_view(s.name.GetString(), s.name.GetStringLength()));
        if (it != lookup.source.end())
          values[it->second] = &s.value;
        else
          put_extra("source.", s.name, s.value);
      }
    } else if (auto it = lookup.top.find(key); it != lookup.top.end()) {
      values[it->second] = &m.value;
    } else {
      put_extra("", m.name, m.value);
    }
  }
  std::optional<DisplayTime> local;
  if (const auto time_utc = string_member(row, "time_utc")) local = zone.at(*time_utc);
  if (local) {
    append_csv_cell(line, local->date_iso() + " " + local->time_hms_ms());
    line += ',';
    append_csv_cell(line, local->utc_offset());
    line += ',';
    append_csv_cell(line, zone.name());
  } else {
    line += ",,";
  }
  for (size_t i = 3; i + 1 < columns; ++i) {
    line += ',';
    const rapidjson::Value* v = values[i];
    if (!v || v->IsNull()) continue;
    if (v->IsString())
      append_csv_cell(line, std::string_view(v->GetString(), v->GetStringLength()));
    else
      append_csv_cell(line, json_text(*v));
  }
  line += ',';
  if (any_extra) {
    extra.EndObject();
    append_csv_cell(line, std::string_view(extra_buf.GetString(), extra_buf.GetSize()));
  }
  line += "\r\n";
}

std::unique_ptr<CountingWriter> make_l2tcsv_writer(const std::filesystem::path& out_file, const DisplayZone& zone) {
  return std::make_unique<L2tCsvWriter>(out_file, zone);
}

std::unique_ptr<CountingWriter> make_rows_csv_writer(const std::filesystem::path& out_file, const DisplayZone& zone) {
  return std::make_unique<RowsCsvWriter>(out_file, zone);
}

}  // namespace roo
