// roo::tsk::Image against the committed fixture images (fixtures/images/, built by fixtures/build-images.sh).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "tests/tsk_glue/tsk_test_util.h"
#include "tsk_glue/segments.h"
#include "tsk_glue/tsk_evidence.h"

#include <tsk/libtsk.h>

namespace roo::tsk {
namespace {

using test::image;
using test::TempDir;
namespace fs = std::filesystem;

constexpr uint64_t kMiB = 1048576;

// Segment names of the split fixtures: demo-split.E01…, linux-ext4.raw.001…
std::string e0(int i) {
  char b[32];
  std::snprintf(b, sizeof b, "demo-split.E%02d", i);
  return b;
}
std::string r0(int i) {
  char b[32];
  std::snprintf(b, sizeof b, "linux-ext4.raw.%03d", i);
  return b;
}
int count_segments(std::string (*name)(int)) {
  int n = 0;
  while (fs::exists(image(name(n + 1)))) ++n;
  return n;
}

bool is_hex(const std::string& s, size_t len) {
  return s.size() == len && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Expects Image::open to throw; returns the error.
EvidenceError open_error(const std::vector<std::string>& paths) {
  try {
    Image::open(paths);
  } catch (const EvidenceError& e) {
    return e;
  }
  ADD_FAILURE() << "Image::open did not throw for " << paths.front();
  return EvidenceError("", 0, "");
}

std::vector<Partition> allocated(const std::vector<Partition>& all) {
  std::vector<Partition> out;
  for (const auto& p : all)
    if (p.kind == Partition::allocated) out.push_back(p);
  return out;
}

TEST(TskImage, DemoE01IsAGptDiskWithTwoPartitions) {
  auto img = Image::open({image("demo.E01")});
  const ImageInfo& info = img->info();
  EXPECT_EQ(info.type, "ewf");
  EXPECT_EQ(info.sector_size, 512u);
  ASSERT_EQ(info.segments.size(), 1u);
  EXPECT_EQ(info.segments[0], image("demo.E01"));
  EXPECT_TRUE(is_hex(info.stored_md5, 32)) << info.stored_md5;
  EXPECT_TRUE(is_hex(info.stored_sha1, 40)) << info.stored_sha1;
  EXPECT_TRUE(info.warnings.empty());

  auto parts = img->partitions();
  for (const auto& p : parts) EXPECT_EQ(p.vs_type, "gpt");
  auto fsparts = allocated(parts);
  ASSERT_EQ(fsparts.size(), 2u);
  // build-images.sh: p1 at sector 2048 (1 MiB), p2 right after it, both whole MiB; 1 MiB left at the end.
  EXPECT_EQ(fsparts[0].offset_bytes, kMiB);
  EXPECT_EQ(fsparts[0].description, "linux");
  EXPECT_EQ(fsparts[0].length_bytes % kMiB, 0u);
  EXPECT_EQ(fsparts[1].offset_bytes, fsparts[0].offset_bytes + fsparts[0].length_bytes);
  EXPECT_EQ(fsparts[1].description, "windows");
  EXPECT_EQ(fsparts[1].length_bytes % kMiB, 0u);
  EXPECT_EQ(info.size, fsparts[1].offset_bytes + fsparts[1].length_bytes + kMiB);
  EXPECT_LT(fsparts[0].index, fsparts[1].index);

  // the partition-table sectors and the gaps are listed too
  auto has = [&](Partition::Kind k, const std::string& desc) {
    return std::any_of(parts.begin(), parts.end(),
                       [&](const Partition& p) { return p.kind == k && p.description == desc; });
  };
  EXPECT_TRUE(has(Partition::meta, "GPT Header"));
  EXPECT_TRUE(has(Partition::meta, "Partition Table"));
  EXPECT_TRUE(has(Partition::meta, "Safety Table"));
  EXPECT_TRUE(has(Partition::unallocated, "Unallocated"));
  // slots are unique
  std::vector<int> idx;
  for (const auto& p : parts) idx.push_back(p.index);
  std::sort(idx.begin(), idx.end());
  EXPECT_EQ(std::adjacent_find(idx.begin(), idx.end()), idx.end());
}

TEST(TskImage, SplitE01HasTheSameDiskAndHashes) {
  auto whole = Image::open({image("demo.E01")});
  auto split = Image::open({image("demo-split.E01")});
  const ImageInfo& info = split->info();
  EXPECT_EQ(info.type, "ewf");
  ASSERT_GE(info.segments.size(), 2u);
  EXPECT_EQ(info.segments[0], image("demo-split.E01"));
  EXPECT_EQ(info.segments[1], image("demo-split.E02"));
  EXPECT_EQ(info.size, whole->info().size);
  EXPECT_EQ(info.stored_md5, whole->info().stored_md5);  // same raw disk
  EXPECT_EQ(info.stored_sha1, whole->info().stored_sha1);
  auto a = allocated(split->partitions()), b = allocated(whole->partitions());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].offset_bytes, b[i].offset_bytes);
    EXPECT_EQ(a[i].length_bytes, b[i].length_bytes);
  }
}

