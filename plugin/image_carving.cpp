#include "plugin/image_carving.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "core/row_writer.h"
#include "core/sha256.h"
#include "core/text_util.h"
#include "plugin/formats/body_file.h"
#include "plugin/progress.h"
#include "plugin/run.h"
#include "tsk_glue/unallocated.h"

namespace roo {

namespace {

// Passes the carved rows on unchanged, after counting each (report.json's scan.carving says what each area gave).
class CountingSink : public RowSink {
 public:
  CountingSink(RowSink& out, std::function<void(const Row&)> count) : out_(out), count_(std::move(count)) {}
  void emit(const Row& row) override {
    count_(row);
    out_.emit(row);
  }
  void take(Row&& row) override {
    count_(row);
    out_.emit(std::move(row));
  }
  void end_source(const std::string& sha) override { out_.end_source(sha); }

 private:
  RowSink& out_;
  std::function<void(const Row&)> count_;
};

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
// threads, each with its own view (libtsk handles are not shared), take the files largest first, one at a time: a
// root holds a few large task files among many small ones, and a fixed share could give one thread all the large
// ones. The records are merged in file order, so the result does not depend on the threads.
KnownRecords known_records(const OpenView& open_view, FileSystemView& view, const std::vector<RooFile>& files,
                           unsigned threads) {
  std::vector<std::vector<KnownRecords::Digest>> digests(files.size());
  std::vector<std::vector<int32_t>> places(files.size());  // each record's record_index in the file's rows
  std::vector<size_t> largest_first(files.size());
  for (size_t i = 0; i < files.size(); ++i) largest_first[i] = i;
  std::stable_sort(largest_first.begin(), largest_first.end(), [&](size_t a, size_t b) {
    return files[a].meta.size.value_or(0) > files[b].meta.size.value_or(0);
  });
  std::atomic<size_t> next_file{0};
  auto list = [&](FileSystemView& v) {
    std::vector<char> buf(kReadBytes);
    for (size_t n; (n = next_file.fetch_add(1)) < files.size();) {
      const size_t i = largest_first[n];
      auto src = v.open(files[i].meta);
      if (!src) continue;
      RecordPlaces record_places;
      Carver c([&](CarvedValue&& r) {
        digests[i].push_back(sha256_digest(r.text));
        const int64_t place = record_places.next(r);
        places[i].push_back(place > INT32_MAX ? KnownRecords::kNoPlace : static_cast<int32_t>(place));
      }, true);
      c.begin_run(0);
      uint64_t at = 0;
      for (int64_t n; (n = src->read_at(at, buf.data(), buf.size())) > 0; at += static_cast<uint64_t>(n))
        c.feed(buf.data(), static_cast<size_t>(n));
      c.end_run();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back([&] {
      std::string why;
      if (auto own = open_view(&why)) list(*own);  // a thread without a view of its own leaves the files to the others
    });
  list(view);
  for (std::thread& t : pool) t.join();
  KnownRecords known;
  for (size_t i = 0; i < files.size(); ++i) {
    std::string task;
    if (files[i].identity && files[i].identity->session_id && is_task_file(files[i].meta.name)) {
      task = *files[i].identity->session_id;
      known.identities.emplace(task, *files[i].identity);
    }
    for (size_t r = 0; r < digests[i].size(); ++r)
      known.add(digests[i][r], task, {static_cast<uint32_t>(i), places[i][r]});
    std::vector<KnownRecords::Digest>().swap(digests[i]);
    std::vector<int32_t>().swap(places[i]);
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
// it finds and looks it up in `known` (sealed before the workers start), so the emitting thread need not. With
// `decryption`, the container's bytes are read decrypted with an unlocked volume's key.
void carve_runs(const RunOptions& opts, const std::vector<tsk::CarveRun>& runs, const KnownRecords& known,
                CarvedRecordEmitter& emitter, CarveStats& stats, const std::string& where,
                std::shared_ptr<const tsk::ContainerDecryption> decryption = nullptr) {
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
    auto src = tsk::CarveSource::open(opts.image_paths, std::nullopt, &why, std::nullopt, decryption);
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
          const Sha256Digest digest = sha256_digest(v.text);  // here, in parallel, not on the emitting thread
          v.sha256 = to_hex(digest.data(), digest.size());
          v.known_task = known.task_of(digest);
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

// End of the JSON string starting at line[at] (its opening quote): the index just past its closing quote.
size_t string_end(const std::string& line, size_t at) {
  for (size_t i = at + 1; i < line.size(); ++i) {
    if (line[i] == '\\') ++i;
    else if (line[i] == '"') return i + 1;
  }
  return std::string::npos;
}

// Appends entries (JSON objects joined by ',') to a row line's also_in, as the row writer would have written them:
// also_in is the first kind-specific field, right after `text` (ParseContext::row sets it before any other), so it
// is found, or goes, there. The keys before `text` have string or null values, in which `,"text":` cannot occur.
bool insert_also_in(std::string& line, const std::string& entries) {
  const size_t key = line.find(",\"text\":");
  if (key == std::string::npos) return false;
  size_t end = key + 8;
  if (line.compare(end, 4, "null") == 0) end += 4;
  else if (end < line.size() && line[end] == '"') end = string_end(line, end);
  else return false;
  if (end == std::string::npos) return false;
  static const std::string kAlsoIn = ",\"also_in\":[";
  if (line.compare(end, kAlsoIn.size(), kAlsoIn) != 0) {
    line.insert(end, kAlsoIn + entries + "]");
    return true;
  }
  // Its closing bracket: the list holds objects of strings, numbers, null and [[n,n]].
  int depth = 0;
  for (size_t i = end + kAlsoIn.size() - 1; i < line.size(); ++i) {
    if (line[i] == '"') {
      i = string_end(line, i);
      if (i == std::string::npos) return false;
      --i;
    } else if (line[i] == '[' || line[i] == '{') {
      ++depth;
    } else if ((line[i] == ']' || line[i] == '}') && --depth == 0) {
      line.insert(i, "," + entries);
      return true;
    }
  }
  return false;
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

std::vector<RooFile> roo_files_parsed(const ScanReport& scan) {
  std::vector<RooFile> files;
  std::set<std::pair<std::string, uint64_t>> seen;  // path, inode: a file read twice is listed once
  for (const FileParseRecord& f : scan.files) {
    // Orphans too: --deep reads only Roo files from $OrphanFiles, whose made-up names (OrphanFile-<inode>) say
    // nothing.
    if (!is_roo_record_file(f.meta.name) && f.meta.recovery != Recovery::orphan) continue;
    if (!f.meta.inode || !seen.insert({f.meta.path, *f.meta.inode}).second) continue;
    RooFile file{f.meta, std::nullopt};
    if (f.identity && !f.identity->surface.empty()) file.identity = f.identity;
    files.push_back(std::move(file));
  }
  return files;
}

// Whether p's volume is the one of its APFS container whose job carves the container's free blocks.
static bool carves_container_free_blocks(const tsk::Partition& p) {
  if (!p.container || !p.pool_volume) return false;
  for (const tsk::PoolVolume& v : p.container->volumes)
    if (!v.encrypted) return v.block == p.pool_volume->block;
  return false;
}

void carve_file_system(const RunOptions& opts, const tsk::Partition& p, const OpenView& open_view,
                       FileSystemView& view, const std::vector<RooFile>& files, RowSink& out, CarveStats& stats,
                       CarvedCopies* copies) {
  const auto started = std::chrono::steady_clock::now();
  std::string why;
  // An unlocked encrypted volume's blocks are ciphertext as stored: they are carved decrypted with its key
  // (docs/architecture.md "FileVault"). Should no password unlock it here (it opened for the scan), nothing of it
  // is carved, and its completeness statement says so (plugin/report.cpp).
  std::shared_ptr<const tsk::ContainerDecryption> decryption;
  if (p.pool_volume && p.pool_volume->encrypted) {
    decryption = tsk::CarveSource::unlock(opts.image_paths, p.offset_bytes, p.pool_volume->uuid, opts.passwords, &why);
    if (!decryption) {
      stats.errors.push_back(why);
      return;
    }
  }
  const std::optional<uint64_t> pool_block =
      p.pool_volume ? std::optional<uint64_t>(p.pool_volume->block) : std::nullopt;
  auto src = tsk::CarveSource::open(opts.image_paths, p.offset_bytes, &why, pool_block, decryption);
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
  // An APFS container's free blocks belong to no volume, and every volume sees the same ones: as stored, they are
  // carved once, by the job of the container's first volume that is not encrypted, and their rows name no volume.
  // Which volume a freed block was encrypted for cannot be told from it, so each unlocked encrypted volume's job
  // carves all of them again decrypted with its key: only bytes that decrypt to records the carver accepts give
  // rows, and those name that volume (ciphertext of another key, or plain bytes, decrypt to noise).
  const bool carves_free_blocks = !p.pool_volume || decryption || carves_container_free_blocks(p);
  stats.unallocated_of = !p.pool_volume      ? "file system"
                         : decryption         ? "apfs container, decrypted"
                         : carves_free_blocks ? "apfs container"
                                              : "none";
  if (p.pool_volume && !decryption) unalloc.volume.pool_volume.reset();
  regions.push_back(unalloc);
  std::vector<tsk::CarveRun> runs = carves_free_blocks ? src->unallocated_runs(0, &why) : std::vector<tsk::CarveRun>();
  if (!why.empty()) stats.errors.push_back(why);
  for (const tsk::CarveRun& r : runs) stats.unallocated_bytes += r.length;
  // The slack of the allocated Roo files the scan read: an older, longer version's tail can remain past the end.
  std::vector<tsk::CarveRun> slack;
  for (const RooFile& f : files) {
    if (!f.meta.inode || f.meta.recovery != Recovery::allocated || !f.meta.meta_allocated) continue;
    CarveRegion region = unalloc;
    region.file = f.meta;
    region.file.recovery = Recovery::slack;
    // The file's times are its live content's; what lies in its slack is older and has none of its own.
    region.file.mtime = region.file.atime = region.file.ctime = region.file.crtime = std::nullopt;
    if (auto r = src->slack_run(*f.meta.inode, static_cast<int>(regions.size()))) {
      slack.push_back(*r);
      stats.slack_bytes += r->length;
      regions.push_back(std::move(region));
    }
  }
  // The bytes of the deleted files the scan read lie in unallocated blocks: a record carved there is that file's own,
  // not another copy of it, so no row names it in also_in (it is still folded). Merged, so a record that spans two
  // adjacent extents is held too.
  std::vector<std::pair<uint64_t, uint64_t>> read_by_scan;
  if (copies)
    for (const RooFile& f : files)
      if (f.meta.inode && (f.meta.recovery != Recovery::allocated || !f.meta.meta_allocated))
        for (const tsk::CarveRun& r : src->content_runs(*f.meta.inode)) read_by_scan.push_back({r.offset, r.offset + r.length});
  std::sort(read_by_scan.begin(), read_by_scan.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& r : read_by_scan)
    if (!merged.empty() && r.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  // Slack runs in image order with the unallocated runs, so rows come in one order whatever the file order was.
  runs.insert(runs.end(), slack.begin(), slack.end());
  std::stable_sort(runs.begin(), runs.end(),
                   [](const tsk::CarveRun& a, const tsk::CarveRun& b) { return a.offset < b.offset; });
  src.reset();

  // The records the scan read first (on every thread), so the carving threads can fold what they find.
  const auto listing = std::chrono::steady_clock::now();
  const KnownRecords known = known_records(open_view, view, files, carving_threads(opts));
  stats.known_records_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - listing).count();
  CountingSink counted(out, [&stats](const Row& row) {
    ++(row.source && row.source->file.recovery == Recovery::slack ? stats.slack_rows : stats.unallocated_rows);
  });
  CarvedRecordEmitter emitter(known, regions, counted, stats, opts.native);
  if (copies) emitter.folds = &copies->folds;  // in image-offset order (the emitter's)
  emitter.read_by_scan = std::move(merged);
  carve_runs(opts, runs, known, emitter, stats,
             "partition " + std::to_string(p.index) + " (" + view.volume().fs_type + ")", decryption);
  emitter.finish();
  if (copies) copies->regions = regions;
  stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

bool add_carved_copies(const std::filesystem::path& rows_jsonl, const std::vector<RooFile>& files,
                       const CarvedCopies& copies) {
  // (path, inode, record_index) -> its carved copies, in fold order; their entries are written as the row passes.
  std::map<std::tuple<std::string, uint64_t, int64_t>, std::vector<const CarvedFold*>> entries;
  std::set<std::string> paths;
  for (const CarvedFold& f : copies.folds) {
    if (f.place.file >= files.size() || !files[f.place.file].meta.inode) continue;
    const FileMeta& m = files[f.place.file].meta;
    entries[{m.path, *m.inode, f.place.record_index}].push_back(&f);
    paths.insert(m.path);
  }
  if (entries.empty()) return true;
  const std::filesystem::path tmp = rows_jsonl.string() + ".also_in";
  std::ifstream in(rows_jsonl, std::ios::binary);
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  std::string line;
  while (in && out && std::getline(in, line)) {
    // Only the rows of the few files with folds are parsed; the rest are copied as they are.
    bool candidate = false;
    for (const std::string& p : paths) candidate = candidate || line.find(p) != std::string::npos;
    if (candidate) {
      rapidjson::Document d;
      if (!d.Parse(line.data(), line.size()).HasParseError() && d.IsObject() && d.HasMember("source") &&
          d["source"].IsObject()) {
        const rapidjson::Value& s = d["source"];
        auto member = [&](const char* k) -> const rapidjson::Value* {
          auto it = s.FindMember(k);
          return it == s.MemberEnd() ? nullptr : &it->value;
        };
        const rapidjson::Value* path = member("path");
        const rapidjson::Value* inode = member("inode");
        const rapidjson::Value* index = member("record_index");
        if (path && path->IsString() && inode && inode->IsUint64() && index && (index->IsNull() || index->IsInt64())) {
          const int64_t at = index->IsNull() ? KnownRecords::kWholeFile : index->GetInt64();
          if (auto it = entries.find({path->GetString(), inode->GetUint64(), at}); it != entries.end()) {
            std::string listed;
            for (const CarvedFold* f : it->second) {
              if (!listed.empty()) listed += ',';
              listed += carved_copy_json(copies.regions[static_cast<size_t>(f->region)], f->offset, f->length);
            }
            insert_also_in(line, listed);
          }
        }
      }
    }
    out << line << '\n';
  }
  const bool ok = in.eof() && out.good();
  out.close();
  std::error_code ec;
  if (ok && !out.fail()) std::filesystem::rename(tmp, rows_jsonl, ec);
  if (!ok || out.fail() || ec) {
    std::filesystem::remove(tmp, ec);
    return false;
  }
  return true;
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
  const size_t first_area = stats.unpartitioned_areas.size();
  for (const tsk::CarveRun& r : runs) {
    stats.unpartitioned_bytes += r.length;
    stats.unpartitioned_areas.push_back({r.offset, r.length, 0});
  }
  // A carved row's byte_offset is its record's image offset: the gap it starts in.
  CountingSink counted(out, [&stats, first_area](const Row& row) {
    const uint64_t at = row.position.byte_offset.value_or(0);
    for (size_t i = first_area; i < stats.unpartitioned_areas.size(); ++i) {
      CarveStats::Area& area = stats.unpartitioned_areas[i];
      if (at >= area.offset && at - area.offset < area.length) {
        ++area.rows;
        return;
      }
    }
  });
  KnownRecords known;
  CarvedRecordEmitter emitter(known, regions, counted, stats, opts.native);
  carve_runs(opts, runs, known, emitter, stats, "unpartitioned space");
  emitter.finish();
  stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void carve_partition(const RunOptions& opts, const tsk::Partition& p, const std::vector<tsk::Partition>& gaps,
                     const OpenView& open_view, const std::filesystem::path& rows, const std::filesystem::path& body, PartReport& part) {
  std::string why;
  // No open_view: the partition holds no file system libtsk opens, and only the gaps given are carved.
  std::unique_ptr<FileSystemView> view = open_view ? open_view(&why) : nullptr;
  if (open_view && !view) {
    part.scan.errors.push_back("carving: cannot open the file system again: " + why);
    if (gaps.empty()) return;
  }
  // The carved rows go to files of their own, appended after the scan's rows once complete (RowWriter patches
  // digests by its own offsets, so it writes a file from its start).
  const std::filesystem::path carved_rows = rows.string() + ".carved", carved_body = body.string() + ".carved";
  std::FILE* rf = std::fopen(carved_rows.c_str(), "wb");
  std::FILE* bf = std::fopen(carved_body.c_str(), "wb");
  bool ok = rf && bf;
  CarveStats stats;
  CarvedCopies copies;
  const std::vector<RooFile> files = roo_files_parsed(part.scan);
  if (ok) {
    RowWriter jsonl(rf);
    BodyFileWriter body_file(bf);
    RowFanOut out({&jsonl, &body_file, &part.counts});
    if (view) carve_file_system(opts, p, open_view, *view, files, out, stats, &copies);
    if (!gaps.empty()) carve_unpartitioned(opts, gaps, out, stats);
    ok = jsonl.ok() && body_file.ok();
  }
  // The scan's rows of records carving folded name the carved copies (also_in), before the carved rows follow.
  if (!copies.folds.empty() && !add_carved_copies(rows, files, copies))
    part.scan.errors.push_back("carving: could not add the carved copies to the rows' also_in");
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
