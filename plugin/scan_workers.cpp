#include "plugin/scan_workers.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "core/row_writer.h"
#include "plugin/file_copy.h"
#include "plugin/formats/body_file.h"
#include "core/store_assembly.h"
#include "plugin/task_queue.h"

namespace roo {

namespace fs = std::filesystem;

namespace {

// The byte ranges of one work unit in a worker's rows and body files, and its slice of the worker's parsed files.
struct UnitSpan {
  int64_t unit = 0;
  int worker = 0;
  uint64_t rows_begin = 0, rows_end = 0, body_begin = 0, body_end = 0;
  size_t files_begin = 0, files_end = 0;
};

struct WorkerRun {
  bool opened = false;
  std::string why, fs_type;
  ScanReport scan;
  RowCounts counts;
  std::vector<UnitSpan> units;
  bool write_ok = true;
};

uint64_t position(std::FILE* f) {
  std::fflush(f);
  const off_t at = ftello(f);
  return at < 0 ? 0 : static_cast<uint64_t>(at);
}

struct SharedProgress {
  std::mutex mu;
  int64_t files = 0;
  uint64_t bytes = 0, planned = 0;
};

// Joins the workers' rows and body lines while they run: each unit, once closed, is copied to the end of the joined
// files as soon as every unit before it is there. The workers take the small tasks in name order (plugin/task_queue.h),
// so the units close roughly in unit order and little is left to copy when the last worker stops; the end-of-run
// join copied every row (316 MB on the benchmark image, 0.15 s with nothing else to do). The workers' files and units
// files are written as before and kept until the join is complete: a crash still leaves what join_worker_outputs
// (recovering) needs, and anything short of a complete join falls back to it.
//
// The copying is done by the worker that closes a unit (of every unit that is then next in line, its own or others'),
// not by a thread of its own: such a thread gets a malloc arena of its own from glibc (a free() is enough), the last
// one put back when the scan ends and so the first one --deep's carving threads take, and a fresh arena grows fresh
// memory while the workers' arenas keep theirs (+18 MB peak RSS on the dense carving bench).
class OrderedJoin {
 public:
  OrderedJoin(const fs::path& rows, const fs::path& body, int workers)
      : paths_{rows, body}, inputs_(static_cast<size_t>(workers)) {
    for (int k = 0; k < workers; ++k) files_.push_back(worker_files(rows, body, k));
    rows_out_ = open(rows.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    body_out_ = open(body.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ok_ = rows_out_ >= 0 && body_out_ >= 0;
  }
  ~OrderedJoin() {
    close_all();
    if (!finished_) {  // the rows are not to be joined (a worker could not open the file system)
      std::error_code ec;
      for (const fs::path& p : paths_) fs::remove(p, ec);
    }
  }

  void opened() {
    std::lock_guard<std::mutex> lock(mu_);
    ++opened_;
  }
  // A worker closed a unit (position() flushed its files: they hold every byte of it). Unless another worker is
  // copying already (it goes on to this one when its turn comes), copies every unit that is next in line.
  // between_sources: the worker's rows are all written and patched. Sources end inside their unit, so it always is;
  // if it ever were not, a digest could still be patched into bytes already copied, and the join is left to
  // join_worker_outputs at the end, which copies them after.
  void closed(const UnitSpan& span, bool between_sources) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!between_sources) ok_ = false;
    closed_[span.unit] = span;
    if (copying_) return;
    copying_ = true;
    for (auto it = closed_.find(next_); ok_ && it != closed_.end(); it = closed_.find(next_)) {
      const UnitSpan s = it->second;
      closed_.erase(it);
      lock.unlock();
      const bool copied = copy(s);
      lock.lock();
      ok_ = ok_ && copied;
      ++next_;
      ++joined_;
    }
    copying_ = false;
  }
  // After every worker has stopped: whether every unit any worker opened is joined. Then the workers' files are
  // removed; otherwise they are kept for join_worker_outputs, which writes the joined files afresh.
  bool finish() {
    std::lock_guard<std::mutex> lock(mu_);
    close_all();
    finished_ = true;
    const bool complete = ok_ && closed_.empty() && joined_ == opened_;
    if (complete) {
      std::error_code ec;
      for (const WorkerFiles& wf : files_)
        for (const fs::path& p : {wf.rows, wf.body, wf.units}) fs::remove(p, ec);
    }
    return complete;
  }

