// The mactime body file (TSK 3.x format, reference/tsk.md §3.1), derived from rows.jsonl line by line.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include <rapidjson/document.h>

namespace roo {

// One body line for one row (a JSONL line), or nothing when the row has no time: mactime needs a non-zero time and
// a time is never invented. The event time goes in the mtime column only (it is a Roo record time, not a file MAC
// time); the name says "roo-code <kind>: <text> (<source path>)".
std::optional<std::string> body_line_for_row(const rapidjson::Value& row);

// Escapes what mactime's read_body would misread: '|' splits fields, '%' starts an escape, control bytes break
// lines.
std::string body_escape(const std::string& s);

}  // namespace roo
