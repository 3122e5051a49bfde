#include "plugin/file_copy.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace roo {

bool copy_range(int out_fd, int in_fd, uint64_t begin, uint64_t end) {
  loff_t at = static_cast<loff_t>(begin);
  while (static_cast<uint64_t>(at) < end) {
    const size_t left = static_cast<size_t>(end - static_cast<uint64_t>(at));
    const ssize_t n = copy_file_range(in_fd, &at, out_fd, nullptr, left, 0);
    if (n > 0) continue;
    if (n == 0 || (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)) return false;
    char buf[1 << 16];  // the kernel cannot copy between these files: do it here
    while (static_cast<uint64_t>(at) < end) {
      const ssize_t r = pread(in_fd, buf, std::min<uint64_t>(sizeof buf, end - static_cast<uint64_t>(at)), at);
      if (r <= 0 || write(out_fd, buf, static_cast<size_t>(r)) != r) return false;
      at += r;
    }
  }
  return true;
}

}  // namespace roo
