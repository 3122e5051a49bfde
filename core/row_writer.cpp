#include "core/row_writer.h"
#include "core/progress_beats.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace roo {

void RowWriter::emit(const Row& row) {
  count_progress(1);
  size_t sha_at = 0;
  const uint64_t pending_at = written_;  // the file offset pending_ starts at, before a long row is drained
  append_row_json_line(row, pending_, &sha_at, this);
  const uint64_t sha_in_file = pending_at + sha_at;
  if (sha_in_file >= written_)
    pending_placeholders_.push_back(static_cast<size_t>(sha_in_file - written_));
  else
    spilled_placeholders_.push_back(sha_in_file);  // written with the row's head: patched in place
  if (pending_.size() >= kMaxPendingBytes) spill();
}

void RowWriter::spill() {
  for (size_t at : pending_placeholders_) spilled_placeholders_.push_back(written_ + at);
  write_pending();
}

void RowWriter::write_pending() {
  if (std::fwrite(pending_.data(), 1, pending_.size(), out_) != pending_.size()) ok_ = false;
  written_ += pending_.size();
  pending_.clear();
  pending_placeholders_.clear();
}

void RowWriter::end_source(const std::string& sha256_hex) {
  const std::string value = sha256_json_value(sha256_hex);
  for (size_t at : pending_placeholders_) pending_.replace(at, value.size(), value);
  write_pending();
  if (std::fflush(out_) != 0) ok_ = false;
  const int fd = fileno(out_);
  for (uint64_t at : spilled_placeholders_)
    if (pwrite(fd, value.data(), value.size(), static_cast<off_t>(at)) != static_cast<ssize_t>(value.size()))
      ok_ = false;
  spilled_placeholders_.clear();
}

void cut_unfinished_rows(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  // Keep everything up to the last newline before the first placeholder byte (or the last newline at all).
  char buf[1 << 16];
  off_t pos = 0, last_newline_end = 0;
  for (ssize_t n; (n = pread(fd, buf, sizeof buf, pos)) > 0; pos += n) {
    const char* mark = static_cast<const char*>(std::memchr(buf, '\x01', static_cast<size_t>(n)));
    const ssize_t scan_to = mark ? mark - buf : n;
    for (ssize_t i = 0; i < scan_to; ++i)
      if (buf[i] == '\n') last_newline_end = pos + i + 1;
    if (mark) break;
  }
  if (ftruncate(fd, last_newline_end) != 0) {
    // nothing more can be done; the parent reports the crash either way
  }
  close(fd);
}

}  // namespace roo
