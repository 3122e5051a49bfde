// What reading an APFS volume's snapshots costs: the volume with the most snapshots in IMAGE (the bench's 24-snapshot
// Data volume, tests/bench/make_snapshot_volume.py) scanned as the live volume alone and with every snapshot, in the
// same run. Prints CPU seconds (user+sys) per scan, the rows, and the ratio of the two; then, per snapshot, its files
// listed as copies of their own, not listed (same extents as the live file's or a newer snapshot's copy), and opened,
// against EXPECTED (lines "XID<TAB>NAME<TAB>FILES": how many files each snapshot alone holds, from the image's plan).
// Not a test: timings are never checked; the exit status is 1 when a snapshot's opened files differ from EXPECTED
// (a snapshot copy read although its extents are a newer copy's, or a differing one not read).
//
//   snapshot_bench IMAGE EXPECTED [REPEATS]
//
// The scan is the one roo-ingest runs on a volume (core/discovery.h scan_file_system), rows serialised as rows.jsonl
// lines (row_to_json_line) and dropped; the snapshots are opened as tsk_glue/tsk_evidence.cpp opens them, newest
// first.
#include <sys/resource.h>
#include <tsk/libtsk.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include "core/discovery.h"
#include "core/row.h"
#include "tsk_glue/apfs_pool.h"
#include "tsk_glue/apfs_snapshots.h"
#include "tsk_glue/tsk_evidence.h"

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct CountingSink : roo::RowSink {
  void emit(const roo::Row& row) override {
    bytes += roo::row_to_json_line(row).size();
    ++rows;
  }
  int64_t rows = 0;
  uint64_t bytes = 0;
};

struct Figures {
  double seconds = 0;
  double opening = 0;  // of which opening the volume and its snapshots
  int64_t rows = 0;
  roo::tsk::SnapshotMergingView::Counts counts;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: snapshot_bench IMAGE EXPECTED [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 20;
  std::map<uint64_t, int64_t> expected;  // xid -> files that snapshot alone holds
  {
    std::ifstream in(argv[2]);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      uint64_t xid = 0;
      std::string name;
      int64_t files = 0;
      if (fields >> xid >> name >> files) expected[xid] = files;
    }
  }
  auto image = roo::tsk::Image::open({argv[1]});
  const roo::tsk::Partition* part = nullptr;
  const roo::tsk::PoolVolume* found = nullptr;
  std::vector<roo::tsk::Partition> parts = image->partitions();
  for (const roo::tsk::Partition& p : parts)
    if (p.container)
      for (const roo::tsk::PoolVolume& v : p.container->volumes)
        if (!found || v.snapshots.size() > found->snapshots.size()) {
          part = &p;
          found = &v;
        }
  if (!found || found->snapshots.empty()) {
    std::fprintf(stderr, "snapshot_bench: no APFS volume with a snapshot in %s\n", argv[1]);
    return 1;
  }
  const roo::tsk::PoolVolume& vol = *found;
  std::vector<const roo::tsk::PoolVolume::Snapshot*> newest_first;
  for (const roo::tsk::PoolVolume::Snapshot& s : vol.snapshots) newest_first.push_back(&s);
  std::stable_sort(newest_first.begin(), newest_first.end(), [](auto* a, auto* b) { return a->xid > b->xid; });
  // The image opened again through libtsk directly: the views below share it as Image::open_fs's do.
  const TSK_TCHAR* const paths[] = {argv[1]};
  std::shared_ptr<TSK_IMG_INFO> img(tsk_img_open(1, paths, TSK_IMG_TYPE_DETECT, 0), tsk_img_close);
  if (!img) {
    std::fprintf(stderr, "snapshot_bench: libtsk cannot open %s\n", argv[1]);
    return 1;
  }
  roo::VolumeInfo info;
  info.evidence = "bench";
  info.partition_offset = part->offset_bytes;
  info.fs_type = "apfs";
  info.pool_volume = roo::PoolVolumeRef{vol.uuid, vol.name, vol.role, vol.block};

