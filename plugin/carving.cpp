#include "plugin/carving.h"

#include <rapidjson/document.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_set>

#include "core/row_writer.h"
#include "core/sha256.h"
#include "plugin/body_file.h"
#include "plugin/progress.h"
#include "tsk_glue/unallocated.h"

namespace roo {

namespace {

// The Roo files whose records carving folds against: task files and their temp versions, the index, cli-history.
bool is_roo_record_file(const std::string& name) {
  for (const char* base : {"ui_messages.json", "api_conversation_history.json", "claude_messages.json",
                           "history_item.json", "_index.json", "cli-history.json"})
    if (name.find(base) != std::string::npos) return true;
  return false;
}

// A file of one task (its records attribute their carved neighbours to it), not the index or cli-history.
bool is_task_file(const std::string& name) {
  return name.find("_index.json") == std::string::npos && name.find("cli-history.json") == std::string::npos;
}

constexpr uint64_t kUnitBytes = 16u << 20;  // a work unit: long enough that a thread hand-over costs nothing
constexpr size_t kReadBytes = 4u << 20;     // one tsk_img_read: long contiguous reads, not one per block

// Every record of the Roo files the scan read, streamed through a nested Carver (never a whole file in memory). The
// files are shared out between `threads` threads, each with its own view (libtsk handles are not shared); the
// records are merged in file order, so the result does not depend on the threads.
KnownRecords known_records(const OpenView& open_view, FileSystemView& view, const std::vector<RooFile>& files,
                           unsigned threads) {
  std::vector<std::vector<KnownRecords::Digest>> digests(files.size());
  auto list = [&](FileSystemView& v, size_t first) {
    std::vector<char> buf(kReadBytes);
    for (size_t i = first; i < files.size(); i += threads) {
      auto src = v.open(files[i].meta);
      if (!src) continue;
      Carver c([&](CarvedValue&& r) { digests[i].push_back(KnownRecords::digest_of(sha256_hex(r.text))); }, true);
      c.begin_run(0);
      uint64_t at = 0;
      for (int64_t n; (n = src->read_at(at, buf.data(), buf.size())) > 0; at += static_cast<uint64_t>(n))
        c.feed(buf.data(), static_cast<size_t>(n));
      c.end_run();
    }
  };
  std::vector<std::thread> pool;
  std::vector<char> no_view(threads, 0);  // a thread that could not open its view: its share is listed here after
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::string why;
      if (auto own = open_view(&why))
        list(*own, t);
      else
        no_view[t] = 1;
    });
  list(view, 0);
  for (std::thread& t : pool) t.join();
  for (unsigned t = 1; t < threads; ++t)
    if (no_view[t]) list(view, t);
  KnownRecords known;
  for (size_t i = 0; i < files.size(); ++i) {
    std::string task;
    if (files[i].identity && files[i].identity->session_id && is_task_file(files[i].meta.name)) {
      task = *files[i].identity->session_id;
      known.identities.emplace(task, *files[i].identity);
    }
    for (const KnownRecords::Digest& d : digests[i]) known.add(d, task);
    std::vector<KnownRecords::Digest>().swap(digests[i]);
  }
  known.seal();
  return known;
}

// A run of consecutive records of one array that the scan read, all of them, gives no row: its bytes are not kept
// (memory; the emitting thread never reads them). Only runs inside the unit: the first and last may go on in the
// neighbouring units, where a record that is kept needs them as its neighbours.
void drop_folded_texts(std::vector<CarvedValue>& values) {
  for (size_t first = 0; first < values.size();) {
    size_t last = first;
    while (last + 1 < values.size() && continues_array(values[last], values[last + 1])) ++last;
    bool all_known = true;
    for (size_t i = first; i <= last; ++i) all_known = all_known && values[i].known_task;
    if (all_known && first > 0 && last + 1 < values.size())
      for (size_t i = first; i <= last; ++i) std::string().swap(values[i].text);
    first = last + 1;
  }
}

unsigned carving_threads(const RunOptions& opts) {
  return std::max(1u, opts.threads ? opts.threads : std::thread::hardware_concurrency());
}

