#include "tsk_glue/tsk_evidence.h"
#include "tsk_glue/library_errors.h"

#include <fcntl.h>
#include <libewf.h>
#include <sys/stat.h>
#include <tsk/libtsk.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "tsk_glue/apfs_filevault.h"
#include "tsk_glue/apfs_pool.h"
#include "tsk_glue/apfs_snapshots.h"
#include "tsk_glue/partition_table.h"
#include "tsk_glue/segments.h"
#include "tsk_glue/tsk_fs_view.h"

namespace roo::tsk {

EvidenceError::EvidenceError(std::string p, int code, const std::string& reason)
    : std::runtime_error(p.empty() ? reason : p + ": " + reason), path(std::move(p)), exit_code(code) {}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && (s.back() == ' ' || s.back() == '.')) s.pop_back();
  return s;
}

std::string ewf_error_text(libewf_error_t* err) {
  if (!err) return "libewf error";
  char buf[1024] = {};
  libewf_error_sprint(err, buf, sizeof buf);
  libewf_error_free(&err);
  return one_line(buf);
}

namespace {

std::string take_tsk_error(const char* fallback) {
  const char* e = tsk_error_get();
  std::string s = (e && *e) ? e : fallback;
  tsk_error_reset();
  return one_line(s);
}

bool exists(const std::string& p) {
  struct stat st;
  return !p.empty() && ::stat(p.c_str(), &st) == 0;
}

std::string base_name(const std::string& p) {
  size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The checks every given path (and every segment libtsk found) must pass: exists, is a file or a device,
// is not empty, can be opened for reading.
void check_file(const std::string& path, bool is_segment) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    int e = errno;
    if (e == ENOENT && is_segment) throw EvidenceError(path, kExitSegment, "missing segment: no such file");
    if (e == ENOENT) throw EvidenceError(path, kExitEvidence, "no such file");
    if (e == EACCES) throw EvidenceError(path, kExitEvidence, "permission denied");
    throw EvidenceError(path, kExitEvidence, std::strerror(e));
  }
  if (S_ISDIR(st.st_mode))
    throw EvidenceError(path, kExitEvidence, "is a directory, not an image file (use --dir for a folder)");
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode))
    throw EvidenceError(path, kExitEvidence, "not a regular file or a device");
  if (S_ISREG(st.st_mode) && st.st_size == 0)
    throw EvidenceError(path, kExitEvidence, "empty file (0 bytes), not an image");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == EACCES) throw EvidenceError(path, kExitEvidence, "permission denied");
    throw EvidenceError(path, kExitEvidence, std::string("cannot open for reading: ") + std::strerror(e));
  }
  char b;
  ssize_t n = ::pread(fd, &b, 1, 0);
  int e = errno;
  ::close(fd);
  if (n < 0) throw EvidenceError(path, kExitEvidence, std::string("cannot read: ") + std::strerror(e));
}

struct EwfHeader {
  bool ewf1 = false;  // EVF / LVF (EWF version 1: .E01, .s01, .L01)
  bool ewf2 = false;  // EVF2 (.Ex01)
  int segment = 0;
};

EwfHeader read_ewf_header(const std::string& path) {
  EwfHeader h;
  unsigned char b[13] = {};
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return h;
  ssize_t n = ::pread(fd, b, sizeof b, 0);
  ::close(fd);
  if (n < 13) return h;
  static const unsigned char evf[8] = {'E', 'V', 'F', 0x09, 0x0d, 0x0a, 0xff, 0x00};
  static const unsigned char lvf[8] = {'L', 'V', 'F', 0x09, 0x0d, 0x0a, 0xff, 0x00};
  static const unsigned char evf2[8] = {'E', 'V', 'F', '2', 0x0d, 0x0a, 0x81, 0x00};
  if (std::memcmp(b, evf, 8) == 0 || std::memcmp(b, lvf, 8) == 0) {
    h.ewf1 = true;
    h.segment = b[9] | (b[10] << 8);
  } else if (std::memcmp(b, evf2, 8) == 0) {
    h.ewf2 = true;
  }
  return h;
}

