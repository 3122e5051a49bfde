#include "plugin/formats/derive.h"

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "core/json_records.h"
#include "plugin/formats/display_time.h"
#include "plugin/formats/output_file.h"

namespace roo {

namespace fs = std::filesystem;

namespace {

// Lines of rows.jsonl, one at a time: a line can be megabytes (a command's output) and the file hundreds of MB.
class LineReader {
 public:
  explicit LineReader(const fs::path& p) : file_(std::fopen(p.c_str(), "rb")) {
    if (file_) std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);  // few large reads, not one per 4 KiB
  }
  ~LineReader() {
    std::free(buf_);
    if (file_) std::fclose(file_);
  }
  bool ok() const { return file_ != nullptr; }
  // The next line without its '\n'; none at the end.
  std::optional<std::string_view> next() {
    ssize_t n = getline(&buf_, &cap_, file_);
    if (n < 0) return std::nullopt;
    if (n > 0 && buf_[n - 1] == '\n') --n;
    return std::string_view(buf_, static_cast<size_t>(n));
  }
  bool failed() const { return std::ferror(file_) != 0; }

 private:
  std::FILE* file_;
  char* buf_ = nullptr;
  size_t cap_ = 0;
};

// The bytes of rows parsed but not yet seen by every writer: the reader waits while they would exceed
// kDeriveInFlightBytes. Once it has had to wait, it waits until half the budget is free (or its row fits in an
// empty one), and only that wakes it: so it parses a run of rows per wake-up instead of waking each time the
// slowest writer finishes a row (a default run on the benchmark image switched threads 108k times, and spent
// the CPU of it, the other way).
class InFlight {
 public:
  void acquire(uint64_t bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!fits(bytes, kDeriveInFlightBytes)) {
      want_ = bytes;
      waiting_ = true;
      freed_.wait(lock, [&] { return fits(want_, wake_limit()); });
      waiting_ = false;
    }
    used_ += bytes;
  }
  void release(uint64_t bytes) {
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      used_ -= bytes;
      wake = waiting_ && fits(want_, wake_limit());
    }
    if (wake) freed_.notify_one();
  }

 private:
  bool fits(uint64_t bytes, uint64_t limit) const { return used_ == 0 || used_ + bytes <= limit; }
  // Half the budget, or all of it for a row larger than half.
  uint64_t wake_limit() const { return want_ > kDeriveInFlightBytes / 2 ? kDeriveInFlightBytes : kDeriveInFlightBytes / 2; }

  std::mutex mutex_;
  std::condition_variable freed_;
  uint64_t used_ = 0;
  uint64_t want_ = 0;  // the waiting row's bytes
  bool waiting_ = false;
};

// One parsed line, shared by the writers; it gives its bytes back when the last writer is done with it.
struct ParsedRow {
  ParsedRow(InFlight& budget, std::string_view text)
      : budget(budget), line(text), cost(kDeriveRowOverheadBytes + 3 * text.size()) {}
  ~ParsedRow() { budget.release(cost); }
  InFlight& budget;
  std::string line;
  rapidjson::Document row;  // its allocator frees the line's values when it goes
  uint64_t cost;
};

// A writer on its own thread, fed rows in file order. At the end of the rows it finishes its file there too (the
// l2tcsv sort, the SQLite indexes), so the formats' last steps overlap as well.
class WriterThread {
 public:
  explicit WriterThread(std::unique_ptr<FormatWriter> writer) : writer_(std::move(writer)) {
    thread_ = std::thread([this] { run(); });
  }
  ~WriterThread() { stop(false); }

