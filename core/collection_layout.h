// A triage collection given to --dir: which collector made it, where each collected drive's files are, and the
// original times the collector recorded for them (docs/collectors.md "Reading a collection").
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.h"

namespace roo {

// The times a collector recorded for a file as they were on the drive it copied from (the copy's own times are the
// copy's).
struct OriginalTimes {
  std::optional<FsTime> mtime, atime, ctime, crtime;
};
// By the file's path on its drive: '/'-separated from the drive's root, lower-cased (Windows names compare without
// case; the collectors record them as the drive spelt them).
using OriginalTimesByPath = std::map<std::string, OriginalTimes>;

struct CollectedDrive {
  std::string drive;     // "C:" (a Windows drive letter) or "/" (a macOS or Linux root)
  std::string host_dir;  // the folder of the collection that holds it
  std::shared_ptr<const OriginalTimesByPath> times;  // null when the collector recorded none for it
};

struct CollectionLayout {
  std::string collector;  // "kape", "velociraptor"; empty: a plain folder (one file system at its root)
  bool encoded_names = false;  // Velociraptor %-encodes the characters a file name cannot hold ("C%3A")
  std::vector<CollectedDrive> drives;  // by drive, in name order
  std::vector<std::string> time_records;  // the collector's files the original times were read from
  std::vector<std::string> warnings;      // what in those records could not be read (their lines are skipped)
};

// KAPE: drive folders named by their letter at the top (<tdest>/C/Users/...) and <timestamp>_CopyLog.csv files
// beside them (CreatedOnUtc, ModifiedOnUtc, LastAccessedOnUtc of each SourceFile). Velociraptor: uploads/auto/C%3A/...
// (a Unix collection: uploads/auto/home/...), and the Generic.Forensic.RooCode artifact's result rows
// (results/Generic.Forensic.RooCode.json: OSPath, Mtime, Atime, Ctime, Btime). Anything else: a plain folder.
CollectionLayout detect_collection_layout(const std::string& folder);

// "C%3A" → "C:"; a name without a valid %XX is kept as it is.
std::string decode_collected_name(const std::string& name);

}  // namespace roo