  std::vector<std::pair<roo::SnapshotRef, roo::tsk::SnapshotMergingView::Counts>> by_snapshot;
  auto scan = [&](bool with_snapshots) {
    Figures f;
    for (int i = 0; i < repeats; ++i) {
      const double start = cpu_seconds();
      std::string why;
      roo::tsk::PoolVolumeFs live = roo::tsk::open_pool_volume(img.get(), part->offset_bytes, vol.block, "", &why);
      if (!live.fs) {
        std::fprintf(stderr, "snapshot_bench: %s\n", why.c_str());
        std::exit(1);
      }
      const std::shared_ptr<void> pool_keep = live.keep;
      auto live_view = std::make_unique<roo::tsk::TskFileSystemView>(img, live.fs, info, std::vector<std::string>{},
                                                                     std::move(live.keep));
      std::unique_ptr<roo::FileSystemView> view;
      roo::tsk::SnapshotMergingView* merged = nullptr;
      if (!with_snapshots) {
        view = std::move(live_view);
      } else {
        std::vector<roo::tsk::OpenedSnapshot> opened;
        for (const roo::tsk::PoolVolume::Snapshot* s : newest_first) {
          auto v = roo::tsk::open_pool_volume_snapshot(img, pool_keep, part->offset_bytes, vol.block, s->xid, info,
                                                       &why);
          if (!v) {
            std::fprintf(stderr, "snapshot_bench: snapshot %s: %s\n", s->name.c_str(), why.c_str());
            std::exit(1);
          }
          opened.push_back({roo::tsk::snapshot_ref(*s), std::move(v)});
        }
        auto m = std::make_unique<roo::tsk::SnapshotMergingView>(std::move(live_view), std::move(opened));
        merged = m.get();
        view = std::move(m);
      }
      f.opening += cpu_seconds() - start;
      CountingSink sink;
      roo::ScanReport report;
      roo::scan_file_system(*view, sink, report);
      f.seconds += cpu_seconds() - start;
      f.rows = sink.rows;
      if (merged) {
        f.counts = merged->counts();
        by_snapshot = merged->counts_by_snapshot();
      }
    }
    f.seconds /= repeats;
    f.opening /= repeats;
    return f;
  };

  const Figures none = scan(false), all = scan(true);
  std::printf("snapshot_bench: %s, volume %s (%zu snapshots), %d scans each (CPU seconds per scan, user+sys)\n",
              argv[1], vol.name.c_str(), vol.snapshots.size(), repeats);
  auto line = [&](const std::string& what, const Figures& f) {
    std::printf("  %-14s %8.4f s (opening %.4f s)  %4lld rows  snapshot files listed %lld, not listed (same "
                "extents) %lld, opened %lld; snapshot directories listed %lld, not listed (the live one's) %lld\n",
                what.c_str(), f.seconds, f.opening, static_cast<long long>(f.rows),
                static_cast<long long>(f.counts.listed), static_cast<long long>(f.counts.same_extents),
                static_cast<long long>(f.counts.opened), static_cast<long long>(f.counts.dirs_listed),
                static_cast<long long>(f.counts.dirs_unchanged));
  };
  line("0 snapshots", none);
  line(std::to_string(vol.snapshots.size()) + " snapshots", all);
  std::printf("  cost of %zu snapshots / cost of none: %.2f\n", vol.snapshots.size(),
              none.seconds > 0 ? all.seconds / none.seconds : 0.0);
  std::printf("  per snapshot (newest first): xid name: listed / not listed (same extents) / opened, expected\n");
  int wrong = 0;
  for (const auto& [ref, c] : by_snapshot) {
    const auto want = expected.find(ref.xid);
    const bool ok = want != expected.end() && want->second == c.opened;
    wrong += !ok;
    std::printf("    %3llu %s: %lld / %lld / %lld, expected %s%s\n", static_cast<unsigned long long>(ref.xid),
                ref.name.c_str(), static_cast<long long>(c.listed), static_cast<long long>(c.same_extents),
                static_cast<long long>(c.opened),
                want == expected.end() ? "(none)" : std::to_string(want->second).c_str(), ok ? "" : "  DIFFERS");
  }
  if (by_snapshot.size() != expected.size()) ++wrong;
  std::printf("  a snapshot's copy opened only when its extents differ: %s\n",
              wrong ? "NO (see DIFFERS above)" : "yes, in every snapshot");
  return wrong ? 1 : 0;
}