// Looks at an EWF set through libewf directly: libtsk 4.11 opens a set with a missing segment without
// complaint (libewf globs E01, E02, … up to the first gap, reports the full media size, and reads of the
// missing chunks return zeros), but libewf marks such a set "corrupted" and stores no hashes for it.
void check_ewf(const std::vector<std::string>& given, ImageInfo& info, bool libtsk_opened_it) {
  libewf_error_t* err = nullptr;
  char** globbed = nullptr;
  int count = 0;
  std::vector<std::string> names;
  if (given.size() == 1) {
    if (libewf_glob(given[0].c_str(), given[0].size(), LIBEWF_FORMAT_UNKNOWN, &globbed, &count, &err) != 1) {
      info.warnings.push_back("libewf cannot list the segments: " + ewf_error_text(err));
      return;
    }
    for (int i = 0; i < count; ++i) names.emplace_back(globbed[i]);
  } else {
    names = given;
  }
  std::vector<char*> argv;
  for (auto& n : names) argv.push_back(const_cast<char*>(n.c_str()));

  libewf_handle_t* h = nullptr;
  if (libewf_handle_initialize(&h, &err) != 1) {
    info.warnings.push_back("libewf: " + ewf_error_text(err));
    if (globbed) libewf_glob_free(globbed, count, nullptr);
    return;
  }
  int corrupted = 0;
  if (libewf_handle_open(h, argv.data(), static_cast<int>(argv.size()), LIBEWF_OPEN_READ, &err) != 1) {
    std::string why = ewf_error_text(err);
    libewf_handle_free(&h, nullptr);
    if (globbed) libewf_glob_free(globbed, count, nullptr);
    if (!libtsk_opened_it)
      throw EvidenceError(given[0], kExitEvidence, "EWF image that libewf cannot open: " + why);
    info.warnings.push_back("libewf cannot open the segments: " + why);
    return;
  } else {
    corrupted = libewf_handle_segment_files_corrupted(h, nullptr);
    uint8_t md5[64] = {}, sha1[64] = {};
    if (libewf_handle_get_utf8_hash_value_md5(h, md5, sizeof md5, nullptr) == 1)
      info.stored_md5 = reinterpret_cast<char*>(md5);
    if (libewf_handle_get_utf8_hash_value_sha1(h, sha1, sizeof sha1, nullptr) == 1)
      info.stored_sha1 = reinterpret_cast<char*>(sha1);
    libewf_handle_close(h, nullptr);
  }
  libewf_handle_free(&h, nullptr);
  if (globbed) libewf_glob_free(globbed, count, nullptr);
  std::transform(info.stored_md5.begin(), info.stored_md5.end(), info.stored_md5.begin(), ::tolower);
  std::transform(info.stored_sha1.begin(), info.stored_sha1.end(), info.stored_sha1.begin(), ::tolower);

  if (corrupted == 1) {
    // Which segment? The first number whose file is not among those opened.
    const std::string& first = names.front();
    int n = static_cast<int>(names.size());
    std::string missing = segments::ewf_segment_name(first, n + 1);
    for (int k = 0; k < n; ++k) {
      std::string expect = segments::ewf_segment_name(first, k + 1);
      if (!expect.empty() && base_name(expect) != base_name(names[k])) {
        missing = expect;
        n = k;
        break;
      }
    }
    std::string later;
    for (int k = n + 2; k <= n + 10 && later.empty(); ++k) {
      std::string s = segments::ewf_segment_name(first, k);
      if (exists(s)) later = base_name(s);
    }
    std::string reason = "missing segment " + std::to_string(n + 1) + " of the EWF image " + base_name(first) +
                         " (libewf found " + std::to_string(n) + " segment(s) and no end-of-set marker" +
                         (later.empty() ? ", or the last segment is damaged" : "; " + later + " exists") + ")";
    // A segment that is there but cut short (a copy that did not finish) makes libewf look for one more segment:
    // name the cut one rather than the number after the last.
    for (size_t k = 0; k < names.size(); ++k)
      if (auto cut = segments::ewf_segment_cut(names[k])) {
        missing = names[k];
        reason = "segment " + std::to_string(k + 1) + " of the EWF image " + base_name(first) + ", " +
                 base_name(names[k]) + ", is " + *cut + " (a copy that did not finish?)";
        break;
      }
    throw EvidenceError(missing.empty() ? first : missing, kExitSegment, reason);
  }
}

