#include "core/row_writer.h"

#include <cstdlib>
#include <unistd.h>

namespace roo {

RowWriter::RowWriter(std::FILE* out, std::string scratch_dir, size_t memory_limit)
    : out_(out), scratch_dir_(std::move(scratch_dir)), memory_limit_(memory_limit) {}

RowWriter::~RowWriter() {
  if (spill_) std::fclose(spill_);
}

void RowWriter::emit(const Row& row) {
  ++counts_[row.kind];
  pending_ += row_to_json_line(row);
  if (pending_.size() > memory_limit_) spill();
}

void RowWriter::spill() {
  if (!spill_) {
    // An unlinked scratch file inside the output dir: nothing is written beside the evidence, and nothing is left
    // behind if the run is killed.
    std::string templ = scratch_dir_ + "/.rows-spill-XXXXXX";
    int fd = mkstemp(templ.data());
    if (fd < 0) {
      ok_ = false;
      return;  // keep rows in memory rather than lose them
    }
    unlink(templ.c_str());
    spill_ = fdopen(fd, "w+b");
  }
  if (std::fwrite(pending_.data(), 1, pending_.size(), spill_) != pending_.size()) ok_ = false;
  pending_.clear();
  spilled_ = true;
}

void RowWriter::end_source(const std::string& sha256_hex) {
  if (spilled_) {
    // Re-read the spill in chunks. A placeholder may straddle a chunk end, so the last kShaPlaceholderLength-1
    // bytes of each chunk are carried into the next before patching.
    std::fflush(spill_);
    std::rewind(spill_);
    std::string carry, chunk(1 << 20, '\0');
    size_t n;
    while ((n = std::fread(chunk.data(), 1, chunk.size(), spill_)) > 0) {
      carry.append(chunk.data(), n);
      patch_sha256(carry, sha256_hex);
      size_t keep = std::min(carry.size(), kShaPlaceholderLength - 1);
      std::fwrite(carry.data(), 1, carry.size() - keep, out_);
      carry.erase(0, carry.size() - keep);
    }
    pending_.insert(0, carry);
    if (std::fflush(spill_) != 0 || ftruncate(fileno(spill_), 0) != 0) ok_ = false;
    std::rewind(spill_);
    spilled_ = false;
  }
  patch_sha256(pending_, sha256_hex);
  if (std::fwrite(pending_.data(), 1, pending_.size(), out_) != pending_.size()) ok_ = false;
  pending_.clear();
  if (flush_each_source_ && std::fflush(out_) != 0) ok_ = false;
}

}  // namespace roo
