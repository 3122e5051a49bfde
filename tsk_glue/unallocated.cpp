#include "tsk_glue/unallocated.h"
#include "core/progress_beats.h"
#include "tsk_glue/apfs_filevault.h"
#include "tsk_glue/apfs_pool.h"

#include <tsk/libtsk.h>

#include <algorithm>
#include <cstring>
#include <exception>

namespace roo::tsk {

std::unique_ptr<CarveSource> CarveSource::open(const std::vector<std::string>& image_paths,
                                               std::optional<uint64_t> fs_offset, std::string* why,
                                               std::optional<uint64_t> pool_volume_block,
                                               std::shared_ptr<const ContainerDecryption> decryption) {
  std::vector<const char*> names;
  for (const std::string& p : image_paths) names.push_back(p.c_str());
  std::unique_ptr<CarveSource> s(new CarveSource);
  s->img_ = tsk_img_open_utf8(static_cast<int>(names.size()), names.data(), TSK_IMG_TYPE_DETECT, 0);
  if (!s->img_) {
    if (why) *why = std::string("cannot open the image for carving: ") + tsk_error_get();
    tsk_error_reset();
    return nullptr;
  }
  if (fs_offset && pool_volume_block) {
    std::string reason;
    PoolVolumeFs opened =
        decryption ? open_filevault_volume(s->img_, *fs_offset, *pool_volume_block, *decryption->key, &reason)
                   : open_pool_volume(s->img_, *fs_offset, *pool_volume_block, "", &reason);
    if (!opened.fs) {
      if (why) *why = "cannot open the APFS volume for carving: " + reason;
      return nullptr;
    }
    s->fs_ = opened.fs;
    s->pool_ = std::move(opened.keep);
    s->pool_info_ = pool_of(s->pool_);
  } else if (fs_offset) {
    s->fs_ = tsk_fs_open_img(s->img_, static_cast<TSK_OFF_T>(*fs_offset), TSK_FS_TYPE_DETECT);
    if (!s->fs_) {
      if (why) *why = std::string("cannot open the file system for carving: ") + tsk_error_get();
      tsk_error_reset();
      return nullptr;
    }
  }
  s->decryption_ = std::move(decryption);
  return s;
}

std::shared_ptr<const ContainerDecryption> CarveSource::unlock(const std::vector<std::string>& image_paths,
                                                               uint64_t offset, const std::string& volume_uuid,
                                                               const std::vector<std::string>& passwords,
                                                               std::string* why) {
  std::unique_ptr<CarveSource> s = open(image_paths, std::nullopt, why);
  if (!s) return nullptr;
  const TSK_POOL_INFO* pool = tsk_pool_open_img_sing(s->img_, static_cast<TSK_OFF_T>(offset), TSK_POOL_TYPE_APFS);
  if (!pool) {
    if (why) *why = "cannot open the APFS container for carving: " + take_error("libtsk cannot open it");
    return nullptr;
  }
  auto d = std::make_shared<ContainerDecryption>();
  d->offset = offset;
  d->blocks = pool->num_blocks;
  d->block_size = pool->block_size;
  tsk_pool_close(pool);
  auto key = std::make_shared<ApfsVolumeKey>();
  for (const std::string& password : passwords)
    if (apfs_unlock_volume_key(s->img_, offset, volume_uuid, password, nullptr, key.get()) == ApfsUnlock::unlocked) {
      d->key = std::move(key);
      return d;
    }
  if (why) *why = "no password given unlocks the volume for carving";
  return nullptr;
}

CarveSource::~CarveSource() {
  if (fs_) tsk_fs_close(fs_);
  pool_.reset();
  if (img_) tsk_img_close(img_);
}

uint64_t CarveSource::image_size() const { return static_cast<uint64_t>(img_->size); }
uint32_t CarveSource::block_size() const { return fs_ ? fs_->block_size : 0; }

namespace {
struct RunCollector {
  std::vector<CarveRun>* runs;
  uint64_t fs_offset;
  uint32_t block_size;
  int region;
};

TSK_WALK_RET_ENUM collect_unallocated(const TSK_FS_BLOCK* b, void* ptr) {
  auto* c = static_cast<RunCollector*>(ptr);
  const uint64_t at = c->fs_offset + static_cast<uint64_t>(b->addr) * c->block_size;
  if (!c->runs->empty() && c->runs->back().offset + c->runs->back().length == at)
    c->runs->back().length += c->block_size;  // the next block of the same run
  else
    c->runs->push_back({at, c->block_size, c->region});
  return TSK_WALK_CONT;
}
}  // namespace

std::vector<CarveRun> CarveSource::unallocated_runs(int region, std::string* why) {
  std::vector<CarveRun> runs;
  if (!fs_) return runs;
  if (pool_info_) {
    const auto* pool = static_cast<const TSK_POOL_INFO*>(pool_info_);
    TSK_FS_ATTR_RUN* free_runs = nullptr;
    try {  // libtsk's pool code reports a damaged space manager by throwing
      free_runs = tsk_pool_unallocated_runs(pool);
    } catch (const std::exception& e) {
      if (why) *why = std::string("APFS container free blocks: ") + e.what();
    }
    const uint64_t base = static_cast<uint64_t>(pool->img_offset), bs = pool->block_size;
    for (const TSK_FS_ATTR_RUN* r = free_runs; r; r = r->next)
      if (r->len) runs.push_back({base + static_cast<uint64_t>(r->addr) * bs, static_cast<uint64_t>(r->len) * bs, region});
    tsk_fs_attr_run_free(free_runs);
  } else {
  RunCollector c{&runs, static_cast<uint64_t>(fs_->offset), fs_->block_size, region};
  // AONLY: addresses and flags only, no block content is read (tsk_fs_block_walk); the runs are read later in
  // large pieces.
  if (tsk_fs_block_walk(fs_, fs_->first_block, fs_->last_block,
                        static_cast<TSK_FS_BLOCK_WALK_FLAG_ENUM>(TSK_FS_BLOCK_WALK_FLAG_UNALLOC |
                                                                 TSK_FS_BLOCK_WALK_FLAG_AONLY),
                        collect_unallocated, &c) != 0) {
    if (why) *why = std::string("block walk failed: ") + tsk_error_get();
    tsk_error_reset();
  }
  }
  // Nothing past the image's end (a file system larger than a truncated image).
  const uint64_t end = image_size();
  runs.erase(std::remove_if(runs.begin(), runs.end(), [&](const CarveRun& r) { return r.offset >= end; }), runs.end());
  for (CarveRun& r : runs) r.length = std::min(r.length, end - r.offset);
  return runs;
}

std::optional<CarveRun> CarveSource::slack_run(uint64_t inode, int region) {
  if (!fs_) return std::nullopt;
  TSK_FS_FILE* file = tsk_fs_file_open_meta(fs_, nullptr, static_cast<TSK_INUM_T>(inode));
  if (!file) {
    tsk_error_reset();
    return std::nullopt;
  }
  std::optional<CarveRun> out;
  const TSK_FS_ATTR* attr = tsk_fs_file_attr_get(file);
  const uint64_t bs = fs_->block_size;
  if (attr && file->meta && (attr->flags & TSK_FS_ATTR_NONRES) && bs) {
    const uint64_t size = static_cast<uint64_t>(file->meta->size);
    const uint64_t used = size % bs;
    const uint64_t last = size / bs;  // the block the file ends in
    if (used != 0)
      for (const TSK_FS_ATTR_RUN* r = attr->nrd.run; r; r = r->next) {
        if (r->flags & (TSK_FS_ATTR_RUN_FLAG_FILLER | TSK_FS_ATTR_RUN_FLAG_SPARSE)) continue;
        if (last < r->offset || last >= r->offset + r->len) continue;
        const uint64_t addr = r->addr + (last - r->offset);
        out = CarveRun{static_cast<uint64_t>(fs_->offset) + addr * bs + used, bs - used, region};
        break;
      }
  }
  tsk_fs_file_close(file);
  return out;
}

std::vector<CarveRun> CarveSource::content_runs(uint64_t inode) {
  std::vector<CarveRun> out;
  if (!fs_) return out;
  TSK_FS_FILE* file = tsk_fs_file_open_meta(fs_, nullptr, static_cast<TSK_INUM_T>(inode));
  if (!file) {
    tsk_error_reset();
    return out;
  }
  const TSK_FS_ATTR* attr = tsk_fs_file_attr_get(file);
  const uint64_t bs = fs_->block_size;
  if (attr && file->meta && (attr->flags & TSK_FS_ATTR_NONRES) && bs) {
    const uint64_t size = static_cast<uint64_t>(file->meta->size);
    for (const TSK_FS_ATTR_RUN* r = attr->nrd.run; r; r = r->next) {
      if (r->flags & (TSK_FS_ATTR_RUN_FLAG_FILLER | TSK_FS_ATTR_RUN_FLAG_SPARSE)) continue;
      const uint64_t from = r->offset * bs;  // offset in the file
      if (from >= size) break;
      const uint64_t len = std::min<uint64_t>(r->len * bs, size - from);
      out.push_back({static_cast<uint64_t>(fs_->offset) + r->addr * bs, len, 0});
    }
  }
  tsk_fs_file_close(file);
  return out;
}

int64_t CarveSource::read(uint64_t offset, char* buf, size_t len) {
  const ContainerDecryption* d = decryption_.get();
  const uint64_t start = d ? d->offset : 0, end = d ? d->offset + d->blocks * d->block_size : 0;
  if (!d || offset < start || offset >= end) {
    const ssize_t n = tsk_img_read(img_, static_cast<TSK_OFF_T>(offset), buf, len);
    if (n < 0) tsk_error_reset();
    else
      count_progress(static_cast<uint64_t>(n));
    return n;
  }
  // Whole blocks are read and decrypted (each block's tweak is its number), and the part asked for copied.
  len = static_cast<size_t>(std::min<uint64_t>(len, end - offset));
  const uint64_t first = (offset - start) / d->block_size;
  const uint64_t last = (offset + len - start + d->block_size - 1) / d->block_size;  // one past
  std::vector<unsigned char> blocks(static_cast<size_t>((last - first) * d->block_size));
  const ssize_t n = tsk_img_read(img_, static_cast<TSK_OFF_T>(start + first * d->block_size),
                                 reinterpret_cast<char*>(blocks.data()), blocks.size());
  if (n < 0) {
    tsk_error_reset();
    return -1;
  }
  const size_t whole = static_cast<size_t>(n) / d->block_size * d->block_size;  // a short read keeps whole blocks
  if (!apfs_decrypt_blocks(*d->key, first, d->block_size, blocks.data(), whole)) return -1;
  const size_t skip = static_cast<size_t>(offset - start - first * d->block_size);
  if (whole <= skip) return whole == static_cast<size_t>(n) ? 0 : -1;
  const size_t got = std::min(len, whole - skip);
  std::memcpy(buf, blocks.data() + skip, got);
  count_progress(got);
  return static_cast<int64_t>(got);
}

std::vector<CarveUnit> carve_units(const std::vector<CarveRun>& runs, uint64_t unit_bytes) {
  std::vector<CarveUnit> units;
  for (size_t i = 0; i < runs.size(); ++i)
    for (uint64_t at = runs[i].offset, end = runs[i].offset + runs[i].length; at < end; at += unit_bytes)
      units.push_back({i, at, std::min(end, at + unit_bytes)});
  return units;
}

}  // namespace roo::tsk