// For segments given explicitly: each must carry its position as segment number (E01 = 1, …). libewf
// refuses a list with a gap, and libtsk then silently falls back to reading the files as one raw image.
void check_ewf_segment_numbers(const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    EwfHeader h = read_ewf_header(names[i]);
    if (!h.ewf1) throw EvidenceError(names[i], kExitEvidence, "not an EWF segment file (first segment is EWF)");
    int want = static_cast<int>(i) + 1;
    if (h.segment == want) continue;
    if (h.segment > want) {
      std::string missing = segments::ewf_segment_name(names[0], want);
      throw EvidenceError(missing.empty() ? names[i] : missing, kExitSegment,
                          "missing segment " + std::to_string(want) + " of the EWF image " + base_name(names[0]) +
                              " (" + base_name(names[i]) + " is segment " + std::to_string(h.segment) + ")");
    }
    throw EvidenceError(names[i], kExitEvidence,
                        "EWF segments out of order: " + base_name(names[i]) + " is segment " +
                            std::to_string(h.segment) + ", expected " + std::to_string(want));
  }
}

// How far into the image the volume system or, without one, the file system at offset 0 claims to reach.
// 0 when nothing is recognised. *what names the structure.
uint64_t content_extent(TSK_IMG_INFO* img, std::string* what, bool* recognised) {
  uint64_t end = 0;
  *recognised = false;
  if (TSK_VS_INFO* vs = tsk_vs_open(img, 0, TSK_VS_TYPE_DETECT)) {
    *recognised = true;
    *what = std::string(tsk_vs_type_toname(vs->vstype)) + " partition table";
    for (TSK_PNUM_T i = 0; i < vs->part_count; ++i) {
      const TSK_VS_PART_INFO* p = tsk_vs_part_get(vs, i);
      if (!p || !(p->flags & TSK_VS_PART_FLAG_ALLOC)) continue;
      uint64_t e = vs->offset + (static_cast<uint64_t>(p->start) + p->len) * vs->block_size;
      end = std::max(end, e);
    }
    tsk_vs_close(vs);
    return end;
  }
  tsk_error_reset();
  if (TSK_FS_INFO* fs = tsk_fs_open_img(img, 0, TSK_FS_TYPE_DETECT)) {
    *recognised = true;
    *what = std::string(tsk_fs_type_toname(fs->ftype)) + " file system";
    end = static_cast<uint64_t>(fs->block_count) * fs->block_size;
    tsk_fs_close(fs);
    return end;
  }
  tsk_error_reset();
  return 0;
}

void check_split_raw(const std::vector<std::string>& paths, TSK_IMG_INFO* img, ImageInfo& info) {
  const std::string& first = paths.front();
  const bool split_name = paths.size() > 1 || !segments::split_raw_name(first, 2).empty();
  const int n = img->num_img;

  // A gap: segment n+1 absent while a later one exists (libtsk stops at the first missing name).
  if (paths.size() == 1 && split_name) {
    std::string next = segments::split_raw_name(first, n + 1);
    if (!next.empty() && !exists(next)) {
      for (int k = n + 2; k <= n + 10; ++k) {
        std::string later = segments::split_raw_name(first, k);
        if (later.empty()) break;
        if (exists(later))
          throw EvidenceError(next, kExitSegment,
                              "missing segment " + std::to_string(n + 1) + " of the split raw image " +
                                  base_name(first) + " (" + base_name(later) + " exists)");
      }
    }
  }

  std::string what;
  bool recognised = false;
  uint64_t end = content_extent(img, &what, &recognised);

  // Given a later segment alone (img.003): with nothing recognisable at its start it is a middle piece.
  if (paths.size() == 1 && !recognised) {
    if (auto later = segments::later_split_raw_segment(first)) {
      std::string start = exists(later->first_one_based)    ? later->first_one_based
                          : exists(later->first_zero_based) ? later->first_zero_based
                                                             : std::string();
      if (!start.empty())
        throw EvidenceError(first, kExitEvidence,
                            "is a later segment of a split raw image; open the first segment " + base_name(start));
      throw EvidenceError(later->first_one_based, kExitSegment,
                          "missing first segment of the split raw image " + base_name(first));
    }
  }

  // Missing tail: the partition table or file system reaches past the last segment.
  if (end > static_cast<uint64_t>(img->size)) {
    std::string reason = "the image ends at byte " + std::to_string(img->size) + " but its " + what +
                         " reaches byte " + std::to_string(end);
    if (split_name) {
      std::string next = paths.size() == 1 ? segments::split_raw_name(first, n + 1) : std::string();
      throw EvidenceError(next.empty() ? paths.back() : next, kExitSegment,
                          "missing segment " + std::to_string(n + 1) + " of the split raw image " +
                              base_name(first) + ": " + reason);
    }
    info.warnings.push_back(base_name(first) + ": truncated image: " + reason);
  }
}

