// Copying bytes between the run's own files (part files joined into rows.jsonl and roo.body).
#pragma once

#include <cstdint>

namespace roo {

// Appends [begin, end) of in_fd to out_fd at its file position, inside the kernel (copy_file_range) where it can,
// by read/write where the kernel cannot copy between the two files. False on an error or when in_fd ends before
// `end`.
bool copy_range(int out_fd, int in_fd, uint64_t begin, uint64_t end);

}  // namespace roo
