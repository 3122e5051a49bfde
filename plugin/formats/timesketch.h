// timeline.jsonl: one Timesketch event per timed row (docs/output-formats.md; Timesketch "Create timeline from
// JSON/JSONL/CSV file"). Timesketch needs message, datetime and timestamp_desc; an untimed row has no datetime and
// is left out (counted in report.json), as a time is never made up.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "plugin/formats/output_file.h"

namespace roo {

// How long a message may get before it is shortened ("…"); the whole text stays in the event's `text` field.
inline constexpr size_t kTimesketchMessageBytes = 300;

// The event line (without newline) for one row, or none for a row without time_utc:
//   message         "<kind>: <text>", one line, shortened
//   datetime        ISO 8601 UTC with offset: 2026-03-01T02:22:45.639+00:00
//   timestamp       microseconds since the epoch (integer)
//   timestamp_desc  "Roo <time_source>", e.g. "Roo ui.ts"
//   data_type       "roo:<kind>"
// then every non-null row field in row order: `source` as source_<key> (source_path, source_inode …), objects and
// arrays (tool_input, hunks, todos …) as compact JSON text, so one field never needs two index mappings; a row
// field named like one of the five above is written as row_<name>.
std::optional<std::string> timesketch_line(const rapidjson::Value& row);
// Appends timesketch_line(row) to out; false (out unchanged) for a row without time_utc.
bool append_timesketch_line(std::string& out, const rapidjson::Value& row);

std::unique_ptr<CountingWriter> make_timesketch_writer(const std::filesystem::path& out_file);

}  // namespace roo