// libtsk refused a GPT, and the protective MBR in front of it is all it found (mm_open.c keeps the DOS table then).
bool only_protective_mbr(const TSK_VS_INFO* vs) {
  if (vs->vstype != TSK_VS_TYPE_DOS) return false;
  for (TSK_PNUM_T i = 0; i < vs->part_count; ++i) {
    const TSK_VS_PART_INFO* p = tsk_vs_part_get(vs, i);
    if (p && p->desc && std::strncmp(p->desc, "GPT Safety", 10) == 0) return true;
  }
  tsk_error_reset();
  return false;
}

// libtsk 4.11 refuses a DOS or GPT table whose first or second partition starts past the end of the image (dos.c
// and gpt.c: "Starting sector too large for image"), so a truncated image shows no volume system, or only a GPT's
// protective MBR. The table read from its own bytes (partition_table.h) then lists the partitions, laid out as
// libtsk lays out a volume system (its meta entries, unallocated gaps, slots in order of start), so they keep the
// slots mmls gives them on the whole image. Empty when that is not why libtsk refused the table.
std::vector<Partition> partitions_past_the_end(TSK_IMG_INFO* img) {
  const uint64_t size = static_cast<uint64_t>(img->size);
  ReadAt read = [img, size](uint64_t off, unsigned char* buf, size_t len) -> size_t {
    if (off >= size) return 0;
    ssize_t n = tsk_img_read(img, static_cast<TSK_OFF_T>(off), reinterpret_cast<char*>(buf),
                             static_cast<size_t>(std::min<uint64_t>(len, size - off)));
    if (n < 0) tsk_error_reset();
    return n < 0 ? 0 : static_cast<size_t>(n);
  };
  std::optional<PartitionTable> table = read_partition_table(read, {img->sector_size, 512, 1024, 2048, 4096});
  if (!table) return {};
  const uint64_t ss = table->sector_size, image_sectors = size / ss;
  std::vector<Partition> out;
  for (const TableEntry& e : table->entries) {
    Partition p;
    p.offset_bytes = e.start_sector * ss;
    p.length_bytes = e.sector_count * ss;
    p.description = e.description;
    p.kind = e.meta ? Partition::meta : Partition::allocated;
    out.push_back(p);
  }
  auto is_volume = [](const Partition& p) { return p.kind != Partition::meta; };
  if (std::none_of(out.begin(), out.end(), [&](const Partition& p) { return is_volume(p) && p.offset_bytes >= size; }))
    return {};
  // FAT and NTFS boot sectors end in 55 AA as an MBR does: with a file system at offset 0, the bytes are not a table.
  if (TSK_FS_INFO* fs = tsk_fs_open_img(img, 0, TSK_FS_TYPE_DETECT)) {
    tsk_fs_close(fs);
    return {};
  }
  tsk_error_reset();

  // libtsk keeps its list sorted by start, a new entry after those of the same start (tsk_vs_part_add, mm_part.c),
  // then adds the gaps before each partition and after the last (tsk_vs_part_unused); here they are kept to the
  // image, where unallocated space can be read.
  auto by_start = [](const Partition& a, const Partition& b) { return a.offset_bytes < b.offset_bytes; };
  std::stable_sort(out.begin(), out.end(), by_start);
  std::vector<Partition> gaps;
  auto gap = [&](uint64_t from, uint64_t to) {
    to = std::min(to, image_sectors * ss);
    if (from >= to) return;
    Partition g;
    g.offset_bytes = from;
    g.length_bytes = to - from;
    g.description = "Unallocated";
    g.kind = Partition::unallocated;
    gaps.push_back(g);
  };
  uint64_t prev_end = 0;
  for (const Partition& p : out) {
    if (!is_volume(p)) continue;
    gap(prev_end, p.offset_bytes);
    prev_end = p.offset_bytes + p.length_bytes;
  }
  gap(prev_end, size);
  out.insert(out.end(), gaps.begin(), gaps.end());
  std::stable_sort(out.begin(), out.end(), by_start);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].index = static_cast<int>(i);
    out[i].vs_type = table->type;
    out[i].table_read_by_roo_ingest = true;
  }
  return out;
}

}  // namespace