TEST(TskImage, SplitE01SegmentsGivenExplicitly) {
  std::vector<std::string> paths;
  for (int i = 1; i <= count_segments(e0); ++i) paths.push_back(image(e0(i)));
  ASSERT_GE(paths.size(), 2u);
  auto img = Image::open(paths);
  EXPECT_EQ(img->info().segments, paths);
  EXPECT_EQ(img->info().size, Image::open({image("demo.E01")})->info().size);
}

TEST(TskImage, SplitRawFindsAllSegments) {
  auto img = Image::open({image("linux-ext4.raw.001")});
  const ImageInfo& info = img->info();
  EXPECT_EQ(info.type, "raw");
  uint64_t total = 0;
  size_t count = 0;
  for (int i = 1;; ++i) {
    std::string p = image(r0(i));
    if (!fs::exists(p)) break;
    ASSERT_LT(count, info.segments.size());
    EXPECT_EQ(info.segments[count], p);
    total += fs::file_size(p);
    ++count;
  }
  EXPECT_GE(count, 2u);
  EXPECT_EQ(info.segments.size(), count);
  EXPECT_EQ(info.size, total);
  EXPECT_TRUE(info.stored_md5.empty());

  auto parts = img->partitions();
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].vs_type, "none");
  EXPECT_EQ(parts[0].offset_bytes, 0u);
  EXPECT_EQ(parts[0].length_bytes, info.size);
  EXPECT_EQ(parts[0].kind, Partition::allocated);
}

TEST(TskImage, OpenFsReportsTypes) {
  auto img = Image::open({image("demo.E01")});
  auto parts = allocated(img->partitions());
  ASSERT_EQ(parts.size(), 2u);
  std::string why;
  auto ext = img->open_fs(parts[0], "demo.E01", &why);
  ASSERT_TRUE(ext) << why;
  EXPECT_EQ(ext->volume().fs_type, "ext4");
  EXPECT_EQ(ext->volume().partition_offset, parts[0].offset_bytes);
  EXPECT_EQ(ext->volume().volume_index, parts[0].index);
  EXPECT_EQ(ext->volume().evidence, "demo.E01");
  EXPECT_EQ(ext->volume().image_paths, std::vector<std::string>{image("demo.E01")});
  EXPECT_TRUE(ext->errors().empty());
  auto ntfs = img->open_fs(parts[1], "demo.E01", &why);
  ASSERT_TRUE(ntfs) << why;
  EXPECT_EQ(ntfs->volume().fs_type, "ntfs");

  // views keep the image alive on their own
  img.reset();
  EXPECT_EQ(ntfs->root().path, "/");
  EXPECT_FALSE(ntfs->list_dir(ntfs->root()).empty());
}

