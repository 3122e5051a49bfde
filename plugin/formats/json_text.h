// JSON text of parsed rows, written into a string: byte for byte what RapidJSON's Writer (UTF-8 in and out, default
// flags, as the formats used before) writes for the same value, but each run of a string that needs no escape is
// copied whole (core's json_string_stop) instead of byte by byte. In perf the Timesketch writer spent 28% of its
// CPU in the Writer's string escaping and the HTML writer 30% there and in making the text script-safe after; with
// these they took 16% and 19% less CPU on the benchmark image (derive_bench).
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace roo {

// How a string is escaped: as RapidJSON's Writer does ('"', '\\', and control bytes below 0x20 as \b \t \n \f \r or
// \u00XX with upper-case hex; every other byte, 0x7F and bytes of invalid UTF-8 included, as it is), and for
// ScriptSafe also '<', '>' and '&' as \u003c, \u003e and \u0026, so the text can sit in an HTML <script> element
// (html_script_safe_json of the Writer's text).
enum class JsonEscape { Writer, ScriptSafe };

// Appends s as a JSON string, quotes included.
void append_json_string(std::string& out, std::string_view s, JsonEscape escape = JsonEscape::Writer);
// Appends v as compact JSON (objects' members in their order).
void append_json(std::string& out, const rapidjson::Value& v, JsonEscape escape = JsonEscape::Writer);

}  // namespace roo