// Carves the runs with `threads` workers, each with its own image handle, and hands the values to the emitter in
// unit order (so in image order): at most threads + 1 units are held ahead of the emitter. Each worker hashes what
// it finds and looks it up in `known` (sealed before the workers start), so the emitting thread need not.
void carve_runs(const RunOptions& opts, const std::vector<tsk::CarveRun>& runs, const KnownRecords& known,
                CarvedRecordEmitter& emitter, CarveStats& stats, const std::string& where) {
  const std::vector<tsk::CarveUnit> units = tsk::carve_units(runs, kUnitBytes);
  uint64_t total = 0;
  for (const tsk::CarveRun& r : runs) total += r.length;
  const unsigned threads =
      std::max<unsigned>(1, std::min<unsigned>(carving_threads(opts), static_cast<unsigned>(std::max<size_t>(units.size(), 1))));
  const size_t window = threads + 1;  // units done ahead of the emitter: what they found is held in memory

  struct Result {
    std::vector<CarvedValue> values;
    bool done = false;
  };
  std::vector<Result> results(units.size());
  std::mutex m;
  std::condition_variable cv;
  size_t next = 0, emitted = 0;
  std::string error;

  auto worker = [&]() {
    std::string why;
    auto src = tsk::CarveSource::open(opts.image_paths, std::nullopt, &why);
    std::vector<char> buf(kReadBytes);
    for (;;) {
      size_t u;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return next >= units.size() || next < emitted + window; });
        if (next >= units.size()) return;
        u = next++;
      }
      std::vector<CarvedValue> values;
      if (src) {
        const tsk::CarveUnit& unit = units[u];
        const tsk::CarveRun& run = runs[unit.run];
        Carver carver([&](CarvedValue&& v) {
          v.region = run.region;
          v.sha256 = sha256_hex(v.text);  // here, in parallel, rather than on the emitting thread
          v.known_task = known.task_of(v.sha256);
          v.looked_up = true;
          values.push_back(std::move(v));
        });
        // The bytes before the unit (same run) tell whether its first record follows another.
        const uint64_t back = std::min<uint64_t>(kCarveLookbehind, unit.from - run.offset);
        std::string before(back, '\0');
        if (back && src->read(unit.from - back, before.data(), back) != static_cast<int64_t>(back)) before.clear();
        carver.begin_run(unit.from, before);
        carver.set_scan_end(unit.to);
        const uint64_t run_end = run.offset + run.length;
        for (uint64_t at = unit.from; at < run_end && (at < unit.to || carver.wants_more());) {
          const size_t len = static_cast<size_t>(std::min<uint64_t>(buf.size(), run_end - at));
          const int64_t n = src->read(at, buf.data(), len);
          if (n <= 0) break;  // unreadable: what was open is cut there
          carver.feed(buf.data(), static_cast<size_t>(n));
          at += static_cast<uint64_t>(n);
        }
        carver.end_run();
        drop_folded_texts(values);
      }
      std::lock_guard<std::mutex> lock(m);
      if (!src && error.empty()) error = why;
      results[u].values = std::move(values);
      results[u].done = true;
      cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(worker);
  uint64_t done_bytes = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    std::vector<CarvedValue> values;
    {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return results[u].done; });
      values = std::move(results[u].values);
      ++emitted;
      cv.notify_all();
    }
    for (CarvedValue& v : values) emitter.add(std::move(v));
    done_bytes += units[u].to - units[u].from;
    progress_update("carving", where, static_cast<int64_t>(u + 1), "units", done_bytes, total);
  }
  for (std::thread& t : pool) t.join();
  if (!error.empty()) stats.errors.push_back(error);
  progress_update("carving", where, static_cast<int64_t>(units.size()), "units", done_bytes, total, true);
  stats.bytes_carved += total;
}

FileMeta pseudo_file(const char* name) {
  FileMeta f;
  f.path = name;
  f.name = name;
  f.name_allocated = false;
  f.meta_allocated = false;
  f.recovery = Recovery::carved;
  return f;
}

}  // namespace