TEST(TskImage, OpenFsRefusesNonFileSystemEntries) {
  auto img = Image::open({image("demo.E01")});
  for (const auto& p : img->partitions()) {
    if (p.kind == Partition::allocated) continue;
    std::string why;
    EXPECT_EQ(img->open_fs(p, "demo.E01", &why), nullptr);
    EXPECT_FALSE(why.empty());
  }
}

TEST(TskImage, BareFileSystemsInE01) {
  for (auto [name, type] : {std::pair{"deleted-ext4.E01", "ext4"}, std::pair{"deleted-ntfs.E01", "ntfs"}}) {
    auto img = Image::open({image(name)});
    auto parts = img->partitions();
    ASSERT_EQ(parts.size(), 1u) << name;
    EXPECT_EQ(parts[0].vs_type, "none");
    std::string why;
    auto view = img->open_fs(parts[0], name, &why);
    ASSERT_TRUE(view) << name << ": " << why;
    EXPECT_EQ(view->volume().fs_type, type);
    EXPECT_EQ(view->volume().partition_offset, 0u);
  }
}

// ---- errors ----

TEST(TskImageErrors, MissingFile) {
  std::string p = image("no-such-image.E01");
  auto e = open_error({p});
  EXPECT_EQ(e.exit_code, kExitEvidence);
  EXPECT_EQ(e.path, p);
  EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
}

TEST(TskImageErrors, NoPaths) { EXPECT_EQ(open_error({}).exit_code, kExitEvidence); }

TEST(TskImageErrors, Directory) {
  TempDir t;
  auto e = open_error({t.path().string()});
  EXPECT_EQ(e.exit_code, kExitEvidence);
  EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
}

TEST(TskImageErrors, EmptyFile) {
  TempDir t;
  std::string p = (t.path() / "empty.raw").string();
  std::ofstream(p).close();
  auto e = open_error({p});
  EXPECT_EQ(e.exit_code, kExitEvidence);
  EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
}

TEST(TskImageErrors, Unreadable) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads any file";
  TempDir t;
  std::string p = (t.path() / "secret.raw").string();
  std::ofstream(p) << "data";
  ::chmod(p.c_str(), 0);
  auto e = open_error({p});
  EXPECT_EQ(e.exit_code, kExitEvidence);
  EXPECT_NE(std::string(e.what()).find("permission denied"), std::string::npos) << e.what();
}

TEST(TskImageErrors, TextFileOpensAsRawWithoutFileSystem) {
  TempDir t;
  std::string p = (t.path() / "notes.txt").string();
  std::ofstream(p) << "just some text, not a disk image\n";
  auto img = Image::open({p});  // libtsk falls back to raw: not an open error
  EXPECT_EQ(img->info().type, "raw");
  auto parts = img->partitions();
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].vs_type, "none");
  std::string why;
  EXPECT_EQ(img->open_fs(parts[0], "notes.txt", &why), nullptr);
  EXPECT_NE(why.find("no file system"), std::string::npos) << why;
}

