// The mactime body file (TSK 3.x format, reference/tsk.md §3.1), derived from rows.jsonl line by line.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include <rapidjson/document.h>

namespace roo {

// One body line for one row (a JSONL line), or nothing when the row has no time: mactime needs a non-zero time and
// a time is never invented. The event time goes in all four time columns, so mactime shows one "macb" line per
// row (a zero column would print as its own 0000-00-00 line); the name says
// "roo-code <kind> [<task>]: <text> (<source path>)".
std::optional<std::string> body_line_for_row(const rapidjson::Value& row);

// Escapes what mactime's read_body would misread: '|' splits fields, '%' starts an escape, control bytes break
// lines.
std::string body_escape(const std::string& s);

}  // namespace roo
