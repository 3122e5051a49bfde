// report.json: what was searched, found, skipped and failed, per partition, and the row counts.
#pragma once

#include <rapidjson/document.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/collection_layout.h"
#include "core/discovery.h"
#include "plugin/formats/derive.h"
#include "tsk_glue/tsk_evidence.h"
#include "tsk_glue/verify.h"

namespace roo {

// Row counts, per kind and per task, taken as rows are emitted.
class RowCounts : public RowSink {
 public:
  struct Task {
    std::string surface, title;
    int64_t rows = 0;
  };
  void emit(const Row& row) override;
  void merge(const RowCounts& other);
  int64_t rows = 0;
  int64_t body_lines = 0;
  std::map<std::string, int64_t> by_kind;
  std::map<std::string, Task> tasks;  // by session id
  // The summary's headline beyond the kinds: permission decisions by decision ("approved", "denied", …) and rows by
  // the recovery class of a source that is not an allocated file ("deleted", "carved", …).
  std::map<std::string, int64_t> decisions, recovered;
};

// What became of a partition's or folder's file system. report.json and the summary give it by part_status_name.
enum class PartStatus {
  not_searched,    // never given to a worker: a volume system entry with no file system to search (no name: the
                   // report says why instead)
  parsed,          // searched to the end
  no_file_system,  // no file system libtsk can open
  crashed,         // its worker died
  hung,            // its worker made no progress for --stall-timeout and was ended
  failed,          // its worker could not finish (a write failed, its report was unreadable, …)
};
// "parsed", "no_file_system", "crashed", "hung", "failed"; "" for not_searched.
const char* part_status_name(PartStatus status);
// The status a worker report names; an unknown name is taken as failed.
PartStatus part_status_from_name(const std::string& name);

// One file system's outcome. Written by the worker process as JSON, read back by the parent.
struct PartReport {
  PartStatus status = PartStatus::not_searched;
  std::string reason;
  std::string fs_type;
  ScanReport scan;        // filled in the worker
  std::string scan_json;  // the worker's scan section, as read back by the parent
  // The part report the parent read, parsed once for every reader of its scan section (scan_section()): parsing the
  // 1.6 MB section of the benchmark image again for each cost 8 ms of fresh pages every time.
  std::shared_ptr<const rapidjson::Document> read_back;
  RowCounts counts;
  std::filesystem::path rows_path, body_path;
  // What the scan met that does not stop it (an EWF chunk failing its checksum): the run's warnings.
  std::vector<std::string> warnings;
  // A drive of a triage collection: its letter (or "/") and its folder; set by the parent, not the worker.
  std::string collection_drive, collection_folder;
};
// A worker that crashed, was ended for making no progress, or failed: the run is partial (exit 5).
inline bool part_did_not_finish(PartStatus status) {
  return status == PartStatus::crashed || status == PartStatus::hung || status == PartStatus::failed;
}
std::string part_report_json(const PartReport& part);
PartReport parse_part_report(const std::string& json);
// The scan section of a part report read back by parse_part_report (an object), or nullptr when it has none.
const rapidjson::Value* scan_section(const PartReport& part);

struct RunReport {
  std::vector<std::string> command_line;
  std::string out_dir;  // -o as given: the summary's commands name the outputs there
  std::string evidence_kind;  // image, folder
  std::vector<std::string> evidence_paths;
  CollectionLayout collection;  // a folder that is a triage collection (collector empty: a plain folder)
  std::optional<tsk::ImageInfo> image;
  bool verify_requested = false;                  // --verify
  std::optional<tsk::Verification> verification;  // set when an image was hashed
  bool deep = false;                              // --deep: unallocated space and slack were searched too
  std::vector<std::pair<std::optional<tsk::Partition>, PartReport>> partitions;
  // Second-round scans: another partition searched for a custom storage path (docs/roo-format.md §1.2).
  std::vector<std::pair<std::optional<tsk::Partition>, PartReport>> custom_scans;
  // Every custom storage path a file system's settings named, and how the run resolved it: the report says how each
  // was resolved, or that it could not be.
  struct CustomPathResolution {
    CustomStoragePath named;                // as the file system of the settings reported it
    std::optional<int> named_on_partition;  // that file system's partition (none for a folder)
    std::vector<int> partitions_searched;   // the second round's, in order
    std::optional<int> found_on_partition;  // the partition that holds it, when one does
    std::string found_at;                   // its directory there
    std::string found_on_drive;             // in a triage collection, the drive that holds it (found_on_partition:
                                            // that drive's index)
    bool resolved = false;
    std::string resolution;  // the outcome in words
    std::string same_as;     // the settings file that named the same path first: looked for once, for both
  };
  std::vector<CustomPathResolution> custom_path_resolutions;
  RowCounts totals;
  // The files written into OUTDIR, with how many rows each holds and leaves out: set once the derived formats are
  // written (report.json is written last, so their run table and report show report.json without this section).
  struct Outputs {
    std::string display_time_zone;
    int64_t rows_jsonl_lines_unreadable = 0;
    std::vector<DerivedOutput> files;
  };
  std::optional<Outputs> outputs;
  // What the examiner must know about the run as a whole (no user home anywhere, say): report.json "warnings" (left
  // out when none), the summary, and stderr.
  std::vector<std::string> warnings;
};
std::string run_report_json(const RunReport& report);
// --verify: whether the image failed to verify (a stored hash differs, or the media could not be read to its end).
bool verification_failed(const tsk::Verification& v);
// One line about it for stderr and the summary: the result and the hashes compared.
std::string verification_line(const tsk::Verification& v);
// The few lines printed on stdout at the end of a run.
std::string run_summary(const RunReport& report);

}  // namespace roo
