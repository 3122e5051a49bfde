// The display and exchange formats (Timesketch JSONL, l2tcsv, flat CSV, SQLite, HTML) are all derived from
// rows.jsonl, the reference output, after the workers have finished: one reading pass feeds every writer, so each
// format says exactly what rows.jsonl says and no parser knows any format. (roo.body stays written by the workers,
// since a crashed worker's body lines are cut with its rows.)
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace roo {

// What a format may need beyond the rows.
struct FormatContext {
  std::string display_tz = "UTC";  // --tz: the zone display formats (HTML, l2tcsv, CSV) show times in
  std::string report_json;         // report.json's text (evidence, partitions, roots searched, counts)
  std::string tool_version;        // ROO_INGEST_VERSION
};

class FormatWriter {
 public:
  virtual ~FormatWriter() = default;
  // One row of rows.jsonl in file order: parsed, and its line as written (without the newline).
  virtual void row(const rapidjson::Value& row, std::string_view line) = 0;
  // Writes what is left and closes the output; false with *error set when it could not be written.
  virtual bool finish(std::string* error) = 0;
};

}  // namespace roo
