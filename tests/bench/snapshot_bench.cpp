// What reading an APFS volume's snapshots costs: the Data volume of fixtures/apfs/macos-apfs-snap.E01 scanned as the
// live volume alone, with its one snapshot, and with that snapshot opened 24 times over (24 snapshots that all keep
// the state the one does: as hourly Time Machine snapshots mostly do, each of them shares nearly every extent with
// the live volume). Prints CPU seconds (user+sys) per scan, the rows, how many snapshot copies were read and how many
// were not (same extents), and the ratios to the live-only scan. Not a test: timings are never checked.
//
//   snapshot_bench IMAGE [REPEATS]
//
// The scan is the one roo-ingest runs on a volume (core/discovery.h scan_file_system), rows serialised as rows.jsonl
// lines (row_to_json_line) and dropped.
#include <sys/resource.h>
#include <tsk/libtsk.h>

#include <cstdio>
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
  if (argc < 2) {
    std::fprintf(stderr, "usage: snapshot_bench IMAGE [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  auto image = roo::tsk::Image::open({argv[1]});
  const roo::tsk::Partition* data = nullptr;
  const roo::tsk::PoolVolume* found = nullptr;
  std::vector<roo::tsk::Partition> parts = image->partitions();
  for (const roo::tsk::Partition& p : parts)
    if (p.container)
      for (const roo::tsk::PoolVolume& v : p.container->volumes)
        if (!v.snapshots.empty() && !found) {
          data = &p;
          found = &v;
        }
  if (!found) {
    std::fprintf(stderr, "snapshot_bench: no APFS volume with a snapshot in %s\n", argv[1]);
    return 1;
  }
  const roo::tsk::PoolVolume& vol = *found;
  const roo::tsk::PoolVolume::Snapshot& snap = vol.snapshots.front();
  // The image opened again through libtsk directly: the views below share it as Image::open_fs's do.
  const TSK_TCHAR* const paths[] = {argv[1]};
  std::shared_ptr<TSK_IMG_INFO> img(tsk_img_open(1, paths, TSK_IMG_TYPE_DETECT, 0), tsk_img_close);
  if (!img) {
    std::fprintf(stderr, "snapshot_bench: libtsk cannot open %s\n", argv[1]);
    return 1;
  }
  roo::VolumeInfo info;
  info.evidence = "bench";
  info.partition_offset = data->offset_bytes;
  info.fs_type = "apfs";
  info.pool_volume = roo::PoolVolumeRef{vol.uuid, vol.name, vol.role, vol.block};

  auto scan = [&](int snapshots) {
    Figures f;
    for (int i = 0; i < repeats; ++i) {
      const double start = cpu_seconds();
      std::string why;
      roo::tsk::PoolVolumeFs live = roo::tsk::open_pool_volume(img.get(), data->offset_bytes, vol.block, "", &why);
      if (!live.fs) {
        std::fprintf(stderr, "snapshot_bench: %s\n", why.c_str());
        std::exit(1);
      }
      auto live_view = std::make_unique<roo::tsk::TskFileSystemView>(img, live.fs, info, std::vector<std::string>{},
                                                                     std::move(live.keep));
      std::unique_ptr<roo::FileSystemView> view;
      roo::tsk::SnapshotMergingView* merged = nullptr;
      if (snapshots == 0) {
        view = std::move(live_view);
      } else {
        std::vector<roo::tsk::OpenedSnapshot> opened;
        for (int s = 0; s < snapshots; ++s) {
          auto v = roo::tsk::open_pool_volume_snapshot(img, data->offset_bytes, vol.block, snap.xid, info, &why);
          if (!v) {
            std::fprintf(stderr, "snapshot_bench: %s\n", why.c_str());
            std::exit(1);
          }
          roo::SnapshotRef ref = roo::tsk::snapshot_ref(snap);
          ref.name += "#" + std::to_string(s + 1);
          opened.push_back({std::move(ref), std::move(v)});
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
      if (merged) f.counts = merged->counts();
    }
    f.seconds /= repeats;
    f.opening /= repeats;
    return f;
  };

  const Figures none = scan(0), one = scan(1), many = scan(24);
  std::printf("snapshot_bench: %s, Data volume, %d scans each (CPU seconds per scan, user+sys)\n", argv[1], repeats);
  auto line = [&](const char* what, const Figures& f) {
    std::printf("  %-13s %8.4f s (opening %.4f s)  %4lld rows  snapshot copies read %lld, not read (same extents) %lld"
                "  ratio %.2f\n",
                what, f.seconds, f.opening, static_cast<long long>(f.rows), static_cast<long long>(f.counts.listed),
                static_cast<long long>(f.counts.same_extents), none.seconds > 0 ? f.seconds / none.seconds : 0.0);
  };
  line("0 snapshots", none);
  line("1 snapshot", one);
  line("24 snapshots", many);
  return 0;
}
