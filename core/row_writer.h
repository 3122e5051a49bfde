// Writes rows as JSONL. A source's rows are produced while its bytes are still being read, so its sha256 is not
// known yet: each row holds a fixed-width placeholder for the digest. A source's rows are gathered in memory and
// the digest is put in before they are written; only a source whose rows outgrow kMaxPendingBytes has its earlier
// rows written ahead with the placeholder, patched in place (pwrite) when the source ends. One read of the
// evidence, one write of the rows, and memory that does not grow with the file.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/row.h"

namespace roo {

class RowWriter : public RowSink, private RowDrain {
 public:
  // out must be a regular file opened for writing (the digests are patched through its descriptor).
  explicit RowWriter(std::FILE* out) : out_(out) {}
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;

  void emit(const Row& row) override;
  // Patches this source's sha256 into its rows and flushes, so a process that dies later keeps every finished
  // source's rows complete. Rows of an unfinished source still hold the placeholder (a byte 0x01, which no
  // serialised row contains otherwise): cut_unfinished_rows() drops them.
  void end_source(const std::string& sha256_hex) override;
  bool ok() const { return ok_; }
  // Every row emitted so far is written out whole, its digest in place: no source is under way.
  bool between_sources() const { return pending_.empty() && spilled_placeholders_.empty(); }

 private:
  static constexpr size_t kMaxPendingBytes = 8u << 20;
  void spill();          // writes the pending rows ahead, placeholders and all
  void drain(std::string&) override { spill(); }  // a long row's bytes so far (they are pending_)
  void write_pending();  // writes the pending rows as they are

  std::FILE* out_;
  uint64_t written_ = 0;
  std::string pending_;                         // this source's rows not written yet
  std::vector<size_t> pending_placeholders_;    // offsets of their digest placeholders in pending_
  std::vector<uint64_t> spilled_placeholders_;  // file offsets of this source's placeholders already written
  bool ok_ = true;
};

// Truncates a rows file after the last row of the last finished source (see RowWriter::end_source).
void cut_unfinished_rows(const std::string& path);

}  // namespace roo
