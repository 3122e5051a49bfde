#include "plugin/run.h"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "core/discovery.h"
#include "core/folder_evidence.h"
#include "core/row_writer.h"
#include "plugin/body_file.h"
#include "plugin/report.h"
#include "tsk_glue/tsk_evidence.h"

namespace roo {

namespace fs = std::filesystem;

namespace {

bool g_quiet = false;
void progress(const char* fmt, ...) {
  if (g_quiet) return;
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

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool write_file(const fs::path& p, const std::string& data) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  return std::fclose(f) == 0 && ok;
}

// What one partition's worker reports back (written by the worker as JSON, read by the parent).
struct PartitionJob {
  int index = 0;
  std::optional<tsk::Partition> partition;  // none for a folder
};

// Scans one partition (or the folder) and writes its rows and its part report. Runs inside the child process
// when isolation is on, so a libtsk crash here loses only this file system's unfinished work.
void scan_job(const RunOptions& opts, const PartitionJob& job, const fs::path& rows_path,
              const fs::path& report_path) {
  PartReport part;
  std::FILE* rows = std::fopen(rows_path.c_str(), "wb");
  if (!rows) {
    part.status = "failed";
    part.reason = "cannot write " + rows_path.string() + ": " + std::strerror(errno);
    write_file(report_path, part_report_json(part));
    return;
  }
  std::unique_ptr<tsk::Image> image;
  std::unique_ptr<FileSystemView> view;
  if (job.partition) {
    try {
      image = tsk::Image::open(opts.image_paths);
      std::string why;
      view = image->open_fs(*job.partition, fs::path(opts.image_paths.front()).filename().string(), &why);
      if (!view) {
        part.status = "no_file_system";
        part.reason = why;
      }
    } catch (const std::exception& e) {
      part.status = "failed";
      part.reason = e.what();
    }
  } else {
    view = std::make_unique<FolderFileSystem>(opts.folder);
  }
  if (view) {
    part.fs_type = view->volume().fs_type;
    RowWriter writer(rows, rows_path.parent_path().string());
    writer.set_flush_each_source(true);  // rows of finished sources survive a crash later in this file system
    scan_file_system(*view, writer, part.scan, opts.native);
    part.status = writer.ok() ? "parsed" : "failed";
    if (!writer.ok()) part.reason = "writing rows failed";
  }
  std::fclose(rows);
  write_file(report_path, part_report_json(part));
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return std::string("worker killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "worker exited with status " + std::to_string(WEXITSTATUS(status));
  return "worker ended abnormally";
}

// Drops a partial last line (a worker that died mid-write); returns how many complete rows remain.
void trim_to_last_newline(const fs::path& p) {
  std::error_code ec;
  auto size = fs::file_size(p, ec);
  if (ec || size == 0) return;
  std::string data = read_file(p);
  auto last = data.rfind('\n');
  fs::resize_file(p, last == std::string::npos ? 0 : last + 1, ec);
}

PartReport run_job(const RunOptions& opts, const PartitionJob& job, const fs::path& work) {
  const fs::path rows_path = work / ("part-" + std::to_string(job.index) + ".jsonl");
  const fs::path report_path = work / ("part-" + std::to_string(job.index) + ".json");
  if (!opts.isolate) {
    scan_job(opts, job, rows_path, report_path);
  } else {
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      scan_job(opts, job, rows_path, report_path);
      std::fflush(nullptr);
      _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
      PartReport part;
      part.status = "failed";
      part.reason = std::string("cannot start worker: ") + std::strerror(errno);
      return part;
    }
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) || !fs::exists(report_path)) {
      // The worker died (libtsk 4.11 can crash on damaged structures): keep the rows it finished, say so.
      trim_to_last_newline(rows_path);
      PartReport part;
      part.status = "crashed";
      part.reason = describe_wait_status(status);
      part.rows_path = rows_path;
      return part;
    }
  }
  PartReport part = parse_part_report(read_file(report_path));
  part.rows_path = rows_path;
  return part;
}

bool dir_is_empty(const fs::path& p) {
  std::error_code ec;
  return fs::is_empty(p, ec) && !ec;
}

bool is_inside(const fs::path& child, const fs::path& parent) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(child, ec), p = fs::weakly_canonical(parent, ec);
  auto cs = c.string(), ps = p.string();
  return cs == ps || (cs.size() > ps.size() && cs.compare(0, ps.size(), ps) == 0 && cs[ps.size()] == '/');
}

}  // namespace