TEST(TskImageErrors, RandomBytesLookEncrypted) {
  TempDir t;
  std::string p = (t.path() / "noise.raw").string();
  std::mt19937 rng(42);
  std::string data(1 << 20, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  std::ofstream(p, std::ios::binary) << data;
  auto img = Image::open({p});
  auto parts = img->partitions();
  ASSERT_EQ(parts.size(), 1u);
  std::string why;
  EXPECT_EQ(img->open_fs(parts[0], "noise.raw", &why), nullptr);
  // libtsk 4.11 measures the entropy when no file system matches: "Possible encryption detected"
  EXPECT_NE(why.find("encrypt"), std::string::npos) << why;
}

TEST(TskImageErrors, MissingMiddleE01Segment) {
  TempDir t;
  t.link(e0(1));
  for (int i = 3; i <= count_segments(e0); ++i) t.link(e0(i));
  auto e = open_error({(t.path() / "demo-split.E01").string()});
  EXPECT_EQ(e.exit_code, kExitSegment);
  EXPECT_EQ(e.path, (t.path() / "demo-split.E02").string());
  EXPECT_NE(std::string(e.what()).find("missing segment 2"), std::string::npos) << e.what();
}

// A segment that is there but cut short (a copy that did not finish) is named, with where it is cut: libewf then
// looks for a segment after the last, which is not the one missing.
TEST(TskImageErrors, CutE01SegmentIsNamed) {
  for (int cut : {1, 2, 3}) {
    TempDir t;
    const int n = count_segments(e0);
    for (int i = 1; i <= n; ++i)
      if (i != cut) t.link(e0(i));
    const std::string copy = (t.path() / e0(cut)).string();
    fs::copy_file(image(e0(cut)), copy);
    fs::resize_file(copy, 1000000);  // the fixture's segments are 2-4 MB
    auto e = open_error({(t.path() / "demo-split.E01").string()});
    EXPECT_EQ(e.exit_code, kExitSegment);
    EXPECT_EQ(e.path, copy);
    const std::string what = e.what();
    EXPECT_NE(what.find("segment " + std::to_string(cut) + " of the EWF image demo-split.E01, " + e0(cut) +
                        ", is cut short at 1000000 bytes"),
              std::string::npos)
        << what;
  }
}

TEST(TskSegments, WholeEwfSegmentsAreNotCut) {
  for (const char* name : {"demo.E01", "demo-split.E01", "demo-split.E02", "demo-split.E03"})
    EXPECT_EQ(segments::ewf_segment_cut(image(name)), std::nullopt) << name;
  EXPECT_EQ(segments::ewf_segment_cut(image("linux-ext4.raw.001")), std::nullopt);  // no EWF: nothing to say
}

TEST(TskImageErrors, MissingLastE01Segment) {
  TempDir t;
  int n = count_segments(e0);
  ASSERT_GE(n, 2);
  for (int i = 1; i < n; ++i) t.link(e0(i));
  auto e = open_error({(t.path() / "demo-split.E01").string()});
  EXPECT_EQ(e.exit_code, kExitSegment);
  EXPECT_EQ(e.path, (t.path() / e0(n)).string());
}

TEST(TskImageErrors, MissingSegmentAmongExplicitPaths) {
  TempDir t;
  std::string e1 = t.link("demo-split.E01");
  std::string e3 = t.link("demo-split.E03");
  auto e = open_error({e1, e3});
  EXPECT_EQ(e.exit_code, kExitSegment);
  EXPECT_EQ(e.path, (t.path() / "demo-split.E02").string());
}

TEST(TskImageErrors, E01SegmentGivenInsteadOfFirst) {
  auto e = open_error({image("demo-split.E02")});
  EXPECT_EQ(e.exit_code, kExitEvidence);
  EXPECT_NE(std::string(e.what()).find("demo-split.E01"), std::string::npos) << e.what();

  TempDir t;
  std::string e2 = t.link("demo-split.E02");
  t.link("demo-split.E03");
  auto m = open_error({e2});
  EXPECT_EQ(m.exit_code, kExitSegment);
  EXPECT_EQ(m.path, (t.path() / "demo-split.E01").string());
}

TEST(TskImageErrors, MissingMiddleRawSegment) {
  TempDir t;
  t.link(r0(1));
  for (int i = 3; i <= count_segments(r0); ++i) t.link(r0(i));
  auto e = open_error({(t.path() / "linux-ext4.raw.001").string()});
  EXPECT_EQ(e.exit_code, kExitSegment);
  EXPECT_EQ(e.path, (t.path() / "linux-ext4.raw.002").string());
}

TEST(TskImageErrors, MissingLastRawSegment) {
  TempDir t;
  int n = count_segments(r0);
  ASSERT_GE(n, 2);
  for (int i = 1; i < n; ++i) t.link(r0(i));
  auto e = open_error({(t.path() / "linux-ext4.raw.001").string()});
  EXPECT_EQ(e.exit_code, kExitSegment);
  EXPECT_EQ(e.path, (t.path() / r0(n)).string());
  EXPECT_NE(std::string(e.what()).find("ext4 file system reaches"), std::string::npos) << e.what();
}

TEST(TskImageErrors, RawSegmentGivenInsteadOfFirst) {
  auto e = open_error({image("linux-ext4.raw.002")});
  EXPECT_EQ(e.exit_code, kExitEvidence);
  EXPECT_NE(std::string(e.what()).find("linux-ext4.raw.001"), std::string::npos) << e.what();

  TempDir t;
  std::string two = t.link("linux-ext4.raw.002");
  auto m = open_error({two});
  EXPECT_EQ(m.exit_code, kExitSegment);
  EXPECT_EQ(m.path, (t.path() / "linux-ext4.raw.001").string());
}

TEST(TskImageErrors, TruncatedSingleRawIsOnlyAWarning) {
  TempDir t;
  // the first MiB of the ext4, as one plain file: no split naming, so a warning rather than an error
  std::string p = (t.path() / "cut.img").string();
  fs::copy_file(image("linux-ext4.raw.001"), p);
  auto img = Image::open({p});
  ASSERT_EQ(img->info().warnings.size(), 1u);
  EXPECT_NE(img->info().warnings[0].find("truncated"), std::string::npos) << img->info().warnings[0];
  std::string why;
  auto view = img->open_fs(img->partitions().at(0), "cut.img", &why);
  ASSERT_TRUE(view) << why;
  ASSERT_FALSE(view->errors().empty());
  EXPECT_NE(view->errors()[0].find("image ends"), std::string::npos) << view->errors()[0];
}

// A worker reopens evidence the run's first open has checked, as the type that open found: the same disk and file
// systems, without the EWF segment-table read (no stored hashes) or the split-raw extent probe (no truncation warning).
TEST(TskImage, ReopenSkipsTheChecksButOpensTheSameFileSystems) {
  auto checked = Image::open({image("demo.E01")});
  auto reopened = Image::reopen({image("demo.E01")}, checked->info().type);
  EXPECT_EQ(reopened->info().type, "ewf");
  EXPECT_FALSE(checked->info().stored_md5.empty());
  EXPECT_TRUE(reopened->info().stored_md5.empty());
  EXPECT_EQ(reopened->info().size, checked->info().size);
  auto a = allocated(reopened->partitions()), b = allocated(checked->partitions());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    std::string why_a, why_b;
    auto va = reopened->open_fs(a[i], "demo.E01", &why_a), vb = checked->open_fs(b[i], "demo.E01", &why_b);
    ASSERT_TRUE(va && vb) << why_a << why_b;
    EXPECT_EQ(va->volume().fs_type, vb->volume().fs_type);
    EXPECT_EQ(va->volume().partition_offset, vb->volume().partition_offset);
  }

  TempDir t;
  std::string cut = (t.path() / "cut.img").string();
  fs::copy_file(image("linux-ext4.raw.001"), cut);
  EXPECT_EQ(Image::open({cut})->info().warnings.size(), 1u);
  auto quick = Image::reopen({cut}, "raw");
  EXPECT_TRUE(quick->info().warnings.empty());
  std::string why;
  auto view = quick->open_fs(quick->partitions().at(0), "cut.img", &why);
  ASSERT_TRUE(view) << why;
  ASSERT_FALSE(view->errors().empty());  // open_fs still says where the image ends
  EXPECT_NE(view->errors()[0].find("image ends"), std::string::npos) << view->errors()[0];
}