 private:
  struct Inputs {
    int rows = -1, body = -1;
  };

  bool copy(const UnitSpan& s) {
    Inputs& in = inputs_[static_cast<size_t>(s.worker)];  // only the copying worker touches these
    const WorkerFiles& wf = files_[static_cast<size_t>(s.worker)];
    if (in.rows < 0) in.rows = open(wf.rows.c_str(), O_RDONLY | O_CLOEXEC);
    if (in.body < 0) in.body = open(wf.body.c_str(), O_RDONLY | O_CLOEXEC);
    return in.rows >= 0 && in.body >= 0 && copy_range(rows_out_, in.rows, s.rows_begin, s.rows_end) &&
           copy_range(body_out_, in.body, s.body_begin, s.body_end);
  }

  void close_all() {
    for (Inputs& in : inputs_)
      for (int* fd : {&in.rows, &in.body})
        if (*fd >= 0) {
          close(*fd);
          *fd = -1;
        }
    for (int* fd : {&rows_out_, &body_out_})
      if (*fd >= 0) {
        if (close(*fd) != 0) ok_ = false;
        *fd = -1;
      }
  }

  std::vector<fs::path> paths_;  // the joined rows and body files
  std::vector<WorkerFiles> files_;
  std::vector<Inputs> inputs_;   // read descriptors of each worker's files
  int rows_out_ = -1, body_out_ = -1;
  std::mutex mu_;
  std::map<int64_t, UnitSpan> closed_;  // closed, not yet joined
  int64_t next_ = 0;                    // the unit to join next
  int64_t opened_ = 0, joined_ = 0;
  bool copying_ = false;  // a worker is copying: the others leave what they close to it
  bool ok_ = true;
  bool finished_ = false;
};

// One worker's rows, body lines and units file, and the unit it is writing.
class WorkerOutput {
 public:
  WorkerOutput(int worker, std::FILE* rows, std::FILE* body, std::FILE* units, const ScanReport& scan,
               OrderedJoin* ordered_join, const RowWriter& jsonl)
      : worker_(worker), rows_(rows), body_(body), units_(units), scan_(scan), join_(ordered_join), jsonl_(jsonl) {}

  // The units file is written as units open and close, so the rows of a worker that dies can still be put in order
  // (join_worker_outputs, recovering).
  void open_unit(int64_t unit) {
    close_unit();
    open_ = UnitSpan{unit, worker_, position(rows_), 0, position(body_), 0, scan_.files.size(), 0};
    std::fprintf(units_, "open %" PRId64 " %" PRIu64 " %" PRIu64 "\n", unit, open_.rows_begin, open_.body_begin);
    std::fflush(units_);
    is_open_ = true;
    if (join_) join_->opened();
  }
  void close_unit() {
    if (!is_open_) return;
    open_.rows_end = position(rows_);
    open_.body_end = position(body_);
    open_.files_end = scan_.files.size();
    std::fprintf(units_, "close %" PRId64 " %" PRIu64 " %" PRIu64 "\n", open_.unit, open_.rows_end, open_.body_end);
    std::fflush(units_);
    units.push_back(open_);
    is_open_ = false;
    if (join_) join_->closed(open_, jsonl_.between_sources());
  }
  std::vector<UnitSpan> units;  // closed

