// The output formats, one entry each: its --format name, the file it gives in OUTDIR, its line for --help, and,
// for the formats derived from rows.jsonl, the factory of its writer. --format parsing, the help text, derivation
// (derive.h) and report.json's "outputs" all read this list; adding a format is one entry in registry.cpp plus its
// writer's files (docs/output-formats.md, "How to add an output format").
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/formats/format_writer.h"

namespace roo {

class DisplayZone;

// Makes the writer of one derived format, writing out_file. zone is the --tz zone when the entry says it needs one,
// else nullptr.
using FormatWriterFactory = std::unique_ptr<FormatWriter> (*)(const std::filesystem::path& out_file,
                                                               const FormatContext& ctx, const DisplayZone* zone);

struct OutputFormatInfo {
  const char* name;  // what --format accepts
  const char* file;  // the file in OUTDIR
  const char* what;  // a line for --help
  // Derived from rows.jsonl after the workers have finished (derive.h): make is its writer's factory. The others
  // (rows.jsonl, roo.body, report.json) are written by the run itself, and make is nullptr.
  bool derived = false;
  bool needs_display_zone = false;  // shows times in --tz (the display zone is set for the whole derivation)
  FormatWriterFactory make = nullptr;
  // A folder in OUTDIR the format's writer fills beside its file (report.html's parts, report/), published and
  // replaced with it.
  const char* folder = nullptr;
};

// Every format, in the order outputs are listed and written: jsonl, body, timesketch, l2tcsv, csv, sqlite, html,
// report.
const std::vector<OutputFormatInfo>& output_formats();
// The entry of that name, or nullptr.
const OutputFormatInfo* find_output_format(std::string_view name);

// "timesketch,csv" (commas, spaces ignored; "all" = every format) as a set of names. None, with *error naming the
// unknown name and listing the known ones, when a name is not a format or the list is empty.
std::optional<std::set<std::string>> parse_format_list(std::string_view list, std::string* error);

// Whether the format of that name is read from rows.jsonl (timesketch, l2tcsv, csv, sqlite, html); jsonl, body and
// report are written by the run itself.
bool is_derived_format(const std::string& name);

}  // namespace roo
