// Finding and reading a file of a FileSystemView by what a store records: a directory a settings file names by
// its path, and a small file's whole bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/evidence.h"
#include "core/json_records.h"

namespace roo {

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