 private:
  const int worker_;
  std::FILE *rows_, *body_, *units_;
  const ScanReport& scan_;
  OrderedJoin* join_;
  const RowWriter& jsonl_;
  UnitSpan open_{};
  bool is_open_ = false;
};

// Runs one task item in a unit of its own: its rows through the worker's sinks, what they tell their home collected
// apart (TaskQueue::gather merges it). An item that throws is dropped, and its unit left open.
void run_item(TaskQueue& queue, const TaskQueue::Item& item, FileSystemView& view, RowSink& out, ScanReport& report,
              WorkerOutput& output) {
  try {
    output.open_unit(item.unit);
    HomeTasks told;
    const int64_t unit = item.unit;
    UserWordsCollector collect(out, told, &unit);
    item.items->run(item.index, view, collect, report);
    output.close_unit();
    queue.done(item, std::move(told));
  } catch (...) {
    queue.dropped(item);
    throw;
  }
}

// Worker 0's TaskRunner: each root's items go to the queue, and worker 0's own rows go on in a unit after them. When
// it must wait for the items anyway (at a home's end, at the end of the scan) it runs the queued ones itself.
class QueueRunner : public TaskRunner {
 public:
  QueueRunner(TaskQueue& queue, FileSystemView& view, RowSink& out, ScanReport& report, WorkerOutput& output)
      : queue_(queue), view_(view), out_(out), report_(report), output_(output) {}

  void run(std::shared_ptr<const TaskItems> items) override {
    output_.close_unit();
    queue_.add(std::move(items));
    unit_ = queue_.next_unit();
    output_.open_unit(unit_);
  }
  void gather(HomeTasks& home) override {
    if (run_queued()) {
      unit_ = queue_.next_unit();
      output_.open_unit(unit_);
    }
    queue_.gather(home);
  }
  const int64_t* position() const override { return &unit_; }
  // The plan is complete: the items still queued are run here too.
  void finish() {
    queue_.close();
    run_queued();
  }

 private:
  bool run_queued() {
    bool ran = false;
    while (std::optional<TaskQueue::Item> item = queue_.take(false)) {
      output_.close_unit();
      run_item(queue_, *item, view_, out_, report_, output_);
      ran = true;
    }
    return ran;
  }

