// The outputs derived from rows.jsonl after the workers have finished: one reading pass, one parse per line, every
// selected format fed in file order (a sink only formats rows; it never makes them).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/formats/format_writer.h"

namespace roo {

// A name --format accepts, the file it gives in OUTDIR, and a line for --help.
struct OutputFormatInfo {
  const char* name;
  const char* file;
  const char* what;
};
// Every format, in the order outputs are listed and written: jsonl, body, timesketch, l2tcsv, csv, sqlite, html,
// report.
const std::vector<OutputFormatInfo>& output_formats();

// "timesketch,csv" (commas, spaces ignored; "all" = every format) as a set of names. None, with *error naming the
// unknown name and listing the known ones, when a name is not a format or the list is empty.
std::optional<std::set<std::string>> parse_format_list(std::string_view list, std::string* error);

// What one derived file holds, for report.json's "outputs".
struct DerivedOutput {
  std::string format, file;
  std::optional<int64_t> rows_written, rows_left_out;  // none when its writer does not count (the HTML report)
  std::string left_out_reason;
};

struct DeriveResult {
  int64_t rows_read = 0;
  int64_t lines_unreadable = 0;  // lines of rows.jsonl that are no JSON object (none, unless rows.jsonl is damaged)
  std::vector<DerivedOutput> outputs;
};

// The formats read from rows.jsonl (timesketch, l2tcsv, csv, sqlite, html); jsonl, body and report are written by
// the run itself.
bool is_derived_format(const std::string& name);

// Reads rows_jsonl line by line (one line in memory at a time) and writes each selected derived format into dir
// under its final file name. False, with *error, when an output could not be written.
// progress, when given, is called as lines are read: bytes of rows.jsonl read, rows read, and last = the end.
using DeriveProgress = std::function<void(uint64_t bytes_read, int64_t rows, bool last)>;
bool derive_outputs(const std::filesystem::path& rows_jsonl, const std::filesystem::path& dir,
                    const std::set<std::string>& formats, const FormatContext& ctx, DeriveResult* result,
                    std::string* error, const DeriveProgress& progress = {});

}  // namespace roo