std::unique_ptr<Image> Image::wrap(TSK_IMG_INFO* raw_img, const std::vector<std::string>& paths) {
  std::unique_ptr<Image> image(new Image());
  image->img_ = std::shared_ptr<TSK_IMG_INFO>(raw_img, [](TSK_IMG_INFO* i) { tsk_img_close(i); });
  image->paths_ = paths;
  ImageInfo& info = image->info_;
  info.type = tsk_img_type_toname(raw_img->itype);
  info.size = static_cast<uint64_t>(raw_img->size);
  info.sector_size = raw_img->sector_size;
  for (int i = 0; i < raw_img->num_img; ++i)
    if (raw_img->images && raw_img->images[i]) info.segments.emplace_back(raw_img->images[i]);
  return image;
}

std::unique_ptr<Image> Image::open(const std::vector<std::string>& paths) {
  if (paths.empty()) throw EvidenceError("", kExitEvidence, "no image file given");
  for (size_t i = 0; i < paths.size(); ++i) check_file(paths[i], i > 0);
  const std::string& first = paths.front();

  EwfHeader hdr = read_ewf_header(first);
  if (hdr.ewf1 && hdr.segment != 1) {
    std::string start = segments::ewf_segment_name(first, 1);
    if (!start.empty() && exists(start))
      throw EvidenceError(first, kExitEvidence,
                          "is segment " + std::to_string(hdr.segment) +
                              " of a split EWF image; open the first segment " + base_name(start));
    throw EvidenceError(start.empty() ? first : start, kExitSegment,
                        "missing segment 1 of the EWF image (" + base_name(first) + " is segment " +
                            std::to_string(hdr.segment) + ")");
  }

  if (hdr.ewf1 && paths.size() > 1) check_ewf_segment_numbers(paths);

  std::vector<const char*> names;
  for (const auto& p : paths) names.push_back(p.c_str());
  TSK_IMG_INFO* raw_img =
      tsk_img_open_utf8(static_cast<int>(names.size()), names.data(), TSK_IMG_TYPE_DETECT, 0);
  if (!raw_img) throw EvidenceError(first, kExitEvidence, "cannot open image: " + take_tsk_error("unknown error"));

  std::unique_ptr<Image> image = wrap(raw_img, paths);
  ImageInfo& info = image->info_;
  for (size_t i = paths.size(); i < info.segments.size(); ++i) check_file(info.segments[i], true);

  if (TSK_IMG_TYPE_ISEWF(raw_img->itype)) {
    check_ewf(paths, info, true);
  } else if (TSK_IMG_TYPE_ISRAW(raw_img->itype) && hdr.ewf1) {
    // libtsk's EWF backend refused it and it fell back to raw: say why instead of reading EWF as raw bytes
    check_ewf(paths, info, false);
    throw EvidenceError(first, kExitEvidence, "EWF image that libtsk cannot open as EWF");
  } else if (TSK_IMG_TYPE_ISRAW(raw_img->itype)) {
    if (hdr.ewf2)
      info.warnings.push_back(base_name(first) + " is EWF2 (Ex01), which this libtsk reads as raw bytes");
    check_split_raw(paths, raw_img, info);
  }
  if (info.size == 0) throw EvidenceError(first, kExitEvidence, "image has no data (0 bytes)");
  return image;
}

std::unique_ptr<Image> Image::reopen(const std::vector<std::string>& paths, const std::string& type) {
  if (paths.empty()) throw EvidenceError("", kExitEvidence, "no image file given");
  std::vector<const char*> names;
  for (const auto& p : paths) names.push_back(p.c_str());
  TSK_IMG_TYPE_ENUM itype = tsk_img_type_toid_utf8(type.c_str());
  if (itype == TSK_IMG_TYPE_UNSUPP) itype = TSK_IMG_TYPE_DETECT;
  // An EWF image is read through a libewf handle of roo-ingest's own, which keeps the chunk checksum errors the scan
  // meets (ewf_image.h); should libewf not open it that way, libtsk's own open says why.
  TSK_IMG_INFO* raw_img = TSK_IMG_TYPE_ISEWF(itype) ? open_ewf_image(paths) : nullptr;
  if (!raw_img) raw_img = tsk_img_open_utf8(static_cast<int>(names.size()), names.data(), itype, 0);
  if (!raw_img)
    throw EvidenceError(paths.front(), kExitEvidence, "cannot open image: " + take_tsk_error("unknown error"));
  std::unique_ptr<Image> image = wrap(raw_img, paths);
  if (image->info_.size == 0) throw EvidenceError(paths.front(), kExitEvidence, "image has no data (0 bytes)");
  return image;
}

