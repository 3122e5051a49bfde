// A plain folder (a triage collection or a mounted image) as a FileSystemView. Opened read-only; symbolic links
// are listed but never followed, so nothing outside the folder is read.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/collection_layout.h"
#include "core/evidence.h"

namespace roo {

// How a drive folder of a triage collection is read (docs/collectors.md "Reading a collection").
struct CollectedDriveOptions {
  std::string collector;  // "kape", "velociraptor"
  std::string evidence;   // the collection's name: the evidence id of its rows
  CollectedDrive drive;
  bool encoded_names = false;  // names %-decoded (Velociraptor's "C%3A", "%25")
  std::string times_from;      // what drive.times were read from, for the rows ("kape_copy_log", …)
};

class FolderFileSystem : public FileSystemView {
 public:
  explicit FolderFileSystem(std::string root_dir);
  // A drive of a collection: its files as they were on the drive (names decoded, the collector's recorded times).
  explicit FolderFileSystem(const CollectedDriveOptions& drive);
  const VolumeInfo& volume() const override { return volume_; }
  FileMeta root() override;
  std::vector<FileMeta> list_dir(const FileMeta& dir) override;
  std::unique_ptr<ByteSource> open(const FileMeta& file) override;
  std::vector<std::string> errors() const override { return errors_; }

 private:
  std::string host_path(const FileMeta& f);
  void apply_recorded_times(FileMeta& m) const;
  std::string root_dir_;
  std::optional<CollectedDriveOptions> collected_;
  std::map<std::string, std::string> host_dirs_;  // a decoded directory path → its folder on the host
  VolumeInfo volume_;
  std::vector<std::string> errors_;
};

// A file on the host read with pread; used by the folder view and by tests.
std::unique_ptr<ByteSource> open_host_file(const std::string& path, std::string* why);

}  // namespace roo
