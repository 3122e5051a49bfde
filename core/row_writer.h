// Writes rows as JSONL, source file by source file. A source's rows are produced while its bytes are still being
// read, so its sha256 is not known yet: they are held (in memory, spilling to a scratch file past a limit) and
// written with the digest patched in once the whole file has been hashed. One read of the evidence, not two.
#pragma once

#include <cstdio>
#include <map>
#include <string>

#include "core/row.h"

namespace roo {

class RowWriter : public RowSink {
 public:
  // out: the JSONL stream. scratch_dir: where a large source's pending rows may spill (inside the output dir).
  RowWriter(std::FILE* out, std::string scratch_dir, size_t memory_limit = 16u << 20);
  ~RowWriter() override;
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;

  void emit(const Row& row) override;
  // Writes every row held since the previous call, with this source's sha256.
  void end_source(const std::string& sha256_hex) override;
  // Flush the output after every source, so a process that dies later keeps every finished source's rows.
  void set_flush_each_source(bool on) { flush_each_source_ = on; }
  const std::map<std::string, int64_t>& counts() const { return counts_; }
  bool ok() const { return ok_; }

 private:
  void spill();
  std::FILE* out_;
  std::string scratch_dir_;
  size_t memory_limit_;
  std::string pending_;
  std::FILE* spill_ = nullptr;
  bool spilled_ = false;
  bool ok_ = true;
  bool flush_each_source_ = false;
  std::map<std::string, int64_t> counts_;
};

}  // namespace roo