Image::~Image() = default;

std::vector<EwfChecksumError> Image::checksum_errors() const { return ewf_checksum_errors(img_.get()); }

std::vector<Partition> Image::partitions(const std::vector<std::string>& passwords) {
  if (partitions_done_) return partitions_;
  partitions_done_ = true;
  list_partitions();
  // An APFS container (a Mac's APFS partition, or an image of the container alone) is a file system libtsk opens
  // only through its pool API: each of its volumes is searched on its own (open_fs with pool_volume set).
  for (Partition& p : partitions_) {
    if (p.kind != Partition::allocated || !looks_like_apfs_container(img_.get(), p.offset_bytes)) continue;
    std::string why;
    if (auto c = read_apfs_container(img_.get(), p.offset_bytes, &why, passwords))
      p.container = std::make_shared<const PoolContainer>(std::move(*c));
    else
      p.container_error = why;
  }
  return partitions_;
}

void Image::list_partitions() {
  TSK_IMG_INFO* img = img_.get();
  TSK_VS_INFO* vs = tsk_vs_open(img, 0, TSK_VS_TYPE_DETECT);
  const uint32_t e = vs ? 0 : tsk_error_get_errno();
  const std::string msg = vs ? std::string() : take_tsk_error("");
  if (!vs || only_protective_mbr(vs)) {
    partitions_ = partitions_past_the_end(img);
    if (!partitions_.empty()) {
      if (vs) tsk_vs_close(vs);
      return;
    }
  }
  if (!vs) {
    if (e != TSK_ERR_VS_UNKTYPE && !msg.empty()) info_.warnings.push_back("volume system: " + msg);
    Partition p;
    p.index = 0;
    p.offset_bytes = 0;
    p.length_bytes = info_.size;
    p.description = "whole image (no volume system)";
    p.vs_type = "none";
    p.kind = Partition::allocated;
    partitions_.push_back(p);
    // A file system that ends before the image does (a disk imaged whole whose one file system does not fill it):
    // the bytes after it belong to no file system, and are unpartitioned space like a volume system's gaps (listed,
    // and carved under --deep). Less than one block after the last block it addresses is its own: NTFS keeps its
    // backup boot sector there.
    if (TSK_FS_INFO* fs = tsk_fs_open_img(img, 0, TSK_FS_TYPE_DETECT)) {
      const uint64_t end = static_cast<uint64_t>(fs->block_count) * fs->block_size;
      if (end < info_.size && info_.size - end > fs->block_size) {
        Partition after;
        after.index = 1;
        after.offset_bytes = end;
        after.length_bytes = info_.size - end;
        after.description = "after the file system (no volume system)";
        after.vs_type = "none";
        after.kind = Partition::unallocated;
        partitions_.push_back(after);
      }
      tsk_fs_close(fs);
    } else {
      tsk_error_reset();
    }
    return;
  }
  std::string vs_type = tsk_vs_type_toname(vs->vstype);
  for (TSK_PNUM_T i = 0; i < vs->part_count; ++i) {
    const TSK_VS_PART_INFO* part = tsk_vs_part_get(vs, i);
    if (!part) {
      tsk_error_reset();
      continue;
    }
    Partition p;
    p.index = static_cast<int>(part->addr);
    p.offset_bytes = vs->offset + static_cast<uint64_t>(part->start) * vs->block_size;
    p.length_bytes = static_cast<uint64_t>(part->len) * vs->block_size;
    p.description = part->desc ? part->desc : "";
    p.vs_type = vs_type;
    if (part->flags & TSK_VS_PART_FLAG_ALLOC)
      p.kind = Partition::allocated;
    else if (part->flags & TSK_VS_PART_FLAG_META)
      p.kind = Partition::meta;
    else
      p.kind = Partition::unallocated;
    partitions_.push_back(p);
  }
  tsk_vs_close(vs);
}