  TaskQueue& queue_;
  FileSystemView& view_;
  RowSink& out_;
  ScanReport& report_;
  WorkerOutput& output_;
  int64_t unit_ = 0;  // unit 0: worker 0's rows before the first item
};

// Worker k: worker 0 walks and plans (setup.scan, with a QueueRunner when there are several workers); the others run
// task items from the queue until it is closed and empty.
void run_worker(const ScanWorkersSetup& setup, int k, TaskQueue* queue, SharedProgress& progress,
                OrderedJoin* ordered_join, WorkerRun& out) {
  // However worker 0 ends, no more items come: the others stop once the queue is empty.
  struct CloseQueue {
    TaskQueue* queue;
    ~CloseQueue() {
      if (queue) queue->close();
    }
  } close_queue{k == 0 ? queue : nullptr};
  const WorkerFiles wf = worker_files(setup.rows, setup.body, k);
  std::FILE* rows = std::fopen(wf.rows.c_str(), "wb");
  std::FILE* body = std::fopen(wf.body.c_str(), "wb");
  std::FILE* units = std::fopen(wf.units.c_str(), "wb");
  auto close_all = [&] {
    bool ok = true;
    for (std::FILE* f : {rows, body, units})
      if (f && std::fclose(f) != 0) ok = false;
    rows = body = units = nullptr;
    return ok;
  };
  if (!rows || !body || !units) {
    out.write_ok = false;
    out.why = "cannot write into " + wf.rows.parent_path().string() + ": " + std::strerror(errno);
    close_all();
    return;
  }
  // Large stdio buffers: rows are hundreds of MB for big tasks, and every write() is a syscall (costly in a VM).
  std::setvbuf(rows, nullptr, _IOFBF, 1 << 20);
  std::setvbuf(body, nullptr, _IOFBF, 1 << 20);
  std::unique_ptr<WorkerOutput> output;
  try {
    std::unique_ptr<FileSystemView> view = setup.open_view(&out.why);
    if (!view) {
      close_all();
      return;
    }
    out.opened = true;
    out.fs_type = view->volume().fs_type;
    if (setup.opened) {
      std::lock_guard<std::mutex> lock(progress.mu);
      setup.opened(out.fs_type);
    }
    RowWriter jsonl(rows);  // flushes after every source: finished sources' rows survive a later crash
    BodyFileWriter body_file(body);
    std::vector<RowSink*> sinks = {&jsonl, &body_file, &out.counts};
    if (k == 0 && setup.worker0_extra_sink) sinks.push_back(setup.worker0_extra_sink);
    RowFanOut fan_out(sinks);
    output = std::make_unique<WorkerOutput>(k, rows, body, units, out.scan, ordered_join, jsonl);
    out.scan.file_done = [&](const FileParseRecord& f) {
      if (!setup.file_done) return;
      std::lock_guard<std::mutex> lock(progress.mu);
      ++progress.files;
      progress.bytes += f.bytes;
      setup.file_done(progress.files, progress.bytes, progress.planned);
    };
    if (k == 0) {
      out.scan.bytes_planned = [&](uint64_t bytes) {
        std::lock_guard<std::mutex> lock(progress.mu);
        progress.planned += bytes;
      };
      output->open_unit(0);  // the work before the first task item
      ScanOptions options = setup.options;
      std::optional<QueueRunner> runner;
      if (queue) {
        runner.emplace(*queue, *view, fan_out, out.scan, *output);
        options.runner = &*runner;
      }
      setup.scan(*view, fan_out, out.scan, options);
      if (runner) {
        runner->finish();
        // What the items run after the scan met (the scan took its view's errors before them).
        for (const std::string& e : view->errors()) out.scan.errors.push_back(e);
      }
    } else {
      while (std::optional<TaskQueue::Item> item = queue->take(true))
        run_item(*queue, *item, *view, fan_out, out.scan, *output);
      for (const std::string& e : view->errors()) out.scan.errors.push_back(e);
    }
    output->close_unit();
    out.units = std::move(output->units);
    out.scan.file_done = nullptr;
    out.scan.bytes_planned = nullptr;
    out.write_ok = jsonl.ok() && body_file.ok();
  } catch (const std::exception& e) {
    out.write_ok = false;
    out.why = std::string("scan failed: ") + e.what();
    if (output) out.units = std::move(output->units);  // the units it closed; the one it failed in stays open
  }
  if (!close_all()) out.write_ok = false;
}

// Writes target from the given ranges of the workers' files, in order; a range that continues the previous one of the
// same file is copied with it (a worker's units that follow one another are one copy).
bool write_ranges(const fs::path& target, const std::vector<fs::path>& inputs,
                  const std::vector<std::tuple<int, uint64_t, uint64_t>>& ranges) {
  const int out = open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) return false;
  std::vector<int> in_fds;
  for (const fs::path& p : inputs) in_fds.push_back(open(p.c_str(), O_RDONLY | O_CLOEXEC));
  bool ok = true;
  int from = -1;
  uint64_t begin = 0, end = 0;
  auto flush = [&] {
    if (from >= 0 && end > begin) ok = in_fds[static_cast<size_t>(from)] >= 0 &&
                                       copy_range(out, in_fds[static_cast<size_t>(from)], begin, end) && ok;
  };
  for (const auto& [worker, b, e] : ranges) {
    if (e <= b) continue;
    if (worker == from && b == end) {
      end = e;
      continue;
    }
    flush();
    from = worker;
    begin = b;
    end = e;
  }
  flush();
  for (int fd : in_fds)
    if (fd >= 0) close(fd);
  return close(out) == 0 && ok;
}

// The units a worker's units file lists. An opened unit that was never closed (the worker died in it) ends where its
// files end.
std::vector<UnitSpan> read_units(const WorkerFiles& wf, int worker) {
  std::vector<UnitSpan> spans;
  std::ifstream in(wf.units);
  std::string what;
  int64_t unit = 0;
  uint64_t rows_at = 0, body_at = 0;
  bool is_open = false;
  while (in >> what >> unit >> rows_at >> body_at) {
    if (what == "open") {
      spans.push_back(UnitSpan{unit, worker, rows_at, rows_at, body_at, body_at, 0, 0});
      is_open = true;
    } else if (what == "close" && is_open) {
      spans.back().rows_end = rows_at;
      spans.back().body_end = body_at;
      is_open = false;
    }
  }
  if (is_open) {
    std::error_code ec;
    spans.back().rows_end = std::max<uint64_t>(spans.back().rows_begin, fs::file_size(wf.rows, ec));
    spans.back().body_end = std::max<uint64_t>(spans.back().body_begin, fs::file_size(wf.body, ec));
  }
  return spans;
}

}  // namespace

