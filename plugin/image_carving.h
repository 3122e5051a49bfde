// --deep carving (docs/row-contract.md "Carved records"): after a file system's scan, its free blocks and the slack of
// the Roo files it read are carved for Roo records (core/record_carver.h); the image's unpartitioned space once per
// image.
// Threads split the byte runs; rows come out in image-offset order whatever the threads do, so the same image gives
// byte-identical rows.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/record_carver.h"
#include "core/row.h"
#include "plugin/report.h"
#include "tsk_glue/tsk_evidence.h"

namespace roo {

struct RunOptions;  // plugin/run.h

// A Roo file the normal scan read (a task file or a version of it, the index, cli-history):
// the records carving folds against and attributes by, and the files whose slack is carved.
struct RooFile {
  FileMeta meta;
  std::optional<TaskIdentity> identity;  // the identity its rows carry
};
// The Roo record files (and Roo orphans) a scan parsed, from its report: one per path and inode, in scan order.
std::vector<RooFile> roo_files_parsed(const ScanReport& scan);

// Opens a view of a partition's file system of its own (one per thread), nullptr with *why when it cannot.
using OpenView = std::function<std::unique_ptr<FileSystemView>(std::string* why)>;

// Carves the file system of partition p and writes the rows of what it keeps. view (and more views from open_view,
// one per thread) read the Roo files the scan read, for folding and attribution.
// The carved records folded into records of the scan's files (CarvedFold::place.file indexes them), and the regions
// their bytes lie in (CarvedFold::region indexes these).
struct CarvedCopies {
  std::vector<CarvedFold> folds;
  std::vector<CarveRegion> regions;
};
// copies, when given, gets the carved copies of records of `files`.
void carve_file_system(const RunOptions& opts, const tsk::Partition& p, const OpenView& open_view,
                       FileSystemView& view, const std::vector<RooFile>& files, RowSink& out, CarveStats& stats,
                       CarvedCopies* copies = nullptr);

// Adds to the rows of rows_jsonl (a part's, before the carved rows are appended) the also_in entries of the carved
// copies of their records: a row whose source is files[f.place.file] and whose record_index is f.place's (none for
// kWholeFile) gets carved_copy_json of f appended to its also_in, in fold order. Streams the file through a temporary one
// beside it; returns false when it could not be rewritten (the rows are then as they were).
bool add_carved_copies(const std::filesystem::path& rows_jsonl, const std::vector<RooFile>& files,
                       const CarvedCopies& copies);

// Carves the image's unpartitioned space (the volume system's unallocated gaps) once per image.
void carve_unpartitioned(const RunOptions& opts, const std::vector<tsk::Partition>& gaps, RowSink& out,
                         CarveStats& stats);

}  // namespace roo

namespace roo {

// The whole --deep carving step of one partition's job, after its scan's rows are joined: carves it (and the gaps,
// when given), appends the rows to rows/body, counts them into part.counts and puts the figures in part.scan.
// open_view opens a view of the partition's file system, as the scan's workers do; an empty one (a partition with no
// file system libtsk opens) carves only the gaps.
void carve_partition(const RunOptions& opts, const tsk::Partition& p, const std::vector<tsk::Partition>& gaps,
                     const OpenView& open_view, const std::filesystem::path& rows, const std::filesystem::path& body, PartReport& part);

}  // namespace roo
