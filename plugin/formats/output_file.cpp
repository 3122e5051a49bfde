#include "plugin/formats/output_file.h"

#include <cerrno>
#include <cstring>

namespace roo {

OutputFile::OutputFile(std::filesystem::path path) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) {
    errno_ = errno;
    return;
  }
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);  // hundreds of MB: few large writes, not many small ones
}

OutputFile::~OutputFile() {
  if (file_) std::fclose(file_);
}

void OutputFile::write(std::string_view bytes) {
  if (!file_ || errno_ != 0 || bytes.empty()) return;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) errno_ = errno ? errno : EIO;
}

bool OutputFile::close(std::string* error) {
  if (file_) {
    if (std::fclose(file_) != 0 && errno_ == 0) errno_ = errno ? errno : EIO;
    file_ = nullptr;
  }
  if (errno_ == 0) return true;
  *error = "cannot write " + path_.string() + ": " + std::strerror(errno_);
  return false;
}

}  // namespace roo
