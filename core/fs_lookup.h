// Finding files in a FileSystemView by name: the catalog's patterns matched against directory listings (children,
// resolve; one ListingCache per scan lists each directory once), a directory a setting names by its recorded path
// (find_directory), and a small file's whole bytes. Discovery and the store readers both walk with these.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/evidence.h"
#include "core/json_records.h"

namespace roo {

// A view that lists each directory once: discovery resolves many catalog patterns through the same directories (a
// home, .config, a workspaceStorage/<hash> and the files beside its state.vscdb), and a listing reads every entry's
// metadata. A listing is kept only when the underlying view reported no error while making it (errors() did not
// grow), so a directory that cannot be read is listed again each time and its errors are reported as often as
// before. Listings are the view's, whole (allocated, deleted and reallocated names): callers filter as before.
// Everything else is passed through. One per scan (not shared between threads); the evidence does not change while
// it lives. A listing of more than kMaxKeptEntries names is not kept either: the directories listed again are small
// (a home, .config, a workspaceStorage/<hash>), and a temp folder of 100,000 files held for the whole scan would
// cost tens of MB of memory for nothing.
class ListingCache : public FileSystemView {
 public:
  static constexpr size_t kMaxKeptEntries = 4096;
  explicit ListingCache(FileSystemView& base) : base_(base) {}
  const VolumeInfo& volume() const override { return base_.volume(); }
  FileMeta root() override { return base_.root(); }
  std::vector<FileMeta> list_dir(const FileMeta& dir) override {
    std::vector<FileMeta> scratch;
    const std::vector<FileMeta>& l = listing(dir, scratch);
    if (&l == &scratch) return scratch;  // not kept: moved out
    return l;
  }
  std::unique_ptr<ByteSource> open(const FileMeta& file) override { return base_.open(file); }
  std::vector<FileMeta> list_orphans() override { return base_.list_orphans(); }
  std::vector<std::string> errors() const override { return base_.errors(); }
  // dir's listing: the kept one, or a new one (kept when it raised no error; else left in scratch and returned).
  const std::vector<FileMeta>& listing(const FileMeta& dir, std::vector<FileMeta>& scratch);
  FileSystemView& base() { return base_; }

 private:
  FileSystemView& base_;
  // A listing depends on the directory's metadata address and its path (the children's paths are built from it).
  std::map<std::pair<std::optional<uint64_t>, std::string>, std::vector<FileMeta>> kept_;
};

// dir's listing through fs: a ListingCache's kept one without a copy, else fs.list_dir(dir) (left in scratch).
const std::vector<FileMeta>& dir_listing(FileSystemView& fs, const FileMeta& dir, std::vector<FileMeta>& scratch);

// Allocated children of dir whose name matches pattern case-insensitively (NTFS, FAT and HFS+ ignore case, and a
// pattern's case can differ from what the user's system wrote); "*" matches every child, "prefix*" every child
// whose name starts with prefix.
std::vector<FileMeta> children(FileSystemView& fs, const FileMeta& dir, const std::string& pattern, bool dirs_only,
                               bool with_deleted = false);
// FAT marks a deleted entry by overwriting the first byte of its 8.3 name with 0xE5, which libtsk lists as '_': a
// deleted name that had no long name ("tasks") reads "_asks". children() matches such an entry by the rest of its
// name, on FAT12/16/32 only; the rows read through it carry name_match = kNameMatchFirstByteLost.
inline constexpr std::string_view kNameMatchFirstByteLost = "first byte lost (FAT deleted entry)";
// Whether a path found by following segments (the last components of path, one per segment) went through such an
// entry: a component that differs from its literal segment.
bool path_lost_first_byte(const std::string& path, const std::vector<std::string>& segments);
// Every directory reached by following segments from start.
std::vector<FileMeta> resolve(FileSystemView& fs, const FileMeta& start, const std::vector<std::string>& segments,
                              bool with_deleted = false);

// The whole file, read through the hashing stream (so its digest is the file's), up to the shared record cap.
std::optional<std::string> read_whole(HashingStream& in);

// A file's bytes read whole (read_whole); empty when it cannot be opened or is larger than the cap.
std::string read_file_bytes(FileSystemView& fs, const FileMeta& file);

// Where a recorded path (POSIX, or Windows with or without a drive letter) is in this file system: the directory
// reached from its root by the path's segments, matched case-insensitively. A drive letter cannot be tied to a
// volume from the file system alone, so it is dropped and the path is looked up here; how it was resolved is said
// in the report.
std::optional<FileMeta> find_directory(FileSystemView& fs, std::string_view recorded_path);

}  // namespace roo