WorkerFiles worker_files(const fs::path& rows, const fs::path& body, int worker) {
  const std::string w = ".w" + std::to_string(worker);
  return {rows.string() + w, body.string() + w, rows.string() + ".units" + w};
}

bool row_has_body_line(const rapidjson::Value& row) {
  // ISO strings compare in time order.
  return row.IsObject() && row.HasMember("time_utc") && row["time_utc"].IsString() &&
         std::string(row["time_utc"].GetString()) >= "1970-01-01T00:00:01";
}

int64_t cut_to_finished_sources(const fs::path& rows, const fs::path& body) {
  cut_unfinished_rows(rows.string());
  std::ifstream in(rows, std::ios::binary);
  std::string line;
  int64_t timed = 0;
  while (std::getline(in, line)) {
    rapidjson::Document d;
    d.Parse(line.data(), line.size());
    if (row_has_body_line(d)) ++timed;
  }
  // The body lines are in row order: keep as many as the rows kept have.
  std::ifstream body_in(body, std::ios::binary);
  uint64_t keep = 0;
  for (int64_t i = 0; i < timed && std::getline(body_in, line); ++i) keep += line.size() + 1;
  std::error_code ec;
  fs::resize_file(body, std::min<uint64_t>(keep, fs::file_size(body, ec)), ec);
  return timed;
}

bool join_worker_outputs(const fs::path& rows, const fs::path& body, int workers, bool recovering) {
  std::vector<UnitSpan> spans;
  std::vector<WorkerFiles> files;
  for (int k = 0; k < workers; ++k) {
    files.push_back(worker_files(rows, body, k));
    if (recovering && fs::exists(files.back().rows)) cut_to_finished_sources(files.back().rows, files.back().body);
    for (const UnitSpan& s : read_units(files.back(), k)) spans.push_back(s);
  }
  std::sort(spans.begin(), spans.end(), [](const UnitSpan& a, const UnitSpan& b) { return a.unit < b.unit; });
  bool ok = true;
  // One worker's files that hold every row in unit order (one thread, or the others had nothing): moved, not
  // copied. A worker takes a root's big tasks first, so its units can lie in its files out of unit order: then
  // they are copied in order like several workers' (a worker that started late and found every task taken once
  // made the output depend on timing).
  std::set<int> writers;
  for (const UnitSpan& s : spans)
    if (s.rows_end > s.rows_begin || s.body_end > s.body_begin) writers.insert(s.worker);
  bool in_unit_order = true;
  uint64_t rows_at = 0, body_at = 0;
  for (const UnitSpan& s : spans) {
    if (s.rows_end == s.rows_begin && s.body_end == s.body_begin) continue;
    in_unit_order = in_unit_order && s.rows_begin >= rows_at && s.body_begin >= body_at;
    rows_at = s.rows_end;
    body_at = s.body_end;
  }
  std::error_code ec;
  if (writers.size() <= 1 && in_unit_order) {
    const int only = writers.empty() ? 0 : *writers.begin();
    const WorkerFiles& wf = files[static_cast<size_t>(only)];
    uint64_t rows_end = 0, body_end = 0;
    for (const UnitSpan& s : spans)
      if (s.worker == only) {
        rows_end = std::max(rows_end, s.rows_end);
        body_end = std::max(body_end, s.body_end);
      }
    for (auto [from, to, end] : {std::tuple{wf.rows, rows, rows_end}, std::tuple{wf.body, body, body_end}}) {
      if (!fs::exists(from)) {
        std::ofstream(to, std::ios::binary);
        continue;
      }
      fs::resize_file(from, end, ec);  // anything past the last unit is not a finished unit's
      fs::rename(from, to, ec);
      if (ec) ok = false;
    }
  } else {
    std::vector<fs::path> row_files, body_files;
    for (const WorkerFiles& wf : files) {
      row_files.push_back(wf.rows);
      body_files.push_back(wf.body);
    }
    std::vector<std::tuple<int, uint64_t, uint64_t>> row_ranges, body_ranges;
    for (const UnitSpan& s : spans) {
      row_ranges.emplace_back(s.worker, s.rows_begin, s.rows_end);
      body_ranges.emplace_back(s.worker, s.body_begin, s.body_end);
    }
    // Two files, two copies at once: each is a kernel copy that holds its own file's lock, and there are two cores.
    std::future<bool> body_written =
        std::async(std::launch::async, [&] { return write_ranges(body, body_files, body_ranges); });
    const bool rows_written = write_ranges(rows, row_files, row_ranges);
    ok = body_written.get() && rows_written;
  }
  for (const WorkerFiles& wf : files)
    for (const fs::path& p : {wf.rows, wf.body, wf.units}) fs::remove(p, ec);
  return ok;
}

