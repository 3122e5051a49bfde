#include "plugin/formats/registry.h"

#include "plugin/formats/csv.h"
#include "plugin/formats/html_report.h"
#include "plugin/formats/sqlite_output.h"
#include "plugin/formats/timesketch.h"

namespace roo {

const std::vector<OutputFormatInfo>& output_formats() {
  using Path = std::filesystem::path;
  static const std::vector<OutputFormatInfo> formats = {
      {"jsonl", "rows.jsonl", "one row per fact, the reference output (always written)"},
      {"body", "roo.body", "mactime body file (UTC)"},
      {"timesketch", "timeline.jsonl", "Timesketch JSONL, timed rows (UTC)", true, false,
       [](const Path& file, const FormatContext&, const DisplayZone*) -> std::unique_ptr<FormatWriter> {
         return make_timesketch_writer(file);
       }},
      {"l2tcsv", "l2t.csv", "log2timeline l2tcsv, 17 fields, timed rows (--tz)", true, true,
       [](const Path& file, const FormatContext&, const DisplayZone* zone) -> std::unique_ptr<FormatWriter> {
         return make_l2tcsv_writer(file, *zone);
       }},
      {"csv", "rows.csv", "every row and field, flat (--tz)", true, true,
       [](const Path& file, const FormatContext&, const DisplayZone* zone) -> std::unique_ptr<FormatWriter> {
         return make_rows_csv_writer(file, *zone);
       }},
      {"sqlite", "roo.sqlite", "SQLite database (UTC)", true, false,
       [](const Path& file, const FormatContext& ctx, const DisplayZone*) -> std::unique_ptr<FormatWriter> {
         return make_sqlite_writer(file, ctx);
       }},
      {"html", "report.html", "HTML report, offline: report.html and its rows in report/ (times in --tz)", true, false,
       [](const Path& file, const FormatContext& ctx, const DisplayZone*) -> std::unique_ptr<FormatWriter> {
         return make_html_report_writer(file, ctx);
       },
       kHtmlPartsFolder},
      {"report", "report.json", "what was searched, found, skipped and failed (always written)"}};
  return formats;
}

const OutputFormatInfo* find_output_format(std::string_view name) {
  for (const OutputFormatInfo& f : output_formats())
    if (name == f.name) return &f;
  return nullptr;
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
    if (!find_output_format(name)) {
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
  const OutputFormatInfo* f = find_output_format(name);
  return f && f->derived;
}

}  // namespace roo