// The first `bytes` of a fixture E01's media (read through libtsk's EWF reader), as a truncated copy would be.
std::string raw_prefix(const std::string& e01_name, uint64_t bytes) {
  const std::string e01 = image(e01_name);
  const char* names[] = {e01.c_str()};
  TSK_IMG_INFO* img = tsk_img_open_utf8(1, names, TSK_IMG_TYPE_DETECT, 0);
  EXPECT_TRUE(img);
  if (!img) return "";
  std::string disk(bytes, '\0');
  EXPECT_EQ(tsk_img_read(img, 0, disk.data(), bytes), static_cast<ssize_t>(bytes));
  tsk_img_close(img);
  return disk;
}

// One 16-byte MBR partition record (UEFI spec §5.2.1) in sector 0, and the 55 AA signature.
void mbr_record(std::string& disk, int slot, uint8_t type, uint32_t start, uint32_t count) {
  char* r = &disk[446 + 16 * slot];
  r[4] = static_cast<char>(type);
  for (int i = 0; i < 4; ++i) r[8 + i] = static_cast<char>(start >> (8 * i));
  for (int i = 0; i < 4; ++i) r[12 + i] = static_cast<char>(count >> (8 * i));
  disk[510] = '\x55';
  disk[511] = '\xaa';
}

