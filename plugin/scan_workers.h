// One file system scanned by several worker threads (--threads), its rows joined back in the order one thread writes
// them (plugin/task_queue.h says how the work is shared: worker 0 plans, every worker runs task items). Each worker
// has its own libtsk handles (libtsk's image and file-system handles are not to be shared between threads), its own
// rows and body files and a units file saying which byte ranges of them belong to which work unit. With several
// workers the ranges are copied into the joined files in unit order as the units close (the join the
// workers_stopped callback is given finishes it); join_worker_outputs() puts them in order from the files alone, when
// that join cannot be completed or after a crash.
#pragma once

#include <rapidjson/document.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/discovery.h"
#include "core/evidence.h"
#include "core/row.h"
#include "plugin/report.h"

namespace roo {

// The files of worker k of the part whose joined rows go to `rows`: rows.w<k>, body.w<k>, rows.units.w<k>.
struct WorkerFiles {
  std::filesystem::path rows, body, units;
};
WorkerFiles worker_files(const std::filesystem::path& rows, const std::filesystem::path& body, int worker);

struct ScanWorkersSetup {
  int workers = 1;
  // Opens this worker's own view of the file system (nullptr with *why set when it cannot).
  std::function<std::unique_ptr<FileSystemView>(std::string* why)> open_view;
  // Scans the view on worker 0: scan_file_system, or a second-round custom storage path search. With several workers
  // options.runner takes the task items (the other workers run them).
  std::function<void(FileSystemView&, RowSink&, ScanReport&, const ScanOptions&)> scan;
  ScanOptions options;  // options.scratch_dir: each worker gets a directory of its own under it
  std::filesystem::path rows, body;  // where the joined rows and body lines go
  RowSink* worker0_extra_sink = nullptr;  // fault injection for the isolation test (plugin/run.cpp)
  // Called (under a lock, from any worker) when a source file is done: files and bytes done by all workers so far, and
  // the bytes of the task files listed so far (the progress total; 0 before any root is listed).
  std::function<void(int64_t files, uint64_t bytes, uint64_t planned)> file_done;
  // Called (under the same lock) when a worker has opened its view, with the file system's type.
  std::function<void(const std::string& fs_type)> opened;
  // Called once every worker has stopped, before their reports are merged, with whether every worker opened the file
  // system and what joins their rows into `rows` and `body` (to be called once, on any thread, while the reports are
  // merged): with several workers it finishes the join they started as they went, or falls back to
  // join_worker_outputs; returns false when a file cannot be written. Not calling it leaves the workers' files.
  // (With several workers, `rows` and `body` are made empty when the workers start, and removed when the join is
  // never called.)
  std::function<void(bool all_opened, std::function<bool()> join)> workers_stopped;
};

struct ScanWorkersResult {
  bool opened = false;  // every worker could open the file system
  std::string why;      // when not
  std::string fs_type;
  ScanReport scan;  // worker 0's, with every worker's parsed files in unit order and their errors
  RowCounts counts;
  bool write_ok = true;
};

ScanWorkersResult scan_with_workers(const ScanWorkersSetup& setup);

// Joins the workers' rows and body lines into rows/body in unit order. recovering: the process that wrote them died;
// each worker's rows are first cut after its last finished source and its body lines to match, and the unit each
// was in keeps what it finished. Returns false when a file cannot be written.
bool join_worker_outputs(const std::filesystem::path& rows, const std::filesystem::path& body, int workers,
                         bool recovering);

// Cuts a rows file after its last finished source (cut_unfinished_rows) and its body file to the lines of the rows
// kept: one per row timed after the epoch, in the same order. Returns the body lines kept.
int64_t cut_to_finished_sources(const std::filesystem::path& rows, const std::filesystem::path& body);

// Whether a row read back from rows.jsonl has a body line: a time after the epoch (body_time).
bool row_has_body_line(const rapidjson::Value& row);

}  // namespace roo
