#include "plugin/run.h"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "core/catalog.h"
#include "core/discovery.h"
#include "core/folder_evidence.h"
#include "core/progress_beats.h"
#include "core/row_writer.h"
#include "core/text_util.h"
#include "plugin/formats/body_file.h"
#include "plugin/image_carving.h"
#include "plugin/file_copy.h"
#include "plugin/output_dir.h"
#include "plugin/progress.h"
#include "plugin/formats/derive.h"
#include "plugin/formats/display_time.h"
#include "plugin/report.h"
#include "plugin/scan_workers.h"
#include "tsk_glue/tsk_evidence.h"
#include "tsk_glue/verify.h"

namespace roo {

namespace fs = std::filesystem;

namespace {

// The run's own messages (what is opened, each partition's outcome): shown in the plain and terminal progress modes.
void progress(const char* fmt, ...) {
  if (progress_mode() != ProgressMode::plain && progress_mode() != ProgressMode::terminal) return;
  va_list ap;
  va_start(ap, fmt);
  std::fputs("roo-ingest: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

int fail(int code, const std::string& msg) {
  std::fprintf(stderr, "roo-ingest: error: %s\n", msg.c_str());
  return code;
}

// Reads at the size the file has, in one go: copying it through an ostringstream (`ss << in.rdbuf()`) took 13-21 ms
// for the benchmark's 1.6 MB part report, all of it on the run's serial tail.
std::string read_file(const fs::path& p) {
  std::string data;
  const int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return data;
  struct stat st {};
  data.resize(fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0);
  size_t have = 0;
  for (;;) {
    if (have == data.size()) data.resize(have + (1 << 16));  // grew since fstat, or no size known
    const ssize_t n = read(fd, data.data() + have, data.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<size_t>(n);
  }
  close(fd);
  data.resize(have);
  return data;
}

bool write_file(const fs::path& p, const std::string& data) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  return std::fclose(f) == 0 && ok;
}

// The files one partition's worker writes into the scratch dir.
struct PartPaths {
  fs::path rows, body, report;
};

struct PartitionJob {
  int index = 0;
  std::optional<tsk::Partition> partition;  // none for a folder
  // Set for a second-round job: look for another file system's custom storage path in this one.
  std::optional<CustomStoragePath> custom;
  int custom_number = 0;
  std::vector<tsk::Partition> gaps = {};  // --deep: the image's unpartitioned space, carved by the first partition's job
  std::string image_type = {};  // libtsk's name for the image's format, as the run's open found it: workers reopen it so
  // Set for a drive of a triage collection given to --dir (core/collection_layout.h): the folder to read and how.
  std::optional<CollectedDriveOptions> collected = {};
};

// Fault injection for the isolation test (tests/plugin/e2e_test.py test_worker_crash): with
// ROO_INGEST_TEST_CRASH_PARTITION=<index>, the worker of that partition dies of a signal right after the first source
// file that gave rows has been written, as a libtsk crash on a damaged file system would. SIGABRT rather than
// SIGSEGV: the sanitizer build turns a SIGSEGV into a report and exit 1, hiding the signal the test looks for.
class CrashAfterFirstSource : public RowSink {
 public:
  void emit(const Row&) override { any_ = true; }
  void end_source(const std::string&) override {
    if (any_) std::abort();
  }

 private:
  bool any_ = false;
};

bool crash_requested(const PartitionJob& job) {
  const char* v = std::getenv("ROO_INGEST_TEST_CRASH_PARTITION");
  return v && job.partition && std::to_string(job.partition->index) == v;
}

// Whether two entries of one partition are the same pool volume (or both the partition itself).
bool same_pool_volume(const tsk::Partition& a, const tsk::Partition& b) {
  return a.pool_volume.has_value() == b.pool_volume.has_value() &&
         (!a.pool_volume || a.pool_volume->block == b.pool_volume->block);
}

// Where a job's file system is, for progress lines: "partition 2", "partition 2, APFS volume Data (data)".
std::string job_place(const PartitionJob& job) {
  std::string where = "partition " + std::to_string(job.index);
  if (job.partition && job.partition->pool_volume)
    where += ", APFS volume " + job.partition->pool_volume->name + " (" + job.partition->pool_volume->role + ")";
  return where;
}

// Where a folder job's files are, for progress lines: "folder", "folder, drive C: (kape)".
std::string folder_place(const PartitionJob& job) {
  return job.collected ? "folder, drive " + job.collected->drive.drive + " (" + job.collected->collector + ")"
                       : std::string("folder");
}

// How many threads scan this job's file system: --threads (0: one per core). A second-round search for a custom
// storage path is one small root: one.
int job_workers(const RunOptions& opts, const PartitionJob& job) {
  if (job.custom) return 1;
  const unsigned n = opts.threads ? opts.threads : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::min(n, 64u));
}

// Scans one partition (or the folder) and writes its rows and its part report. Runs inside the child process
// when isolation is on, so a libtsk crash here loses only this file system's unfinished work.
void scan_job(const RunOptions& opts, const PartitionJob& job, const PartPaths& paths) {
  ScanWorkersSetup setup;
  setup.workers = job_workers(opts, job);
  setup.rows = paths.rows;
  setup.body = paths.body;
  setup.options.native = opts.native;
  setup.options.scratch_dir = paths.rows.parent_path().string();  // the output's work directory, never the evidence's
  setup.options.deep = opts.deep;  // $OrphanFiles
  // Each worker opens the image itself: libtsk handles are not shared between threads. The images are kept to the
  // end of the job: the EWF chunk checksum errors their reads met go in the part report's warnings.
  std::mutex images_lock;
  std::vector<std::unique_ptr<tsk::Image>> images;
  std::atomic<bool> locked{false};  // an encrypted volume none of the passwords given unlocks
  setup.open_view = [&](std::string* why) -> std::unique_ptr<FileSystemView> {
    if (!job.partition)
      return job.collected ? std::make_unique<FolderFileSystem>(*job.collected)
                           : std::make_unique<FolderFileSystem>(opts.folder);
    try {
      std::unique_ptr<tsk::Image> image = tsk::Image::reopen(opts.image_paths, job.image_type);
      bool not_unlocked = false;
      std::unique_ptr<FileSystemView> view =
          image->open_fs(*job.partition, fs::path(opts.image_paths.front()).filename().string(), why,
                         opts.passwords, &not_unlocked);
      if (not_unlocked) locked = true;
      std::lock_guard<std::mutex> hold(images_lock);
      images.push_back(std::move(image));
      return view;
    } catch (const std::exception& e) {
      *why = e.what();
      return nullptr;
    }
  };
  setup.scan = [&](FileSystemView& view, RowSink& out, ScanReport& report, const ScanOptions& scan) {
    if (job.custom)
      scan_custom_storage_path(view, *job.custom, out, report, scan);
    else
      scan_file_system(view, out, report, scan);
  };
  CrashAfterFirstSource crash;
  if (opts.isolate && crash_requested(job)) setup.worker0_extra_sink = &crash;
  std::string where = job.partition ? job_place(job) : folder_place(job);
  bool where_has_type = !job.partition;
  setup.opened = [&](const std::string& fs_type) {  // "partition 4 (ext4)" once a worker knows the type
    if (!where_has_type) where += " (" + fs_type + ")";
    where_has_type = true;
  };
  int64_t files_done = 0;
  uint64_t bytes_done = 0;
  // The total is what the roots listed so far hold (task files and index; stores are not counted ahead): the ETA is
  // good once the big roots are listed, and never shows less than what is done.
  auto total = [](uint64_t done, uint64_t planned) {
    return planned ? std::optional<uint64_t>(std::max(done, planned)) : std::nullopt;
  };
  uint64_t bytes_planned = 0;
  setup.file_done = [&](int64_t files, uint64_t bytes, uint64_t planned) {
    files_done = files;
    bytes_done = bytes;
    bytes_planned = planned;
    progress_update("parsing", where, files, "files", bytes, total(bytes, planned));
  };

  // The join is finished on a thread of their own while the workers' reports are merged and this part's report is
  // serialised: what is left of it is a kernel copy of the rows the workers wrote last (or of every row, when the
  // join could not go along with them: plugin/scan_workers.cpp), the rest is CPU work.
  std::future<bool> joining;
  setup.workers_stopped = [&](bool all_opened, std::function<bool()> join) {
    if (all_opened) joining = std::async(std::launch::async, std::move(join));
  };
  auto joined = [&] {
    return joining.valid() ? joining.get() : join_worker_outputs(paths.rows, paths.body, setup.workers, false);
  };
  ScanWorkersResult scanned = scan_with_workers(setup);
  PartReport part;
  // The part report, with a warning for each run of sectors any worker's reads found failing its checksum so far.
  auto report_json = [&] {
    std::vector<tsk::EwfChecksumError> bad;
    {
      std::lock_guard<std::mutex> hold(images_lock);
      for (const auto& image : images)
        for (const tsk::EwfChecksumError& e : image->checksum_errors()) bad.push_back(e);
    }
    std::sort(bad.begin(), bad.end(), [](const auto& a, const auto& b) {
      return std::tie(a.first_sector, a.sectors) < std::tie(b.first_sector, b.sectors);
    });
    part.warnings.clear();
    for (const tsk::EwfChecksumError& e : bad) {
      std::string w = tsk::ewf_checksum_warning(e);
      if (part.warnings.empty() || part.warnings.back() != w) part.warnings.push_back(std::move(w));
    }
    return part_report_json(part);
  };
  part.fs_type = scanned.fs_type;
  if (!scanned.opened) {
    // An image that opened in the parent but not here, or a file system libtsk does not know. An encrypted volume
    // the examiner gave passwords for and none unlocked is a failure (exit code 5), not a volume with nothing to
    // search: they asked for it to be read.
    part.status = scanned.write_ok && !locked ? PartStatus::no_file_system : PartStatus::failed;
    part.reason = scanned.why;
    // The unpartitioned space given to this job is carved all the same: it needs no file system (an Apple
    // partition map's first partition is the map itself).
    if (opts.deep && job.partition && !job.custom && !job.gaps.empty() && part.status == PartStatus::no_file_system)
      carve_partition(opts, *job.partition, job.gaps, nullptr, paths.rows, paths.body, part);
  } else {
    progress_update("parsing", where, files_done, "files", bytes_done, total(bytes_done, bytes_planned), true);
    part.scan = std::move(scanned.scan);
    part.counts = std::move(scanned.counts);
    auto settle = [&](bool joined_ok) {
      part.status = scanned.write_ok && joined_ok ? PartStatus::parsed : PartStatus::failed;
      if (part.status == PartStatus::failed)
        part.reason = scanned.why.empty() ? "writing rows failed (disk full?)" : scanned.why;
    };
    if (!(opts.deep && job.partition && !job.custom)) {
      // Nothing is added to the rows after the join: the report is serialised while it runs (again if it fails).
      settle(true);
      std::string report = report_json();
      if (!joined()) {
        settle(false);
        report = report_json();
      }
      write_file(paths.report, report);
      return;
    }
    settle(joined());
    if (part.status == PartStatus::parsed)  // carving, after the scan
      carve_partition(opts, *job.partition, job.gaps, setup.open_view, paths.rows, paths.body, part);
  }
  write_file(paths.report, report_json());
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return std::string("worker killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "worker exited with status " + std::to_string(WEXITSTATUS(status));
  return "worker ended abnormally";
}

// A crashed worker wrote no counts: count the rows of the sources it finished, and keep the body lines that belong to
// them (one per timed row, in the same order) — the body file may hold lines of the unfinished source too.
void count_surviving_rows(PartReport& part, int workers) {
  join_worker_outputs(part.rows_path, part.body_path, workers, true);  // each worker's files cut to finished sources
  std::ifstream in(part.rows_path, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    ++part.counts.rows;
    rapidjson::Document d;
    d.Parse(line.data(), line.size());
    if (!d.IsObject()) continue;
    if (d.HasMember("kind") && d["kind"].IsString()) ++part.counts.by_kind[d["kind"].GetString()];
    if (row_has_body_line(d)) ++part.counts.body_lines;
  }
  part.reason += "; " + std::to_string(part.counts.rows) + " row(s) of finished source files kept";
}

// One page of memory shared with a worker process: its progress count (core/progress_beats.h).
class SharedBeats {
 public:
  SharedBeats() {
    void* page = mmap(nullptr, sizeof(std::atomic<uint64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                      -1, 0);
    if (page != MAP_FAILED) beats_ = new (page) std::atomic<uint64_t>(0);
  }
  ~SharedBeats() {
    if (beats_) munmap(beats_, sizeof(std::atomic<uint64_t>));
  }
  SharedBeats(const SharedBeats&) = delete;
  SharedBeats& operator=(const SharedBeats&) = delete;
  bool ok() const { return beats_ != nullptr; }
  std::atomic<uint64_t>* get() const { return beats_; }

 private:
  std::atomic<uint64_t>* beats_ = nullptr;
};

struct WorkerEnd {
  bool waited = false;  // the worker was reaped (status is its wait status)
  bool hung = false;    // it was ended for making no progress
  int status = 0;
  uint64_t beats = 0;  // its progress count when it ended
};

// The bytes a process has read through read(2) and its kin (/proc/PID/io rchar), or 0 where the kernel does not say.
// libtsk reads the image this way in calls roo-ingest cannot count itself: opening a file system, listing
// directories, finding $OrphanFiles on a large NTFS (minutes of MFT reading with no Roo file read).
uint64_t bytes_read_by(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/io").c_str(), "r");
  if (!f) return 0;
  unsigned long long rchar = 0;
  char line[128];
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "rchar: %llu", &rchar) == 1) break;
  std::fclose(f);
  return rchar;
}

// Waits for the worker, and ends it with SIGKILL when its progress has not moved for stall_seconds (0: never).
// Progress is its count of bytes read from the evidence and rows written, plus what the kernel says it read. A
// pidfd wakes the wait the moment the worker exits, so a run waits no longer than its workers take; progress is
// looked at once a second.
WorkerEnd wait_for_worker(pid_t pid, const std::atomic<uint64_t>& beats, int stall_seconds) {
  WorkerEnd end;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  auto progress = [&] { return beats.load(std::memory_order_relaxed) + bytes_read_by(pid); };
  uint64_t last = progress();
  auto last_change = std::chrono::steady_clock::now();
  for (;;) {
    const pid_t got = waitpid(pid, &end.status, WNOHANG);
    if (got == pid) {
      end.waited = true;
      break;
    }
    if (got < 0 && errno != EINTR) break;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      poll(&p, 1, 1000);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const uint64_t now_beats = progress();
    const auto now = std::chrono::steady_clock::now();
    if (now_beats != last) {
      last = now_beats;
      last_change = now;
    } else if (stall_seconds > 0 && now - last_change >= std::chrono::seconds(stall_seconds)) {
      kill(pid, SIGKILL);
      end.hung = true;
      while (waitpid(pid, &end.status, 0) < 0 && errno == EINTR) {
      }
      end.waited = true;
      break;
    }
  }
  if (pidfd >= 0) close(pidfd);
  end.beats = beats.load(std::memory_order_relaxed);
  return end;
}

PartReport run_job(const RunOptions& opts, const PartitionJob& job, const fs::path& work) {
  // The volumes of an APFS container share its partition's index: each has files of its own.
  const std::string stem =
      "part-" + std::to_string(job.index) +
      (job.partition && job.partition->pool_volume ? "-volume-" + std::to_string(job.partition->pool_volume->index)
                                                   : std::string()) +
      (job.custom ? "-custom-" + std::to_string(job.custom_number) : std::string());
  const PartPaths paths{work / (stem + ".jsonl"), work / (stem + ".body"), work / (stem + ".json")};
  if (!opts.isolate) {
    scan_job(opts, job, paths);
  } else {
    SharedBeats beats;
    std::fflush(nullptr);
    const pid_t parent = getpid();
    pid_t pid = beats.ok() ? fork() : -1;
    if (pid == 0) {
      // The worker ends with the run: a worker left running after its parent was killed would go on writing into
      // the OUTDIR a rerun is using. The check after prctl covers a parent that died before it.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      g_progress_beats = beats.get();
      scan_job(opts, job, paths);
      std::fflush(nullptr);
      _exit(0);
    }
    const WorkerEnd end = pid < 0 ? WorkerEnd{} : wait_for_worker(pid, *beats.get(), opts.stall_timeout_seconds);
    if (pid < 0 || !end.waited) {
      PartReport part;
      part.status = PartStatus::failed;
      part.reason = std::string("cannot start worker: ") + std::strerror(errno);
      return part;
    }
    const int status = end.status;
    if (end.hung || !(WIFEXITED(status) && WEXITSTATUS(status) == 0) || !fs::exists(paths.report)) {
      // The worker died (libtsk 4.11 can crash on damaged structures) or was ended for making no progress: keep the
      // rows it finished, say so.
      PartReport part;
      part.status = end.hung ? PartStatus::hung : PartStatus::crashed;
      part.reason = end.hung ? "no progress (bytes read, rows written) for " +
                                   std::to_string(opts.stall_timeout_seconds) +
                                   " s (--stall-timeout): the worker was ended; its progress count (bytes of "
                                   "evidence read plus rows written) stood at " + std::to_string(end.beats)
                             : describe_wait_status(status);
      part.rows_path = paths.rows;
      part.body_path = paths.body;
      count_surviving_rows(part, job_workers(opts, job));
      return part;
    }
  }
  PartReport part = parse_part_report(read_file(paths.report));
  part.rows_path = paths.rows;
  part.body_path = paths.body;
  return part;
}

// Appends a part file to an output file.
bool append_file(int out_fd, const fs::path& p) {
  if (p.empty()) return true;
  int in_fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (in_fd < 0) return false;
  struct stat st;
  const bool ok = fstat(in_fd, &st) == 0 && copy_range(out_fd, in_fd, 0, static_cast<uint64_t>(st.st_size));
  close(in_fd);
  return ok;
}

// Joins the part files, in order, into target. When only one part has bytes (one file system, or a folder) it is
// renamed into place instead of copied: hundreds of MB of rows need not be written twice.
bool assemble(const std::vector<fs::path>& parts, const fs::path& target) {
  std::error_code ec;
  std::vector<fs::path> non_empty;
  for (const fs::path& p : parts)
    if (!p.empty() && fs::file_size(p, ec) > 0 && !ec) non_empty.push_back(p);
  if (non_empty.size() == 1) {
    fs::rename(non_empty.front(), target, ec);
    if (!ec) return true;
  }
  int out = open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) return false;
  bool ok = true;
  for (const fs::path& p : non_empty) ok = ok && append_file(out, p);
  return close(out) == 0 && ok;
}

// The custom storage paths a worker met, as its part report (scan section) lists them.
std::vector<CustomStoragePath> custom_storage_paths(const PartReport& part) {
  std::vector<CustomStoragePath> out;
  const rapidjson::Value* scan = scan_section(part);
  if (!scan || !scan->HasMember("custom_storage_paths")) return out;
  for (const auto& c : (*scan)["custom_storage_paths"].GetArray()) {
    CustomStoragePath path;
    path.surface = c["surface"].GetString();
    if (c["user"].IsString()) path.user = c["user"].GetString();
    path.settings_file = c["settings_file"].GetString();
    path.recorded_path = c["recorded_path"].GetString();
    path.found_here = c["found_here"].GetBool();
    if (c.HasMember("found_at")) path.found_at = c["found_at"].GetString();
    out.push_back(std::move(path));
  }
  return out;
}

// Whether OUTDIR gets this format's file: every format when --format named none; rows.jsonl and report.json always.
bool format_selected(const RunOptions& opts, const std::string& name) {
  return opts.formats.empty() || opts.formats.count(name) || name == "jsonl" || name == "report";
}

// report.json's "outputs": every file moved into OUTDIR, in output_formats() order (report.json last), with its row
// counts.
RunReport::Outputs outputs_report(const RunOptions& opts, const RunReport& report, const DeriveResult& derived) {
  RunReport::Outputs outputs;
  outputs.display_time_zone = opts.display_tz;
  outputs.rows_jsonl_lines_unreadable = derived.lines_unreadable;
  const RowCounts& totals = report.totals;
  for (const OutputFormatInfo& f : output_formats()) {
    const std::string name = f.name;
    if (!format_selected(opts, name)) continue;
    if (name == "jsonl") {
      outputs.files.push_back({name, f.file, totals.rows, 0, ""});
    } else if (name == "body") {
      outputs.files.push_back({name, f.file, totals.body_lines, totals.rows - totals.body_lines,
                               "no time after the epoch: mactime needs a non-zero time"});
    } else if (name == "report") {
      outputs.files.push_back({name, f.file, std::nullopt, std::nullopt, ""});
    } else {
      for (const DerivedOutput& d : derived.outputs)
        if (d.format == name) outputs.files.push_back(d);
    }
  }
  return outputs;
}

// Hashes the whole image (tsk_glue/verify.h) with progress; a mismatch or a read error is said on stderr whatever
// the progress mode, as errors are.
tsk::Verification verify_with_progress(const RunOptions& opts, const tsk::ImageInfo& image) {
  const std::string where = fs::path(opts.image_paths.front()).filename().string();
  tsk::Verification v = tsk::verify_image(opts.image_paths, image, [&](uint64_t done, uint64_t total, bool last) {
    const int64_t blocks = static_cast<int64_t>((done + tsk::kVerifyBlockBytes - 1) / tsk::kVerifyBlockBytes);
    progress_update("verifying", where, blocks, "blocks", done, total, last);
  });
  progress("verification: %s", verification_line(v).c_str());
  if (verification_failed(v))
    std::fprintf(stderr, "roo-ingest: WARNING: image NOT verified: %s\n", verification_line(v).c_str());
  return v;
}

// How many user homes the file systems searched held (report.json homes_searched), or nullopt when none was searched
// to the end.
std::optional<size_t> homes_found(const RunReport& report) {
  std::optional<size_t> homes;
  for (const auto& [p, part] : report.partitions)
    if (const rapidjson::Value* scan = part.status == PartStatus::parsed ? scan_section(part) : nullptr)
      if (scan->HasMember("homes_searched") && (*scan)["homes_searched"].IsArray())
        homes = homes.value_or(0) + (*scan)["homes_searched"].Size();
  return homes;
}

// Said when no file system held a user home, so that a run that found nothing says why: what was looked for, and for
// a folder the directories below it that look like a drive's root (a triage collection keeps one per drive, as
// <collection>/C), so the examiner can point --dir there.
std::string no_home_warning(const RunOptions& opts) {
  std::string looked_for;
  for (const HomePattern& hp : home_patterns()) {
    std::string pattern;
    for (const std::string& s : hp.segments) pattern += (pattern.empty() ? "" : "/") + s;
    looked_for += (looked_for.empty() ? "" : ", ") + pattern;
  }
  std::string msg = "no user home found (looked for " + looked_for + " at the root of " +
                    (opts.folder.empty() ? "each file system" : opts.folder) +
                    "; Roo's storage is searched for below a home, the CLI's temporary roo-cli-* folders below the "
                    "root's tmp and temp folders)";
  if (opts.folder.empty()) return msg;
  std::vector<std::string> candidates;
  std::error_code ec;
  const fs::path top(opts.folder);
  for (auto it = fs::recursive_directory_iterator(top, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator() && candidates.size() < 3; it.increment(ec)) {
    if (it.depth() >= 4) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    const std::string name = it->path().filename().string();
    for (const HomePattern& hp : home_patterns())
      if (it.depth() > 0 && iequals(name, hp.segments.front())) {
        candidates.push_back(it->path().parent_path().string());
        it.disable_recursion_pending();
        break;
      }
  }
  if (!candidates.empty()) {
    msg += "; below it, these folders hold one:";
    for (const std::string& c : candidates) msg += " " + c;
    msg += " (give one of them to --dir)";
  }
  return msg;
}

// OUTDIR, checked against the evidence (outputs never go into the evidence folder, beside an image, or below
// either), locked and given this run's work directory; nothing and *error when it cannot be used.
std::optional<OutputDir> open_output_dir(const RunOptions& opts, std::string* error) {
  OutputDir::Options out_opts;
  out_opts.out = opts.out_dir;
  out_opts.evidence = evidence_directories(opts.image_paths, opts.folder);
  out_opts.force = opts.force;
  return OutputDir::open(out_opts, error);
}

// The evidence as the report describes it, and one job per file system to scan: the folder, or every allocated
// partition of the image (after --verify has hashed it). The image is closed afterwards: each worker opens it itself.
std::vector<PartitionJob> plan_jobs(const RunOptions& opts, std::unique_ptr<tsk::Image> image, RunReport& report) {
  std::vector<PartitionJob> jobs;
  report.command_line = opts.command_line;
  report.out_dir = opts.out_dir;
  report.verify_requested = opts.verify;
  report.deep = opts.deep;
  if (!image) {
    report.evidence_kind = "folder";
    report.evidence_paths = {opts.folder};
    // A triage collection keeps each drive in a folder of its own: each is searched as a file system of its own.
    report.collection = detect_collection_layout(opts.folder);
    const CollectionLayout& layout = report.collection;
    if (layout.collector.empty()) {
      jobs.push_back({0, std::nullopt, std::nullopt, 0});
    } else {
      char* real = realpath(opts.folder.c_str(), nullptr);
      const std::string evidence = fs::path(real ? real : opts.folder).filename().string();
      std::free(real);
      for (const std::string& w : layout.warnings) report.warnings.push_back(w);
      const std::string times_from = layout.collector == "kape" ? "kape_copy_log" : "velociraptor_results";
      for (size_t i = 0; i < layout.drives.size(); ++i) {
        PartitionJob job{static_cast<int>(i), std::nullopt, std::nullopt, 0};
        job.collected = CollectedDriveOptions{layout.collector, evidence, layout.drives[i], layout.encoded_names,
                                              times_from};
        jobs.push_back(std::move(job));
      }
      progress("folder %s: a %s collection of %zu drive(s)", opts.folder.c_str(), layout.collector.c_str(),
               layout.drives.size());
    }
  } else {
    report.evidence_kind = "image";
    report.evidence_paths = opts.image_paths;
    const std::vector<tsk::Partition> partitions = image->partitions(opts.passwords);  // first: it may add to the warnings
    report.image = image->info();
    for (const std::string& w : report.image->warnings) progress("warning: %s", w.c_str());
    progress("opened %s image %s (%llu bytes, %zu segment(s))", report.image->type.c_str(),
             opts.image_paths.front().c_str(), static_cast<unsigned long long>(report.image->size),
             report.image->segments.size());
    // --verify before the scan: a damaged or altered image is said at the start, not after a long parse.
    if (opts.verify) report.verification = verify_with_progress(opts, *report.image);
    for (const tsk::Partition& p : partitions) {
      // An APFS container is searched volume by volume, each in a job (and a report entry) of its own.
      if (p.container && !p.container->volumes.empty()) {
        for (const tsk::PoolVolume& v : p.container->volumes) {
          tsk::Partition volume = p;
          volume.pool_volume = v;
          report.partitions.push_back({volume, {}});
          jobs.push_back({p.index, volume, std::nullopt, 0, {}, report.image->type});
        }
        continue;
      }
      report.partitions.push_back({p, {}});
      if (p.kind == tsk::Partition::allocated) jobs.push_back({p.index, p, std::nullopt, 0, {}, report.image->type});
    }
    if (opts.deep && !jobs.empty())  // unpartitioned space is carved once, by the first partition's worker
      for (const tsk::Partition& p : partitions)
        if (p.kind == tsk::Partition::unallocated) jobs.front().gaps.push_back(p);
  }
  return jobs;
}

struct JobsRun {
  bool partial = false;  // a file system's worker crashed, hung or failed
  int parsed = 0;        // file systems searched to the end
};

// What a worker met while scanning that does not stop the run (an EWF chunk failing its checksum): said once, on
// stderr and in the report's warnings, however many scans read it.
void note_scan_warnings(const PartReport& part, RunReport& report) {
  for (const std::string& w : part.warnings) {
    if (std::find(report.warnings.begin(), report.warnings.end(), w) != report.warnings.end()) continue;
    report.warnings.push_back(w);
    std::fprintf(stderr, "roo-ingest: warning: %s\n", w.c_str());
  }
}

// Scans every job's file system, in order, each in its worker; its outcome goes into the report's partitions.
JobsRun run_jobs(const RunOptions& opts, std::vector<PartitionJob>& jobs, const fs::path& work, RunReport& report) {
  JobsRun ran;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const PartitionJob& job = jobs[j];
    if (job.partition)
      progress("%s: scanning at byte offset %llu (%s)", job_place(job).c_str(),
               static_cast<unsigned long long>(job.partition->offset_bytes), job.partition->description.c_str());
    else
      progress("%s %s: scanning", folder_place(job).c_str(),
               job.collected ? job.collected->drive.host_dir.c_str() : opts.folder.c_str());
    PartReport part = run_job(opts, job, work);
    if (job.collected) {
      part.collection_drive = job.collected->drive.drive;
      part.collection_folder = job.collected->drive.host_dir;
    }
    note_scan_warnings(part, report);
    if (part_did_not_finish(part.status)) {
      ran.partial = true;
      // Its worker did not carve the unpartitioned space to the end (carved rows are added only when complete):
      // the next partition's worker carves it.
      if (!job.gaps.empty() && j + 1 < jobs.size()) jobs[j + 1].gaps = job.gaps;
    }
    if (part.status == PartStatus::parsed) ++ran.parsed;
    progress("  %s%s%s", part_status_name(part.status), part.fs_type.empty() ? "" : (" " + part.fs_type).c_str(),
             part.reason.empty() ? "" : (": " + part.reason).c_str());
    bool placed = false;
    for (auto& [p, r] : report.partitions)
      if (job.partition && p && p->index == job.index && same_pool_volume(*p, *job.partition)) {
        r = part;
        placed = true;
      }
    if (!placed) report.partitions.push_back({std::nullopt, part});
  }
  return ran;
}

// The collection's drive that a custom storage path names by its letter, when it is another drive than the one of
// the settings that named it (part).
const PartitionJob* recorded_drive_job(const std::vector<PartitionJob>& jobs, const PartReport& part,
                                       const CustomStoragePath& wanted) {
  const std::string& path = wanted.recorded_path;
  if (part.collection_drive.empty() || path.size() < 2 || path[1] != ':') return nullptr;
  const std::string letter(1, static_cast<char>(std::toupper(static_cast<unsigned char>(path[0]))));
  for (const PartitionJob& job : jobs)
    if (job.collected && job.collected->drive.drive == letter + ":" && job.collected->drive.drive != part.collection_drive)
      return &job;
  return nullptr;
}

// The second round: resolves every custom storage path the scanned file systems' settings named, searching the other
// file systems for the ones their own does not hold. Adds the searches and resolutions to the report; true when a
// search did not finish (the run is partial).
bool resolve_custom_paths(const RunOptions& opts, const std::vector<PartitionJob>& jobs, const fs::path& work,
                          RunReport& report) {
  bool partial = false;
  // Second round (docs/roo-format.md §1.2): a custom storage path an editor's settings name but its own file system
  // does not hold (a Windows drive letter names another volume) is looked for in every other file system, in volume
  // order, until one holds it. Its rows come after every partition's.
  // Every path named is also listed with how it was resolved, or that it could not be (report.json
  // custom_storage_path_resolution).
  std::vector<std::pair<std::optional<tsk::Partition>, PartReport>> custom_scans;
  for (const auto& [p, part] : report.partitions) {
    for (const CustomStoragePath& wanted : custom_storage_paths(part)) {
      RunReport::CustomPathResolution res;
      res.named = wanted;
      if (p) res.named_on_partition = p->index;
      std::string not_searched;  // other file systems whose search crashed or failed
      // The same path named again (another editor's settings, or the nightly's beside the release's): looked for
      // once, so its root's rows are not written twice (two rows with one row id).
      const RunReport::CustomPathResolution* same = nullptr;
      for (const RunReport::CustomPathResolution& earlier : report.custom_path_resolutions)
        if (p && !wanted.found_here && !earlier.named.found_here &&
            earlier.named_on_partition == res.named_on_partition &&
            iequals(earlier.named.recorded_path, wanted.recorded_path))
          same = same ? same : &earlier;
      if (wanted.found_here) {
        res.found_on_partition = res.named_on_partition;
        res.found_at = wanted.found_at;
      } else if (same) {
        res.partitions_searched = same->partitions_searched;
        res.found_on_partition = same->found_on_partition;
        res.found_at = same->found_at;
        res.same_as = same->named.settings_file;
      } else if (const PartitionJob* drive = recorded_drive_job(jobs, part, wanted)) {
        // A collection's drive named by the path's letter (D:\RooTasks on the collected D:) is looked in.
        PartitionJob job = *drive;
        job.custom = wanted;
        job.custom_number = static_cast<int>(custom_scans.size());
        progress("drive %s: looking for customStoragePath %s (named in %s)", drive->collected->drive.drive.c_str(),
                 wanted.recorded_path.c_str(), wanted.settings_file.c_str());
        PartReport found = run_job(opts, job, work);
        found.collection_drive = drive->collected->drive.drive;
        found.collection_folder = drive->collected->drive.host_dir;
        note_scan_warnings(found, report);
        res.partitions_searched.push_back(drive->index);
        if (part_did_not_finish(found.status)) partial = true;
        for (const CustomStoragePath& c : custom_storage_paths(found))
          if (c.found_here) {
            res.found_on_partition = drive->index;
            res.found_at = c.found_at;
            res.found_on_drive = drive->collected->drive.drive;
          }
        custom_scans.push_back({std::nullopt, std::move(found)});
      } else if (p) {  // a folder is one file system: nothing else to look in
        for (const PartitionJob& other : jobs) {
          if (!other.partition || other.index == p->index) continue;
          PartitionJob job = other;
          job.custom = wanted;
          job.custom_number = static_cast<int>(custom_scans.size());
          progress("partition %d: looking for customStoragePath %s (named in %s)", job.index,
                   wanted.recorded_path.c_str(), wanted.settings_file.c_str());
          PartReport found = run_job(opts, job, work);
          note_scan_warnings(found, report);
          res.partitions_searched.push_back(other.index);
          if (part_did_not_finish(found.status)) {
            partial = true;
            not_searched += (not_searched.empty() ? "" : ", ") + std::to_string(other.index) + " (" +
                            part_status_name(found.status) + ")";
          }
          for (const CustomStoragePath& c : custom_storage_paths(found))
            if (c.found_here) {
              res.found_on_partition = other.index;
              res.found_at = c.found_at;
            }
          custom_scans.push_back({other.partition, std::move(found)});
          if (res.found_on_partition) break;
        }
      }
      res.resolved = res.found_on_partition.has_value() || (wanted.found_here && !p);
      if (wanted.found_here)
        res.resolution = "found on the file system of the settings file, at " + res.found_at;
      else if (res.resolved && !res.found_on_drive.empty())
        res.resolution = "found on the collection's drive " + res.found_on_drive + " at " + res.found_at;
      else if (res.resolved)
        res.resolution = "found on partition " + std::to_string(*res.found_on_partition) + " at " + res.found_at +
                         " (the recorded path, drive letter dropped, is a directory there)";
      else if (!p && !part.collection_drive.empty())
        res.resolution = "could not be resolved: no drive of the collection holds it (collect the folder it names)";
      else if (!p)
        res.resolution = "could not be resolved: the evidence is one folder, whose file system does not hold it";
      else
        res.resolution =
            "could not be resolved: " +
            std::string(res.partitions_searched.empty() ? "the evidence has no other file system"
                                                        : "no other file system of the evidence holds it") +
            (not_searched.empty() ? "" : "; not searched to the end: partition " + not_searched);
      if (!res.same_as.empty())
        res.resolution += " (the path " + res.same_as + " names too: looked for once, its rows written once)";
      report.custom_path_resolutions.push_back(std::move(res));
    }
  }
  report.custom_scans = custom_scans;
  return partial;
}

// Derives the selected formats from rows.jsonl, writes report.json and moves every output into OUTDIR. kExitOk, or
// the exit code of what failed (said on stderr).
int derive_and_publish(const RunOptions& opts, RunReport& report, OutputDir* outdir, const fs::path& rows_tmp,
                       const fs::path& report_tmp) {
  const fs::path& work = outdir->work();
  std::string error;
  // The other formats are read back from rows.jsonl, written into the work dir under their final names. The
  // database and the HTML report carry report.json's text, which has no "outputs" section yet: that section
  // describes these very files.
  std::set<std::string> derived_formats;
  std::string derived_files;
  for (const OutputFormatInfo& f : output_formats())
    if (f.derived && format_selected(opts, f.name)) {
      derived_formats.insert(f.name);
      derived_files += (derived_files.empty() ? "" : ", ") + std::string(f.file);
    }
  DeriveResult derived;
  if (!derived_formats.empty()) {
    progress("writing %s", derived_files.c_str());
    FormatContext ctx;
    ctx.display_tz = opts.display_tz;
    ctx.report_json = run_report_json(report);
    ctx.tool_version = ROO_INGEST_VERSION;
    std::error_code size_ec;
    const uint64_t rows_bytes = fs::file_size(rows_tmp, size_ec);
    auto shown = [&](uint64_t done, int64_t rows, bool last) {
      progress_update("writing formats", "from rows.jsonl", rows, "rows", done,
                      size_ec ? std::nullopt : std::optional<uint64_t>(rows_bytes), last);
    };
    if (!derive_outputs(rows_tmp, work, derived_formats, ctx, &derived, &error, shown))
      return fail(kExitInternal, error);
  }
  report.outputs = outputs_report(opts, report, derived);
  if (!write_file(report_tmp, run_report_json(report))) return fail(kExitInternal, "cannot write report.json");

  // Move into place only when complete: a killed run never leaves output that looks finished, nor outputs of an
  // earlier run beside its own. A format not asked for (roo.body, which the workers always write) is removed with
  // the work dir.
  std::vector<std::string> files, every_name;
  for (const DerivedOutput& file : report.outputs->files) {
    files.push_back(file.file);
    const OutputFormatInfo* f = find_output_format(file.format);
    if (f && f->folder) files.push_back(f->folder);
  }
  for (const OutputFormatInfo& f : output_formats()) {
    every_name.push_back(f.file);
    if (f.folder) every_name.push_back(f.folder);
  }
  if (!outdir->publish(files, every_name, &error)) return fail(kExitInternal, error);
  return kExitOk;
}

}  // namespace

std::vector<std::string> password_lines(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(std::move(line));
    at = end + 1;
  }
  return out;
}