ScanWorkersResult scan_with_workers(const ScanWorkersSetup& setup) {
  const int workers = std::max(1, setup.workers);
  // Several workers share the task items through a queue; one runs them where discovery plans them.
  std::unique_ptr<TaskQueue> queue = workers > 1 ? std::make_unique<TaskQueue>(workers) : nullptr;
  SharedProgress progress;
  std::vector<WorkerRun> runs(static_cast<size_t>(workers));
  // One thread's files are moved into place at the end (join_worker_outputs): there is nothing to join as they go.
  std::shared_ptr<OrderedJoin> ordered_join =
      workers > 1 ? std::make_shared<OrderedJoin>(setup.rows, setup.body, workers) : nullptr;
  if (workers == 1) {
    run_worker(setup, 0, nullptr, progress, nullptr, runs[0]);
  } else {
    std::vector<std::thread> threads;
    for (int k = 0; k < workers; ++k)
      threads.emplace_back(
          [&, k] { run_worker(setup, k, queue.get(), progress, ordered_join.get(), runs[static_cast<size_t>(k)]); });
    for (std::thread& t : threads) t.join();
  }
  if (setup.workers_stopped)
    setup.workers_stopped(std::all_of(runs.begin(), runs.end(), [](const WorkerRun& r) { return r.opened; }),
                          [ordered_join, rows = setup.rows, body = setup.body, workers] {
                            if (ordered_join && ordered_join->finish()) return true;
                            return join_worker_outputs(rows, body, workers, false);
                          });

  ScanWorkersResult result;
  result.opened = true;
  for (const WorkerRun& r : runs) {
    result.write_ok = result.write_ok && r.write_ok;
    if (!r.opened) {
      result.opened = false;
      if (result.why.empty()) result.why = r.why;
    }
  }
  result.fs_type = runs[0].fs_type;
  if (!result.opened) return result;
  // Worker 0 walked everything and read every store: its report is the base. The parsed files come in unit order
  // from whichever worker did each unit; errors are every worker's, each once, sorted.
  std::vector<UnitSpan> spans;
  for (const WorkerRun& r : runs) spans.insert(spans.end(), r.units.begin(), r.units.end());
  std::sort(spans.begin(), spans.end(), [](const UnitSpan& a, const UnitSpan& b) { return a.unit < b.unit; });
  // Moved, not copied: each record holds its file's metadata and identity, and copying thousands of them cost more
  // than the rest of the merge.
  std::vector<FileParseRecord> files;
  size_t total_files = 0;
  for (const UnitSpan& s : spans) total_files += s.files_end - s.files_begin;
  files.reserve(total_files);
  for (const UnitSpan& s : spans) {
    std::vector<FileParseRecord>& from = runs[static_cast<size_t>(s.worker)].scan.files;
    files.insert(files.end(), std::make_move_iterator(from.begin() + static_cast<std::ptrdiff_t>(s.files_begin)),
                 std::make_move_iterator(from.begin() + static_cast<std::ptrdiff_t>(s.files_end)));
  }
  result.scan = std::move(runs[0].scan);
  result.scan.files = std::move(files);
  // Sorted: which worker met an error depends on which claimed the task, and the report must not.
  std::set<std::string> errors(result.scan.errors.begin(), result.scan.errors.end());
  for (size_t k = 1; k < runs.size(); ++k) errors.insert(runs[k].scan.errors.begin(), runs[k].scan.errors.end());
  result.scan.errors.assign(errors.begin(), errors.end());
  for (const WorkerRun& r : runs) result.counts.merge(r.counts);
  return result;
}

}  // namespace roo
