#include "plugin/formats/derive.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/json_records.h"
#include "plugin/formats/csv.h"
#include "plugin/formats/display_time.h"
#include "plugin/formats/html_report.h"
#include "plugin/formats/output_file.h"
#include "plugin/formats/sqlite_output.h"
#include "plugin/formats/timesketch.h"

namespace roo {

namespace fs = std::filesystem;

const std::vector<OutputFormatInfo>& output_formats() {
  static const std::vector<OutputFormatInfo> formats = {
      {"jsonl", "rows.jsonl", "one row per fact, the reference output (always written)"},
      {"body", "roo.body", "mactime body file (UTC)"},
      {"timesketch", "timeline.jsonl", "Timesketch JSONL, timed rows (UTC)"},
      {"l2tcsv", "l2t.csv", "log2timeline l2tcsv, 17 fields, timed rows (--tz)"},
      {"csv", "rows.csv", "every row and field, flat (--tz)"},
      {"sqlite", "roo.sqlite", "SQLite database (UTC)"},
      {"html", "report.html", "self-contained HTML report (times in the browser's zone)"},
      {"report", "report.json", "what was searched, found, skipped and failed (always written)"}};
  return formats;
}

std::optional<std::set<std::string>> parse_format_list(std::string_view list, std::string* error) {
  std::set<std::string> names;
  std::string known;
  for (const auto& f : output_formats()) known += (known.empty() ? "" : ", ") + std::string(f.name);
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string name;
    for (char c : list.substr(start, end - start))
      if (c != ' ' && c != '\t') name += c;
    start = end + 1;
    if (name.empty()) continue;
    if (name == "all") {
      for (const auto& f : output_formats()) names.insert(f.name);
      continue;
    }
    bool found = false;
    for (const auto& f : output_formats()) found = found || name == f.name;
    if (!found) {
      *error = "--format: unknown format \"" + name + "\"; the formats are " + known + " (or all)";
      return std::nullopt;
    }
    names.insert(name);
  }
  if (names.empty()) {
    *error = "--format: no format named; the formats are " + known + " (or all)";
    return std::nullopt;
  }
  return names;
}

bool is_derived_format(const std::string& name) {
  return name == "timesketch" || name == "l2tcsv" || name == "csv" || name == "sqlite" || name == "html";
}

namespace {

// Lines of rows.jsonl, one at a time: a line can be megabytes (a command's output) and the file hundreds of MB.
class LineReader {
 public:
  explicit LineReader(const fs::path& p) : file_(std::fopen(p.c_str(), "rb")) {}
  ~LineReader() {
    std::free(buf_);
    if (file_) std::fclose(file_);
  }
  bool ok() const { return file_ != nullptr; }
  // The next line without its '\n'; none at the end.
  std::optional<std::string_view> next() {
    ssize_t n = getline(&buf_, &cap_, file_);
    if (n < 0) return std::nullopt;
    if (n > 0 && buf_[n - 1] == '\n') --n;
    return std::string_view(buf_, static_cast<size_t>(n));
  }
  bool failed() const { return std::ferror(file_) != 0; }

 private:
  std::FILE* file_;
  char* buf_ = nullptr;
  size_t cap_ = 0;
};

}  // namespace

bool derive_outputs(const fs::path& rows_jsonl, const fs::path& dir, const std::set<std::string>& formats,
                    const FormatContext& ctx, DeriveResult* result, std::string* error, const DeriveProgress& progress) {
  // The display zone is set for the whole pass (and the process's TZ put back after it): declared before the
  // writers, so it outlives them.
  std::unique_ptr<DisplayZone> zone;
  if (formats.count("l2tcsv") || formats.count("csv")) {
    zone = DisplayZone::open(ctx.display_tz, error);
    if (!zone) return false;
  }
  struct Selected {
    const OutputFormatInfo* info;
    std::unique_ptr<FormatWriter> writer;
    CountingWriter* counts;  // the same writer, when it counts
  };
  std::vector<Selected> selected;
  for (const OutputFormatInfo& f : output_formats()) {
    const std::string name = f.name;
    if (!formats.count(name) || !is_derived_format(name)) continue;
    const fs::path file = dir / f.file;
    std::unique_ptr<CountingWriter> counting;
    std::unique_ptr<FormatWriter> writer;
    if (name == "timesketch") counting = make_timesketch_writer(file);
    if (name == "l2tcsv") counting = make_l2tcsv_writer(file, *zone);
    if (name == "csv") counting = make_rows_csv_writer(file, *zone);
    if (name == "sqlite") counting = make_sqlite_writer(file, ctx);
    if (name == "html") writer = make_html_report_writer(file, ctx);
    CountingWriter* counts = counting.get();
    if (counting) writer = std::move(counting);
    selected.push_back({&f, std::move(writer), counts});
  }

  LineReader in(rows_jsonl);
  if (!in.ok()) {
    *error = "cannot read " + rows_jsonl.string() + ": " + std::strerror(errno);
    return false;
  }
  uint64_t bytes_read = 0;
  while (auto line = in.next()) {
    bytes_read += line->size() + 1;
    if (progress && (result->rows_read & 1023) == 0) progress(bytes_read, result->rows_read, false);
    if (line->empty()) continue;
    rapidjson::Document row;  // one per line: its allocator frees the line's values when it goes
    // core's parser converts numbers exactly (RapidJSON's own conversion can be off in the last place), so a number
    // written back into timeline.jsonl or the CSVs is the one rows.jsonl holds.
    std::string why;
    if (!parse_json(line->data(), line->size(), row, &why) || !row.IsObject()) {
      ++result->lines_unreadable;
      continue;
    }
    ++result->rows_read;
    for (Selected& s : selected) s.writer->row(row, *line);
  }
  if (in.failed()) {
    *error = "cannot read " + rows_jsonl.string() + ": " + std::strerror(errno);
    return false;
  }
  if (progress) progress(bytes_read, result->rows_read, true);

  bool ok = true;
  for (Selected& s : selected) {
    std::string why;
    if (!s.writer->finish(&why) && ok) {
      *error = why.empty() ? "cannot write " + (dir / s.info->file).string() : why;
      ok = false;
    }
    DerivedOutput out{s.info->name, s.info->file, std::nullopt, std::nullopt, ""};
    if (s.counts) {
      out.rows_written = s.counts->rows_written();
      out.rows_left_out = s.counts->rows_left_out();
      if (s.counts->rows_left_out() > 0) out.left_out_reason = s.counts->left_out_reason();
    }
    result->outputs.push_back(std::move(out));
  }
  return ok;
}

}  // namespace roo