  void push(std::shared_ptr<const ParsedRow> row) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      rows_.push_back(std::move(row));
    }
    ready_.notify_one();
  }
  // No more rows: finish (or, when finish is false, drop the file unfinished) and wait for the thread.
  void stop(bool finish) {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
      finish_ = finish;
    }
    ready_.notify_one();
    thread_.join();
  }
  bool finished_ok() const { return ok_; }
  const std::string& error() const { return error_; }
  FormatWriter& writer() { return *writer_; }

 private:
  // Takes every row queued at once, so the queue's lock is taken per batch rather than per row.
  void run() {
    std::deque<std::shared_ptr<const ParsedRow>> batch;
    for (;;) {
      bool finish = false;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return !rows_.empty() || done_; });
        if (!rows_.empty())
          batch.swap(rows_);
        else
          finish = finish_;
      }
      if (!batch.empty()) {
        for (auto& row : batch) {
          writer_->row(row->row, row->line);
          row.reset();  // the row's bytes go back to the budget as soon as the last writer is done with it
        }
        batch.clear();
        continue;
      }
      if (finish) ok_ = writer_->finish(&error_);
      return;
    }
  }

  std::unique_ptr<FormatWriter> writer_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<const ParsedRow>> rows_;
  bool done_ = false, finish_ = false;
  bool ok_ = false;
  std::string error_;
  std::thread thread_;
};

}  // namespace

bool derive_outputs(const fs::path& rows_jsonl, const fs::path& dir, const std::set<std::string>& formats,
                    const FormatContext& ctx, DeriveResult* result, std::string* error, const DeriveProgress& progress) {
  std::vector<const OutputFormatInfo*> chosen;
  bool need_zone = false;
  for (const OutputFormatInfo& f : output_formats())
    if (f.derived && formats.count(f.name)) {
      chosen.push_back(&f);
      need_zone = need_zone || f.needs_display_zone;
    }
  // The display zone is set for the whole pass (and the process's TZ put back after it): declared before the
  // writers, so it outlives them and their threads.
  std::unique_ptr<DisplayZone> zone;
  if (need_zone) {
    zone = DisplayZone::open(ctx.display_tz, error);
    if (!zone) return false;
  }
  InFlight budget;  // outlives every row the writers hold
  std::vector<std::unique_ptr<WriterThread>> writers;
  for (const OutputFormatInfo* f : chosen)
    writers.push_back(std::make_unique<WriterThread>(
        f->make(dir / f->file, ctx, f->needs_display_zone ? zone.get() : nullptr)));
  auto abandon = [&] {
    for (auto& w : writers) w->stop(false);
    return false;
  };

  LineReader in(rows_jsonl);
  if (!in.ok()) {
    *error = "cannot read " + rows_jsonl.string() + ": " + std::strerror(errno);
    return abandon();
  }
  uint64_t bytes_read = 0;
  while (auto line = in.next()) {
    bytes_read += line->size() + 1;
    if (progress && (result->rows_read & 1023) == 0) progress(bytes_read, result->rows_read, false);
    if (line->empty()) continue;
    const uint64_t cost = kDeriveRowOverheadBytes + 3 * line->size();
    budget.acquire(cost);
    auto parsed = std::make_shared<ParsedRow>(budget, *line);
    // core's parser converts numbers exactly (RapidJSON's own conversion can be off in the last place), so a number
    // written back into timeline.jsonl or the CSVs is the one rows.jsonl holds.
    std::string why;
    if (!parse_json(parsed->line.data(), parsed->line.size(), parsed->row, &why) || !parsed->row.IsObject()) {
      ++result->lines_unreadable;
      continue;
    }
    ++result->rows_read;
    for (auto& w : writers) w->push(parsed);
  }
  if (in.failed()) {
    *error = "cannot read " + rows_jsonl.string() + ": " + std::strerror(errno);
    return abandon();
  }
  if (progress) progress(bytes_read, result->rows_read, true);

  for (auto& w : writers) w->stop(true);
  bool ok = true;
  for (size_t i = 0; i < writers.size(); ++i) {
    const OutputFormatInfo& f = *chosen[i];
    WriterThread& w = *writers[i];
    if (!w.finished_ok() && ok) {
      *error = w.error().empty() ? "cannot write " + (dir / f.file).string() : w.error();
      ok = false;
    }
    DerivedOutput out{f.name, f.file, std::nullopt, std::nullopt, ""};
    if (const auto* counts = dynamic_cast<const CountingWriter*>(&w.writer())) {
      out.rows_written = counts->rows_written();
      out.rows_left_out = counts->rows_left_out();
      if (counts->rows_left_out() > 0) out.left_out_reason = counts->left_out_reason();
    }
    result->outputs.push_back(std::move(out));
  }
  return ok;
}

}  // namespace roo
