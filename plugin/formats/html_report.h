// report.html: one self-contained page (no network: a Content-Security-Policy forbids every fetch) that shows the
// rows per user and per task, the conversation of each task, the configuration rows of each user, a timeline of
// activity across tasks, a search box, and report.json's evidence and completeness statement (docs/html-report.md).
//
// The page's HTML/CSS/JS is plugin/formats/report_template.html, embedded at build time. This writer only streams
// the data into it: rows go into the page as they come, in <script type="application/json"> chunks, so a 270 MB
// rows.jsonl is never held in memory. Evidence text may hold "</script>", HTML or JS: in the data every '<', '>'
// and '&' is a \u escape, and the page builds its DOM with textContent only, so no evidence byte is ever markup.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "plugin/formats/format_writer.h"

namespace roo {

// A string longer than this (bytes) is cut in the page, with a note naming the bytes left out and the row_id to
// look up in rows.jsonl; and once a row has put this many bytes of strings into the page, each further string of
// that row is cut at kHtmlRowTailBytes. An array keeps its first kHtmlArrayItems items (then a note string).
inline constexpr size_t kHtmlTextBytes = 4000;
inline constexpr size_t kHtmlRowBudgetBytes = 32000;
inline constexpr size_t kHtmlRowTailBytes = 200;
inline constexpr size_t kHtmlArrayItems = 500;

// s cut at a UTF-8 character boundary at or before max_bytes, followed by
// "… N more bytes — full text in rows.jsonl row_id X"; s itself when it fits.
std::string html_truncated_text(std::string_view s, size_t max_bytes, std::string_view row_id);

// JSON text made safe inside <script type="application/json">: '<', '>' and '&' (which JSON allows only inside
// strings) become \u003c, \u003e, \u0026, so no "</script", "<!--" or "<script" can end or bend the element.
std::string html_script_safe_json(std::string_view json);

// The folder beside report.html that holds its parts (the rows of each task, of the configuration, of each kind).
inline constexpr const char* kHtmlPartsFolder = "report";

std::unique_ptr<FormatWriter> make_html_report_writer(const std::filesystem::path& out_file, const FormatContext& ctx);

}  // namespace roo