int run(const RunOptions& opts) {
  g_quiet = opts.quiet;
  const fs::path out = opts.out_dir;

  // Evidence is sacred: outputs never go into the evidence folder or beside an image.
  std::error_code ec;
  if (!opts.folder.empty() && is_inside(out, opts.folder))
    return fail(kExitUsage, "OUTDIR " + out.string() + " is inside the evidence folder " + opts.folder +
                                "; choose an output directory outside the evidence");
  for (const std::string& img : opts.image_paths) {
    fs::path image_dir = fs::path(img).parent_path();
    if (image_dir.empty()) image_dir = ".";
    if (fs::weakly_canonical(out, ec) == fs::weakly_canonical(image_dir, ec))
      return fail(kExitUsage, "OUTDIR " + out.string() + " is the directory holding the image " + img +
                                  "; write outputs elsewhere so nothing is written beside the evidence");
  }
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) return fail(kExitUsage, "OUTDIR " + out.string() + " exists and is not a directory");
    if (!dir_is_empty(out) && !opts.force)
      return fail(kExitUsage, "OUTDIR " + out.string() + " is not empty; use --force to write into it anyway");
  } else if (!fs::create_directories(out, ec)) {
    return fail(kExitUsage, "cannot create OUTDIR " + out.string() + ": " + ec.message());
  }

  RunReport report;
  report.command_line = opts.command_line;
  std::vector<PartitionJob> jobs;
  if (!opts.folder.empty()) {
    if (!fs::is_directory(opts.folder, ec))
      return fail(kExitEvidence, opts.folder + ": not a directory (--dir takes a folder: a triage collection or a "
                                               "mounted image)");
    report.evidence_kind = "folder";
    report.evidence_paths = {opts.folder};
    jobs.push_back({0, std::nullopt});
  } else {
    std::unique_ptr<tsk::Image> image;
    try {
      image = tsk::Image::open(opts.image_paths);
    } catch (const tsk::EvidenceError& e) {
      return fail(e.exit_code, e.what());
    }
    report.evidence_kind = "image";
    report.evidence_paths = opts.image_paths;
    report.image = image->info();
    progress("opened %s image %s (%llu bytes, %zu segment(s))", report.image->type.c_str(),
             opts.image_paths.front().c_str(), static_cast<unsigned long long>(report.image->size),
             report.image->segments.size());
    for (const tsk::Partition& p : image->partitions()) {
      report.partitions.push_back({p, {}});
      if (p.kind == tsk::Partition::allocated) jobs.push_back({p.index, p});
    }
  }

  const fs::path work = out / ".roo-ingest-work";
  fs::remove_all(work, ec);  // a previous killed run's scratch: ours to remove
  if (!fs::create_directories(work, ec)) return fail(kExitUsage, "cannot create " + work.string() + ": " + ec.message());

  bool partial = false;
  for (const PartitionJob& job : jobs) {
    if (job.partition)
      progress("partition %d: scanning at byte offset %llu (%s)", job.index,
               static_cast<unsigned long long>(job.partition->offset_bytes), job.partition->description.c_str());
    else
      progress("folder %s: scanning", opts.folder.c_str());
    PartReport part = run_job(opts, job, work);
    if (part.status == "crashed" || part.status == "failed") partial = true;
    progress("  %s%s%s", part.status.c_str(), part.fs_type.empty() ? "" : (" " + part.fs_type).c_str(),
             part.reason.empty() ? "" : (": " + part.reason).c_str());
    bool placed = false;
    for (auto& [p, r] : report.partitions)
      if (job.partition && p && p->index == job.index) {
        r = part;
        placed = true;
      }
    if (!placed) report.partitions.push_back({std::nullopt, part});
  }

  // rows.jsonl = the parts in volume order; roo.body derived from it line by line.
  const fs::path rows_tmp = work / "rows.jsonl", body_tmp = work / "roo.body", report_tmp = work / "report.json";
  {
    std::FILE* rows = std::fopen(rows_tmp.c_str(), "wb");
    std::FILE* body = std::fopen(body_tmp.c_str(), "wb");
    if (!rows || !body) return fail(kExitInternal, "cannot write into " + work.string());
    for (auto& [p, part] : report.partitions) {
      if (part.rows_path.empty()) continue;
      std::ifstream in(part.rows_path, std::ios::binary);
      std::string line;
      while (std::getline(in, line)) {
        line += '\n';
        std::fwrite(line.data(), 1, line.size(), rows);
        rapidjson::Document row;
        row.Parse(line.data(), line.size() - 1);
        if (row.HasParseError() || !row.IsObject()) return fail(kExitInternal, "a worker wrote an unreadable row");
        report.count_row(row);
        if (auto b = body_line_for_row(row)) {
          std::fwrite(b->data(), 1, b->size(), body);
          ++report.body_lines;
        }
      }
    }
    bool ok = std::fclose(rows) == 0;
    ok = std::fclose(body) == 0 && ok;
    if (!ok) return fail(kExitInternal, "writing rows failed (disk full?)");
  }
  if (!write_file(report_tmp, run_report_json(report))) return fail(kExitInternal, "cannot write report.json");

  // Move into place only when complete: a killed run never leaves output that looks finished.
  for (const char* name : {"rows.jsonl", "roo.body", "report.json"}) {
    fs::rename(work / name, out / name, ec);
    if (ec) return fail(kExitInternal, std::string("cannot move ") + name + " into " + out.string() + ": " + ec.message());
  }
  fs::remove_all(work, ec);

  if (!opts.quiet) std::fputs(run_summary(report).c_str(), stdout);
  return partial ? kExitPartial : kExitOk;
}

}  // namespace roo