std::string write_raw(const TempDir& t, const std::string& name, const std::string& disk) {
  std::string path = (t.path() / name).string();
  std::ofstream(path, std::ios::binary).write(disk.data(), static_cast<std::streamsize>(disk.size()));
  return path;
}

// The first `bytes` of demo.E01's disk. With as_mbr, sector 0 becomes a DOS MBR for the same two partitions (ext4
// 0x83 at sector 2048, NTFS 0x07 at 10240, 8192 sectors each) and the GPT header and entries (sectors 1-33) are
// zeroed: the same disk partitioned the DOS way.
std::string truncated_demo(const TempDir& t, uint64_t bytes, bool as_mbr) {
  std::string disk = raw_prefix("demo.E01", bytes);
  if (as_mbr) {
    std::fill(disk.begin(), disk.begin() + 34 * 512, '\0');
    mbr_record(disk, 0, 0x83, 2048, 8192);
    mbr_record(disk, 1, 0x07, 10240, 8192);
  }
  return write_raw(t, as_mbr ? "demo-mbr.raw" : "demo.raw", disk);
}

// A cut demo disk lists what the whole one does but the gap in the disk's last MiB, which lies past the cut.
void expect_whole_listing_but_the_last_gap(const std::vector<Partition>& got, std::vector<Partition> whole) {
  ASSERT_EQ(whole.back().kind, Partition::unallocated);
  whole.pop_back();
  ASSERT_EQ(got.size(), whole.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].index, whole[i].index) << i;
    EXPECT_EQ(got[i].offset_bytes, whole[i].offset_bytes) << i;
    EXPECT_EQ(got[i].length_bytes, whole[i].length_bytes) << i;
    EXPECT_EQ(got[i].description, whole[i].description) << i;
    EXPECT_EQ(got[i].kind, whole[i].kind) << i;
    EXPECT_EQ(got[i].vs_type, whole[i].vs_type) << i;
  }
}

constexpr uint64_t kInsideFirst = 4120576;  // 3072000 bytes into partition 1, before partition 2 starts

// libtsk refuses the table of an image that ends before its second partition starts; the partitions are listed all
// the same, as on the whole disk (slots, offsets, lengths, names), the gap at the end of the disk aside.
TEST(TskImageTruncated, GptEndingInsideTheFirstPartitionKeepsItsPartitions) {
  TempDir t;
  auto whole = Image::open({image("demo.E01")});
  auto cut = Image::open({truncated_demo(t, kInsideFirst, false)});
  ASSERT_EQ(cut->info().size, kInsideFirst);
  auto want = whole->partitions();
  auto got = cut->partitions();
  expect_whole_listing_but_the_last_gap(got, want);
  for (size_t i = 0; i + 1 < want.size(); ++i) EXPECT_FALSE(want[i].table_read_by_roo_ingest) << i;
  for (const auto& p : got) EXPECT_TRUE(p.table_read_by_roo_ingest) << p.index;
  auto fs = allocated(got);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_TRUE(fs[0].cut(kInsideFirst));
  EXPECT_TRUE(fs[1].cut(kInsideFirst));
  EXPECT_FALSE(allocated(want)[0].cut(whole->info().size));

  std::string why;
  auto ext4 = cut->open_fs(fs[0], "demo.raw", &why);
  ASSERT_TRUE(ext4) << why;
  EXPECT_EQ(ext4->volume().fs_type, "ext4");
  ASSERT_FALSE(ext4->errors().empty());
  EXPECT_NE(ext4->errors()[0].find("image ends at byte 4120576"), std::string::npos) << ext4->errors()[0];
  EXPECT_FALSE(cut->open_fs(fs[1], "demo.raw", &why));
  EXPECT_EQ(why, "partition starts past the end of the image");
}