std::unique_ptr<roo::FileSystemView> Image::open_fs(const Partition& p, const std::string& evidence_id,
                                                    std::string* why, const std::vector<std::string>& passwords,
                                                    bool* locked) {
  auto fail = [&](const std::string& reason) -> std::unique_ptr<roo::FileSystemView> {
    if (why) *why = reason;
    return nullptr;
  };
  if (p.kind == Partition::unallocated) return fail("unallocated space, not a file system");
  if (p.kind == Partition::meta) return fail("volume system metadata (" + p.description + "), not a file system");
  if (p.offset_bytes >= info_.size) return fail("partition starts past the end of the image");
  if (p.pool_volume) return open_pool_volume_fs(p, evidence_id, why, passwords, locked);
  if (p.container) return fail("APFS container: each of its volumes is searched on its own");
  if (!p.container_error.empty()) return fail("damaged APFS container: " + p.container_error);

  TSK_FS_INFO* fs = tsk_fs_open_img(img_.get(), static_cast<TSK_OFF_T>(p.offset_bytes), TSK_FS_TYPE_DETECT);
  if (!fs) {
    uint32_t e = tsk_error_get_errno();
    std::string msg = take_tsk_error("unknown error");
    if (e == TSK_ERR_FS_ENCRYPTED || e == TSK_ERR_FS_POSSIBLY_ENCRYPTED)
      return fail("encrypted volume: " + msg);
    if (e == TSK_ERR_FS_UNKTYPE) return fail("no file system found (unformatted, unsupported or damaged): " + msg);
    if (e == TSK_ERR_FS_UNSUPTYPE) return fail("unsupported file system: " + msg);
    return fail("damaged file system: " + msg);
  }
  if (fs->flags & TSK_FS_INFO_FLAG_ENCRYPTED) {
    tsk_fs_close(fs);
    return fail("encrypted file system (libtsk cannot read it without a key)");
  }

  roo::VolumeInfo vol;
  vol.evidence = evidence_id;
  vol.image_paths = paths_;
  vol.partition_offset = p.offset_bytes;
  vol.fs_type = tsk_fs_type_toname(fs->ftype);
  vol.volume_index = p.index;

  std::vector<std::string> errors;
  uint64_t fs_end = p.offset_bytes + static_cast<uint64_t>(fs->block_count) * fs->block_size;
  if (fs_end > info_.size)
    errors.push_back("file system reaches byte " + std::to_string(fs_end) + " but the image ends at byte " +
                     std::to_string(info_.size) + " (truncated image or missing segment)");
  else if (p.vs_type != "none" && fs_end > p.offset_bytes + p.length_bytes)
    errors.push_back("file system is larger than its partition (" + std::to_string(fs_end - p.offset_bytes) +
                     " > " + std::to_string(p.length_bytes) + " bytes)");
  return std::make_unique<TskFileSystemView>(img_, fs, std::move(vol), std::move(errors));
}