std::vector<RooFile> roo_files_in_rows(const std::filesystem::path& rows_jsonl) {
  std::vector<RooFile> files;
  std::set<std::pair<std::string, uint64_t>> seen;  // path, inode
  std::unordered_set<std::string> sources_seen;      // source objects met (their text up to the sha256)
  std::ifstream in(rows_jsonl, std::ios::binary);
  std::string line;
  auto str = [](const rapidjson::Value& o, const char* k) -> std::optional<std::string> {
    auto it = o.FindMember(k);
    return it != o.MemberEnd() && it->value.IsString() ? std::optional<std::string>(it->value.GetString())
                                                       : std::nullopt;
  };
  while (std::getline(in, line)) {
    // Only rows whose source names a Roo record file need parsing, or an orphan (--deep reads only Roo files from
    // $OrphanFiles, whose made-up names, OrphanFile-<inode>, say nothing).
    bool candidate = line.find("\"recovery\":\"orphan\"") != std::string::npos;
    for (const char* base : {"ui_messages.json", "api_conversation_history.json", "claude_messages.json",
                             "history_item.json", "_index.json", "cli-history.json"})
      candidate = candidate || line.find(base) != std::string::npos;
    if (!candidate) continue;
    // Every row of one source file repeats its source object: the first row of each is parsed, the rest skipped
    // unparsed. The row's own source object is its last `,"source":{` (only `native`, an escaped string, follows
    // it); it is compared up to its sha256, which the first row's identity comes with anyway.
    if (const size_t at = line.rfind(",\"source\":{"); at != std::string::npos) {
      const size_t sha = line.find("\"sha256\"", at);
      if (!sources_seen.insert(line.substr(at, sha == std::string::npos ? std::string::npos : sha - at)).second)
        continue;
    }
    rapidjson::Document d;
    if (d.Parse(line.data(), line.size()).HasParseError() || !d.IsObject() || !d.HasMember("source") ||
        !d["source"].IsObject())
      continue;
    const rapidjson::Value& s = d["source"];
    FileMeta f;
    f.path = str(s, "path").value_or("");
    f.name = f.path.substr(f.path.rfind('/') + 1);
    if (!is_roo_record_file(f.name) && str(s, "recovery") != "orphan") continue;
    if (s.HasMember("inode") && s["inode"].IsUint64()) f.inode = s["inode"].GetUint64();
    if (!f.inode || !seen.insert({f.path, *f.inode}).second) continue;
    f.attr = str(s, "attr").value_or("");
    f.name_allocated = s.HasMember("name_allocated") && s["name_allocated"].IsBool() && s["name_allocated"].GetBool();
    f.meta_allocated = s.HasMember("meta_allocated") && s["meta_allocated"].IsBool() && s["meta_allocated"].GetBool();
    const std::string recovery = str(s, "recovery").value_or("");
    f.recovery = recovery == "allocated" ? Recovery::allocated
                 : recovery == "deleted" ? Recovery::deleted
                 : recovery == "orphan"  ? Recovery::orphan
                                         : Recovery::temp_leftover;
    if (s.HasMember("size") && s["size"].IsUint64()) f.size = s["size"].GetUint64();
    RooFile file{f, std::nullopt};
    if (auto surface = str(d, "surface")) {
      TaskIdentity id;
      id.surface = *surface;
      id.user = str(d, "user");
      id.session_id = str(d, "session_id");
      id.parent_session_id = str(d, "parent_session_id");
      id.root_session_id = str(d, "root_session_id");
      id.project_path = str(d, "project_path");
      file.identity = id;
    }
    files.push_back(std::move(file));
  }
  return files;
}

