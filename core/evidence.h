// The Evidence seam: everything after discovery sees a file system only through this interface, so the
// parsers and the catalog run the same on a libtsk image (tsk_glue/) and on a plain folder (core/folder_evidence).
// core/ knows nothing of libtsk; tsk_glue/ implements these classes on top of it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roo {

// A file-system time: seconds since the Unix epoch (UTC) plus nanoseconds when the file system keeps them.
struct FsTime {
  int64_t seconds = 0;
  uint32_t nanos = 0;
  bool operator==(const FsTime&) const = default;
};

// How a file came to be read. The string forms are part of the row contract (source.recovery).
enum class Recovery { allocated, deleted, orphan, temp_leftover, carved, slack, snapshot };
const char* recovery_name(Recovery r);

// A local snapshot of an APFS volume (an older state of it, docs/row-contract.md "APFS snapshots").
struct SnapshotRef {
  std::string name;
  uint64_t xid = 0;               // the transaction it keeps
  std::optional<FsTime> created;  // its creation time
  bool operator==(const SnapshotRef&) const = default;
};

// One name in a directory, with what its metadata says. Copied out of the file system, never a live handle.
struct FileMeta {
  std::string path;  // full path inside the file system, '/'-separated, starting with '/'
  std::string name;
  bool is_dir = false;
  std::optional<uint64_t> inode;     // meta address (ext inode, NTFS MFT entry, FAT dir-entry address)
  std::optional<uint32_t> meta_seq;  // NTFS sequence number of the name's reference
  std::string attr;                  // attribute read, e.g. "128-4" on NTFS; empty when the FS has one stream
  bool name_allocated = true;
  bool meta_allocated = true;
  bool reallocated = false;  // deleted name whose meta is allocated again (or NTFS seq mismatch): content untrusted
  std::optional<uint64_t> size;
  std::optional<FsTime> mtime, atime, ctime, crtime;
  Recovery recovery = Recovery::allocated;
  // Read from this snapshot of the volume, not from the live file system (recovery snapshot, name_allocated false:
  // the live file system has no name for these bytes).
  std::optional<SnapshotRef> snapshot;
  // The snapshots whose copy of this file at this path has the very same extents (so the same bytes): not read
  // again, each of the file's rows names them in also_in.
  std::vector<SnapshotRef> same_in_snapshots;
  // Where the four times come from when not from the file system itself: in a triage collection the collector's
  // record of the original file ("kape_copy_log", "velociraptor_results") or, without one, the copy ("copy").
  std::string times_from;
};

// Random-access bytes of one file. Reads never modify the evidence.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads up to len bytes at offset; returns the count read (0 at end of file) or -1 on a read error,
  // with error() saying why.
  virtual int64_t read_at(uint64_t offset, char* buf, size_t len) = 0;
  virtual std::string error() const { return {}; }
};

// Bytes already in memory (a carved value, a file read whole) read as a source; they must outlive it.
class MemoryBytes : public ByteSource {
 public:
  explicit MemoryBytes(std::string_view data) : data_(data) {}
  uint64_t size() const override { return data_.size(); }
  int64_t read_at(uint64_t offset, char* buf, size_t len) override {
    if (offset >= data_.size()) return 0;
    const size_t n = std::min<size_t>(len, data_.size() - offset);
    std::memcpy(buf, data_.data() + offset, n);
    return static_cast<int64_t>(n);
  }

 private:
  std::string_view data_;
};

// A volume inside a pool container (APFS): which one, named as the container lists it. The container itself is
// located by VolumeInfo::partition_offset (the partition, or 0 for an image of the container alone).
struct PoolVolumeRef {
  std::string uuid;  // the volume superblock's UUID, lower-case with dashes
  std::string name;  // its name (apfs_volname)
  std::string role;  // its role (docs/row-contract.md "APFS volumes"): "system", "data", "preboot", …, or "none"
  uint64_t block = 0;  // the container block of its superblock (libtsk's pool volume block, `fls -B`)
  int index = 0;       // its position in the container: roo.body's and the summary's prefix /p<partition>v<index>/
};

// A drive of a triage collection (core/collection_layout.h): which collector copied it, and its letter ("C:") or "/".
struct CollectionDriveRef {
  std::string collector;
  std::string drive;
};

// Where a file system sits: the locator every row's provenance starts from.
struct VolumeInfo {
  std::string evidence;                 // evidence id: basename of the first image segment, or of --dir
  std::vector<std::string> image_paths; // as given on the command line (empty for a folder)
  std::optional<uint64_t> partition_offset;  // byte offset of the file system in the image
  std::string fs_type;                  // libtsk's name ("ext4", "ntfs", "fat32", …) or "folder"
  int volume_index = 0;                 // position of the partition in the volume system walk
  std::optional<PoolVolumeRef> pool_volume;  // set when the file system is a volume of an APFS container
  std::optional<CollectionDriveRef> collection;  // set when the folder is a drive of a triage collection
};

// One file system (or folder) seen through names and metadata.
class FileSystemView {
 public:
  virtual ~FileSystemView() = default;
  virtual const VolumeInfo& volume() const = 0;
  virtual FileMeta root() = 0;
  // Every name in dir, allocated and deleted, sorted by name (byte order) so runs are repeatable.
  // A directory that cannot be read yields an empty list and error_count() goes up.
  virtual std::vector<FileMeta> list_dir(const FileMeta& dir) = 0;
  virtual std::unique_ptr<ByteSource> open(const FileMeta& file) = 0;
  // The regular files libtsk lists in $OrphanFiles (--deep): unallocated metadata no name reaches, because
  // its directory is gone. Named by the name the metadata keeps (NTFS $FILE_NAME) or OrphanFile-<inode>; path
  // "/$OrphanFiles/<name>", recovery orphan; sorted by metadata address. libtsk finds them by walking every
  // unallocated metadata entry, so only --deep asks. A folder has none.
  virtual std::vector<FileMeta> list_orphans() { return {}; }
  // Directories or files that could not be read, for the run report.
  virtual std::vector<std::string> errors() const { return {}; }
};

}  // namespace roo