std::unique_ptr<roo::FileSystemView> Image::open_pool_volume_fs(const Partition& p, const std::string& evidence_id,
                                                                std::string* why,
                                                                const std::vector<std::string>& passwords,
                                                                bool* locked) {
  const PoolVolume& v = *p.pool_volume;
  auto fail = [&](const std::string& reason) -> std::unique_ptr<roo::FileSystemView> {
    if (why) *why = reason;
    return nullptr;
  };
  const std::string hint = v.password_hint.empty() ? std::string() : "; password hint: " + v.password_hint;
  if (v.encrypted && passwords.empty())
    return fail("encrypted APFS volume (FileVault): not read without its password" + hint);
  std::string reason;
  PoolVolumeFs opened;
  ApfsVolumeKey key;       // an encrypted volume's, once a password unlocks it
  bool decrypted = false;  // opened through open_filevault_volume: so are its snapshots
  if (!v.encrypted) {
    opened = open_pool_volume(img_.get(), p.offset_bytes, v.block, "", &reason);
    if (!opened.fs) return fail("damaged APFS volume: " + reason);
  } else {
    // Each password in turn: roo-ingest tries it on the volume's keybags itself (apfs_filevault.h), then libtsk opens
    // the volume with the one that unlocks it (tsk_fs_open_img_decrypt), or, as libtsk 4.11.1 is built without
    // OpenSSL and cannot, open_filevault_volume gives it the volume decrypted. Neither a password nor its place in
    // the list is written anywhere. The key opens its snapshots too.
    bool unlocked = false, keys_read = true;
    std::string keys_why;
    for (const std::string& password : passwords) {
      const ApfsUnlock u = apfs_unlock_volume_key(img_.get(), p.offset_bytes, v.uuid, password, &keys_why, &key);
      if (u == ApfsUnlock::wrong_password) continue;
      keys_read = u != ApfsUnlock::no_keys;
      unlocked = u == ApfsUnlock::unlocked;
      opened = open_pool_volume(img_.get(), p.offset_bytes, v.block, password, &reason);
      if (!opened.fs && unlocked) {
        opened = open_filevault_volume(img_.get(), p.offset_bytes, v.block, key, &reason);
        decrypted = opened.fs != nullptr;
      }
      if (opened.fs || unlocked) break;
    }
    if (!opened.fs) {
      if (locked) *locked = true;
      if (unlocked)
        return fail("damaged encrypted APFS volume (FileVault): a password given unlocks its volume key, but the "
                    "volume cannot be opened" + hint + " (libtsk: " + reason + ")");
      if (keys_read)
        return fail("encrypted APFS volume (FileVault): " +
                    (passwords.size() == 1 ? std::string("the password given does not unlock it")
                                           : "none of the " + std::to_string(passwords.size()) +
                                                 " passwords given unlocks it") +
                    hint);
      return fail("encrypted APFS volume (FileVault): its keybags cannot be read (" + keys_why + "), and libtsk "
                  "does not open it with " + (passwords.size() == 1 ? "the password given" : "any password given") +
                  hint + " (libtsk: " + reason + ")");
    }
  }
  roo::VolumeInfo vol;
  vol.evidence = evidence_id;
  vol.image_paths = paths_;
  vol.partition_offset = p.offset_bytes;
  vol.fs_type = tsk_fs_type_toname(opened.fs->ftype);
  vol.volume_index = p.index;
  vol.pool_volume = roo::PoolVolumeRef{v.uuid, v.name, v.role, v.block, v.index};
  std::vector<std::string> errors;
  if (p.container) {
    const uint64_t end = p.offset_bytes + p.container->blocks * p.container->block_size;
    if (end > info_.size)
      errors.push_back("APFS container reaches byte " + std::to_string(end) + " but the image ends at byte " +
                       std::to_string(info_.size) + " (truncated image or missing segment)");
  }
  if (v.snapshots.empty())
    return std::make_unique<TskFileSystemView>(img_, opened.fs, std::move(vol), std::move(errors),
                                               std::move(opened.keep));
  const std::shared_ptr<void> pool_keep = opened.keep;  // the snapshots are opened on the live volume's pool
  auto live = std::make_unique<TskFileSystemView>(img_, opened.fs, vol, std::vector<std::string>{},
                                                  std::move(opened.keep));
  // Its snapshots, newest first: each an older state of the volume whose differing files are read too
  // (docs/row-contract.md "APFS snapshots"). A dataless snapshot keeps no file data: nothing to read in it.
  std::vector<const PoolVolume::Snapshot*> order;
  for (const PoolVolume::Snapshot& s : v.snapshots) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->xid > b->xid; });
  std::vector<OpenedSnapshot> snapshots;
  for (const PoolVolume::Snapshot* s : order) {
    if (s->dataless) {
      errors.push_back("snapshot " + s->name + " (xid " + std::to_string(s->xid) + "): dataless, not read");
      continue;
    }
    std::string snap_why;
    auto view = open_pool_volume_snapshot(img_, pool_keep, p.offset_bytes, v.block, s->xid, vol, &snap_why,
                                          decrypted ? &key : nullptr);
    if (!view) {
      errors.push_back("snapshot " + s->name + " (xid " + std::to_string(s->xid) + "): " + snap_why);
      continue;
    }
    snapshots.push_back({snapshot_ref(*s), std::move(view)});
  }
  return std::make_unique<SnapshotMergingView>(std::move(live), std::move(snapshots), std::move(errors));
}

}  // namespace roo::tsk
