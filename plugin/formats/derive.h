// The outputs derived from rows.jsonl after the workers have finished: one reading pass, one parse per line, every
// selected format fed in file order (a sink only formats rows; it never makes them).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "plugin/formats/format_writer.h"
#include "plugin/formats/registry.h"

namespace roo {

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

// Reads rows_jsonl line by line and writes each selected derived format (registry.h) into dir under its final file
// name. Each line is parsed once, on the calling thread, and handed to every writer; each writer runs on a thread of
// its own and sees the rows in file order, so its file is the same as if the writers ran one after another. The
// rows in flight between the reader and the slowest writer are bounded in bytes (kDeriveInFlightBytes), so memory
// stays small however long a line is; once the reader has had to wait, it goes on when half of that is free. False, with *error, when an output could not be written (the first failing
// format in registry order).
// progress, when given, is called as lines are read: bytes of rows.jsonl read, rows read, and last = the end.
using DeriveProgress = std::function<void(uint64_t bytes_read, int64_t rows, bool last)>;
bool derive_outputs(const std::filesystem::path& rows_jsonl, const std::filesystem::path& dir,
                    const std::set<std::string>& formats, const FormatContext& ctx, DeriveResult* result,
                    std::string* error, const DeriveProgress& progress = {});

// What the reader may have parsed ahead of the slowest writer, counted as each line's bytes plus its parsed form
// (kDeriveRowOverheadBytes a row for the document's first allocation block, and twice the line for its values);
// one row is always let through, however large.
inline constexpr uint64_t kDeriveInFlightBytes = 16ull << 20;
inline constexpr uint64_t kDeriveRowOverheadBytes = 64ull << 10;

}  // namespace roo
