// The mactime body file (TSK 3.x format, the one mactime reads): one line per timed row.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "core/row.h"

namespace roo {

// The body-file time of a row (epoch seconds), when it gets a line at all: mactime needs a time after the epoch.
std::optional<int64_t> body_time(const Row& row);

// Escapes what mactime's read_body would misread: '|' splits fields, '%' starts an escape, control bytes break
// lines.
std::string body_escape(const std::string& s);

// Writes one body line per row it is given, and nothing for a row without a time: mactime needs a non-zero time and
// a time is never invented. The event time goes in all four time columns, so mactime shows one "macb" line per row
// (a zero column would print as its own 0000-00-00 line); the name says
// "roo-code <kind> [<task>]: <text> (<source path>)".
class BodyFileWriter : public RowSink {
 public:
  explicit BodyFileWriter(std::FILE* out) : out_(out) {}
  void emit(const Row& row) override;
  // Flushes, so a worker that dies later keeps the lines of every finished source (see RowWriter::end_source).
  void end_source(const std::string& sha256_hex) override;
  bool ok() const { return ok_; }

 private:
  std::FILE* out_;
  bool ok_ = true;
  std::string line_, name_;  // reused for every row: a line costs no allocation
};

}  // namespace roo