TEST(TskImageTruncated, DosEndingInsideTheFirstPartitionKeepsItsPartitions) {
  TempDir t;
  auto cut = Image::open({truncated_demo(t, kInsideFirst, true)});
  auto parts = cut->partitions();
  for (const auto& p : parts) EXPECT_EQ(p.vs_type, "dos");
  auto fs = allocated(parts);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].offset_bytes, 2048u * 512);
  EXPECT_EQ(fs[0].length_bytes, 8192u * 512);
  EXPECT_EQ(fs[0].description, "DOS type 0x83");
  EXPECT_EQ(fs[1].offset_bytes, 10240u * 512);
  EXPECT_EQ(fs[1].length_bytes, 8192u * 512);
  EXPECT_EQ(fs[1].description, "DOS type 0x07");
  EXPECT_TRUE(fs[0].cut(kInsideFirst) && fs[1].cut(kInsideFirst));
  // as libtsk lists a DOS table: the table sector, the gap before partition 1, the partitions
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0].description, "Primary Table (#0)");
  EXPECT_EQ(parts[0].kind, Partition::meta);
  EXPECT_EQ(parts[1].kind, Partition::unallocated);
  EXPECT_EQ(parts[1].offset_bytes, 0u);
  EXPECT_EQ(parts[1].length_bytes, 2048u * 512);
  std::string why;
  auto ext4 = cut->open_fs(fs[0], "demo-mbr.raw", &why);
  ASSERT_TRUE(ext4) << why;
  EXPECT_EQ(ext4->volume().fs_type, "ext4");
}

// Where libtsk accepts the table (the image ends inside partition 2, which starts inside it), its listing is kept;
// partition 2 is only marked cut.
TEST(TskImageTruncated, GptEndingInsideTheSecondPartitionIsLibtsksListing) {
  TempDir t;
  constexpr uint64_t kInsideSecond = 7340032;
  auto whole = Image::open({image("demo.E01")});
  auto cut = Image::open({truncated_demo(t, kInsideSecond, false)});
  auto got = cut->partitions();
  expect_whole_listing_but_the_last_gap(got, whole->partitions());
  for (const auto& p : got) EXPECT_FALSE(p.table_read_by_roo_ingest) << p.index;
  auto fs = allocated(got);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_FALSE(fs[0].cut(kInsideSecond));
  EXPECT_TRUE(fs[1].cut(kInsideSecond));
}

// A FAT boot sector ends in 55 AA as an MBR does. With a record planted where an MBR's first one would be, naming a
// partition past the end (so libtsk refuses it as a table), the image stays one file system at offset 0.
TEST(TskImageTruncated, BareFileSystemIsNotReadAsATable) {
  TempDir t;
  std::string disk = raw_prefix("macos-fat.E01", kMiB);
  mbr_record(disk, 0, 0x83, 0x10000000, 8);
  auto img = Image::open({write_raw(t, "fat.raw", disk)});
  auto parts = img->partitions();
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].vs_type, "none");
  std::string why;
  auto fat = img->open_fs(parts[0], "fat.raw", &why);
  ASSERT_TRUE(fat) << why;
  EXPECT_EQ(fat->volume().fs_type, "fat32");
}

}  // namespace
}  // namespace roo::tsk
