// A plain folder (a triage collection or a mounted image) as a FileSystemView. Opened read-only; symbolic links
// are listed but never followed, so nothing outside the folder is read.
#pragma once

#include <memory>
#include <string>

#include "core/evidence.h"

namespace roo {

class FolderFileSystem : public FileSystemView {
 public:
  explicit FolderFileSystem(std::string root_dir);
  const VolumeInfo& volume() const override { return volume_; }
  FileMeta root() override;
  std::vector<FileMeta> list_dir(const FileMeta& dir) override;
  std::unique_ptr<ByteSource> open(const FileMeta& file) override;
  std::vector<std::string> errors() const override { return errors_; }

 private:
  std::string host_path(const FileMeta& f) const;
  std::string root_dir_;
  VolumeInfo volume_;
  std::vector<std::string> errors_;
};

// A file on the host read with pread; used by the folder view and by tests.
std::unique_ptr<ByteSource> open_host_file(const std::string& path, std::string* why);

}  // namespace roo