int run(const RunOptions& opts) {
  std::string error;
  if (!time_zone_exists(opts.display_tz, &error)) return fail(kExitUsage, error);  // before any work, not after it

  // The evidence is opened (read-only) first: a missing or unreadable image is said before anything is created.
  std::error_code ec;
  std::unique_ptr<tsk::Image> image;
  if (!opts.folder.empty()) {
    if (!fs::is_directory(opts.folder, ec))
      return fail(kExitEvidence, opts.folder + ": not a directory (--dir takes a folder: a triage collection or a "
                                               "mounted image)");
  } else {
    try {
      image = tsk::Image::open(opts.image_paths);
    } catch (const tsk::EvidenceError& e) {
      return fail(e.exit_code, e.what());
    }
  }

  std::optional<OutputDir> outdir = open_output_dir(opts, &error);
  if (!outdir) return fail(kExitUsage, error);

  RunReport report;
  std::vector<PartitionJob> jobs = plan_jobs(opts, std::move(image), report);
  const fs::path& work = outdir->work();
  const JobsRun ran = run_jobs(opts, jobs, work, report);
  bool partial = ran.partial;
  const int parsed = ran.parsed;

  if (homes_found(report) == size_t{0}) {
    report.warnings.push_back(no_home_warning(opts));
    std::fprintf(stderr, "roo-ingest: warning: %s\n", report.warnings.back().c_str());
  }

  if (resolve_custom_paths(opts, jobs, work, report)) partial = true;

  // rows.jsonl and roo.body = the parts' files in volume order, then the second round's.
  const fs::path rows_tmp = work / "rows.jsonl", body_tmp = work / "roo.body", report_tmp = work / "report.json";
  {
    std::vector<fs::path> row_parts, body_parts;
    for (auto* list : {&report.partitions, &report.custom_scans})
      for (auto& [p, part] : *list) {
        row_parts.push_back(part.rows_path);
        body_parts.push_back(part.body_path);
        report.totals.merge(part.counts);
      }
    if (!assemble(row_parts, rows_tmp) || !assemble(body_parts, body_tmp))
      return fail(kExitInternal, "writing rows failed (disk full?)");
  }

  if (const int code = derive_and_publish(opts, report, &*outdir, rows_tmp, report_tmp); code != kExitOk) return code;

  if (!opts.quiet) std::fputs(run_summary(report).c_str(), stdout);
  if (parsed == 0 && !jobs.empty() && !partial) {
    std::string why;
    for (const auto& [p, part] : report.partitions)
      if (!part.reason.empty()) why += (why.empty() ? "" : "; ") + part.reason;
    const int code = fail(kExitNothingReadable, opts.image_paths.front() + ": no file system could be opened (" +
                                                    (why.empty() ? "no partition holds one" : why) +
                                                    "); is it a disk image? report.json lists every partition");
    return report.verification && verification_failed(*report.verification) ? kExitNotVerified : code;
  }
  if (report.verification && verification_failed(*report.verification)) return kExitNotVerified;
  return partial ? kExitPartial : kExitOk;
}

}  // namespace roo