void carve_file_system(const RunOptions& opts, const tsk::Partition& p, const OpenView& open_view,
                       FileSystemView& view, const std::vector<RooFile>& files, RowSink& out, CarveStats& stats) {
  const auto started = std::chrono::steady_clock::now();
  std::string why;
  auto src = tsk::CarveSource::open(opts.image_paths, p.offset_bytes, &why);
  if (!src) {
    stats.errors.push_back(why);
    return;
  }
  std::vector<CarveRegion> regions;
  CarveRegion unalloc;
  unalloc.volume = view.volume();
  unalloc.file = pseudo_file("$Unallocated");
  unalloc.fs_offset = p.offset_bytes;
  unalloc.block_size = src->block_size();
  regions.push_back(unalloc);
  std::vector<tsk::CarveRun> runs = src->unallocated_runs(0, &why);
  if (!why.empty()) stats.errors.push_back(why);
  for (const tsk::CarveRun& r : runs) stats.unallocated_bytes += r.length;
  // The slack of the allocated Roo files the scan read: an older, longer version's tail can remain past the end.
  std::vector<tsk::CarveRun> slack;
  for (const RooFile& f : files) {
    if (!f.meta.inode || f.meta.recovery != Recovery::allocated || !f.meta.meta_allocated) continue;
    CarveRegion region = unalloc;
    region.file = f.meta;
    region.file.recovery = Recovery::slack;
    if (auto r = src->slack_run(*f.meta.inode, static_cast<int>(regions.size()))) {
      slack.push_back(*r);
      stats.slack_bytes += r->length;
      regions.push_back(std::move(region));
    }
  }
  // Slack runs in image order with the unallocated runs, so rows come in one order whatever the file order was.
  runs.insert(runs.end(), slack.begin(), slack.end());
  std::stable_sort(runs.begin(), runs.end(),
                   [](const tsk::CarveRun& a, const tsk::CarveRun& b) { return a.offset < b.offset; });
  src.reset();

  // The records the scan read first (on every thread), so the carving threads can fold what they find.
  const KnownRecords known = known_records(open_view, view, files, carving_threads(opts));
  CarvedRecordEmitter emitter(known, regions, out, stats, opts.native);
  carve_runs(opts, runs, known, emitter, stats,
             "partition " + std::to_string(p.index) + " (" + view.volume().fs_type + ")");
  emitter.finish();
  stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void carve_unpartitioned(const RunOptions& opts, const std::vector<tsk::Partition>& gaps, RowSink& out,
                         CarveStats& stats) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<CarveRegion> regions;
  CarveRegion region;
  region.volume.evidence = std::filesystem::path(opts.image_paths.front()).filename().string();
  region.volume.image_paths = opts.image_paths;
  region.volume.fs_type = "none";
  region.file = pseudo_file("$Unpartitioned");
  regions.push_back(region);
  std::vector<tsk::CarveRun> runs;
  for (const tsk::Partition& g : gaps)
    if (g.kind == tsk::Partition::unallocated && g.length_bytes) runs.push_back({g.offset_bytes, g.length_bytes, 0});
  for (const tsk::CarveRun& r : runs) stats.unpartitioned_bytes += r.length;
  KnownRecords known;
  CarvedRecordEmitter emitter(known, regions, out, stats, opts.native);
  carve_runs(opts, runs, known, emitter, stats, "unpartitioned space");
  emitter.finish();
  stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void carve_partition(const RunOptions& opts, const tsk::Partition& p, const std::vector<tsk::Partition>& gaps,
                     const OpenView& open_view, const std::filesystem::path& rows, const std::filesystem::path& body, PartReport& part) {
  std::string why;
  std::unique_ptr<FileSystemView> view = open_view(&why);
  if (!view) {
    part.scan.errors.push_back("carving: cannot open the file system again: " + why);
    return;
  }
  // The carved rows go to files of their own, appended after the scan's rows once complete (RowWriter patches
  // digests by its own offsets, so it writes a file from its start).
  const std::filesystem::path carved_rows = rows.string() + ".carved", carved_body = body.string() + ".carved";
  std::FILE* rf = std::fopen(carved_rows.c_str(), "wb");
  std::FILE* bf = std::fopen(carved_body.c_str(), "wb");
  bool ok = rf && bf;
  CarveStats stats;
  if (ok) {
    RowWriter jsonl(rf);
    BodyFileWriter body_file(bf);
    RowFanOut out({&jsonl, &body_file, &part.counts});
    carve_file_system(opts, p, open_view, *view, roo_files_in_rows(rows), out, stats);
    if (!gaps.empty()) carve_unpartitioned(opts, gaps, out, stats);
    ok = jsonl.ok() && body_file.ok();
  }
  if (rf) ok = std::fclose(rf) == 0 && ok;
  if (bf) ok = std::fclose(bf) == 0 && ok;
  for (const auto& [from, to] : {std::pair{carved_rows, rows}, std::pair{carved_body, body}}) {
    std::error_code ec;
    if (std::filesystem::file_size(from, ec) > 0 && !ec) {
      std::ifstream in(from, std::ios::binary);
      std::ofstream app(to, std::ios::binary | std::ios::app);
      app << in.rdbuf();
      ok = ok && app.good();
    }
    std::filesystem::remove(from, ec);
  }
  if (!ok) part.scan.errors.push_back("carving: writing rows failed (disk full?)");
  for (const std::string& e : stats.errors) part.scan.errors.push_back("carving: " + e);
  part.scan.carving_json = stats.to_json();
}

}  // namespace roo
