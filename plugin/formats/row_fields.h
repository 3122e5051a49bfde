// Reading a parsed rows.jsonl line the way the derived formats need it: fields by name, values as text, and the
// one-line readable message timelines show.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>

namespace roo {

// The member, or nullptr when the row has none (or is not an object).
const rapidjson::Value* member(const rapidjson::Value& object, std::string_view key);
// A string member's value; none when absent, null or not a string.
std::optional<std::string_view> string_member(const rapidjson::Value& object, std::string_view key);

// A value as one text: a string as it is (embedded NULs kept), a number or boolean as rows.jsonl writes it, an
// object or array as compact JSON; none for null.
std::optional<std::string> value_text(const rapidjson::Value& value);
// Compact JSON of any value.
std::string json_text(const rapidjson::Value& value);

// At most max_bytes bytes, cut at a UTF-8 character boundary, with "…" appended when anything was cut.
std::string shorten(std::string_view s, size_t max_bytes);
// Control characters (newlines, tabs, NUL …) as spaces and each run of spaces as one, trimmed: for fields a
// timeline shows on one line.
std::string one_line(std::string_view s);
// shorten(one_line(s), max_bytes), reading s only as far as that needs.
std::string one_line_shortened(std::string_view s, size_t max_bytes);
// Appends one_line_shortened(s, max_bytes) to out.
void append_one_line_shortened(std::string& out, std::string_view s, size_t max_bytes);

// What a timeline shows for a row: "<kind>: <text>" on one line, the text (or, when it has none, the tool name)
// shortened to max_bytes; just "<kind>" when there is neither.
std::string row_message(const rapidjson::Value& row, size_t max_bytes);

}  // namespace roo
