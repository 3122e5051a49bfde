#include "tsk_glue/apfs_pool.h"

#include "tsk_glue/apfs_filevault.h"

#include <tsk/libtsk.h>
#include <tsk/fs/apfs_fs.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace roo::tsk {

std::string take_error(const char* fallback) {
  const char* e = tsk_error_get();
  std::string s = (e && *e) ? e : fallback;
  tsk_error_reset();
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && (s.back() == ' ' || s.back() == '.')) s.pop_back();
  return s;
}

namespace {


// 16 bytes as an RFC 4122 UUID in lower-case hex with dashes, in the order they are stored (APFS keeps uuid_t as
// bytes, which is how pstat and fsapfsinfo print them).
std::string uuid_text(const unsigned char* b) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[b[i] >> 4];
    out += kHex[b[i] & 0xF];
  }
  return out;
}


// The pool and the pool image a volume is read through, closed in that order's reverse once the last user is done.
struct PoolHandles {
  const TSK_POOL_INFO* pool = nullptr;
  TSK_IMG_INFO* pool_img = nullptr;
  ~PoolHandles() {
    if (pool_img) tsk_img_close(pool_img);
    if (pool) tsk_pool_close(pool);
  }
};

// What libtsk cannot say of an encrypted volume it does not open: its UUID, name and role, from its superblock
// (apfs_superblock_t, Apple File System Reference "Volume Superblock": apfs_vol_uuid 0xF0, apfs_volname 0x2C0,
// apfs_role 0x3C4; a volume superblock is not encrypted).
void read_encrypted_volume_superblock(TSK_IMG_INFO* img, uint64_t offset, uint32_t block_size, PoolVolume* vol) {
  unsigned char sb[0x3C6];
  const uint64_t at = offset + vol->block * block_size;
  if (block_size == 0 || at + sizeof sb > static_cast<uint64_t>(img->size) ||
      tsk_img_read(img, static_cast<TSK_OFF_T>(at), reinterpret_cast<char*>(sb), sizeof sb) !=
          static_cast<ssize_t>(sizeof sb) ||
      std::memcmp(sb + 32, "APSB", 4) != 0) {
    tsk_error_reset();
    return;
  }
  vol->uuid = uuid_text(sb + 0xF0);
  vol->name.assign(reinterpret_cast<const char*>(sb + 0x2C0), strnlen(reinterpret_cast<const char*>(sb + 0x2C0), 256));
  vol->role_value = static_cast<uint16_t>(sb[0x3C4] | sb[0x3C5] << 8);
  vol->role = apfs_role_name(vol->role_value);
}

// The snapshots of an opened volume, as tsk_apfs_list_snapshots lists them.
std::vector<PoolVolume::Snapshot> list_snapshots(TSK_FS_INFO* fs) {
  std::vector<PoolVolume::Snapshot> out;
  apfs_snapshot_list* snapshots = nullptr;
  if (tsk_apfs_list_snapshots(fs, &snapshots) == 0 && snapshots) {
    for (size_t i = 0; i < snapshots->num_snapshots; ++i) {
      const apfs_snapshot& snap = snapshots->snapshots[i];
      out.push_back({snap.snap_xid, snap.timestamp, snap.name ? snap.name : "", snap.dataless != 0});
    }
    tsk_apfs_free_snapshot_list(snapshots);
  }
  tsk_error_reset();
  return out;
}

// The snapshots of an encrypted volume, listed by libtsk once the first of `passwords` that unlocks it has opened it
// decrypted (apfs_filevault.h open_filevault_volume): libtsk opens no encrypted volume itself, and lists snapshots
// only of a volume it has opened. The snapshot-metadata tree it reads is not encrypted (Apple File System Reference
// "Accessing Encrypted Objects": only the file-system tree and file data are); the volume's tree root must decrypt
// for libtsk to open the volume at all. None when no password unlocks it.
std::vector<PoolVolume::Snapshot> list_unlocked_snapshots(TSK_IMG_INFO* img, uint64_t offset, const PoolVolume& vol,
                                                          const std::vector<std::string>& passwords) {
  for (const std::string& password : passwords) {
    ApfsVolumeKey key;
    std::string why;
    if (apfs_unlock_volume_key(img, offset, vol.uuid, password, &why, &key) != ApfsUnlock::unlocked) continue;
    PoolVolumeFs opened = open_filevault_volume(img, offset, vol.block, key, &why);
    if (!opened.fs) return {};
    std::vector<PoolVolume::Snapshot> out = list_snapshots(opened.fs);
    tsk_fs_close(opened.fs);
    return out;
  }
  return {};
}

}  // namespace

// nx_superblock_t (Apple File System Reference, "Container Superblock"): the 32-byte object header, then nx_magic.
bool looks_like_apfs_container(TSK_IMG_INFO* img, uint64_t offset) {
  unsigned char b[36];
  if (offset + sizeof b > static_cast<uint64_t>(img->size)) return false;
  if (tsk_img_read(img, static_cast<TSK_OFF_T>(offset), reinterpret_cast<char*>(b), sizeof b) !=
      static_cast<ssize_t>(sizeof b)) {
    tsk_error_reset();
    return false;
  }
  return std::memcmp(b + 32, "NXSB", 4) == 0;
}

std::string apfs_role_name(uint16_t role) {
  // Apple File System Reference, "Volume Roles": the six low bits are single roles of their own; from macOS 10.15
  // on, the others are numbers shifted by APFS_VOLUME_ENUM_SHIFT (6).
  switch (role) {
    case 0x0000: return "none";
    case 0x0001: return "system";
    case 0x0002: return "user";
    case 0x0004: return "recovery";
    case 0x0008: return "vm";
    case 0x0010: return "preboot";
    case 0x0020: return "installer";
    case 0x0040: return "data";
    case 0x0080: return "baseband";
    case 0x00C0: return "update";
    case 0x0100: return "xart";
    case 0x0140: return "hardware";
    case 0x0180: return "backup";
    case 0x0240: return "enterprise";
    case 0x02C0: return "prelogin";
    default: {
      char buf[24];
      std::snprintf(buf, sizeof buf, "unknown (0x%04x)", role);
      return buf;
    }
  }
}

const void* pool_of(const std::shared_ptr<void>& keep) {
  return keep ? static_cast<const PoolHandles*>(keep.get())->pool : nullptr;
}

PoolVolumeFs open_pool_volume(TSK_IMG_INFO* img, uint64_t offset, uint64_t block, const std::string& password,
                              std::string* why) {
  PoolVolumeFs out;
  auto handles = std::make_shared<PoolHandles>();
  handles->pool = tsk_pool_open_img_sing(img, static_cast<TSK_OFF_T>(offset), TSK_POOL_TYPE_APFS);
  if (!handles->pool) {
    if (why) *why = "APFS container: " + take_error("libtsk cannot open it");
    return out;
  }
  handles->pool_img = handles->pool->get_img_info(handles->pool, static_cast<TSK_DADDR_T>(block));
  if (!handles->pool_img) {
    if (why) *why = "APFS volume at block " + std::to_string(block) + ": " + take_error("libtsk cannot open it");
    return out;
  }
  // The offset is the one fls gives; libtsk's APFS reader takes the container's place from the pool.
  out.fs = tsk_fs_open_img_decrypt(handles->pool_img, static_cast<TSK_OFF_T>(offset), TSK_FS_TYPE_APFS,
                                   password.c_str());
  if (!out.fs) {
    if (why) *why = take_error("libtsk cannot open the volume");
    return out;
  }
  out.keep = std::move(handles);
  return out;
}

PoolVolumeFs reopen_pool_volume(const std::shared_ptr<void>& keep, uint64_t offset, std::string* why) {
  PoolVolumeFs out;
  const auto* handles = static_cast<const PoolHandles*>(keep.get());
  if (!handles || !handles->pool_img) {
    if (why) *why = "the volume's pool is not open";
    return out;
  }
  out.fs = tsk_fs_open_img_decrypt(handles->pool_img, static_cast<TSK_OFF_T>(offset), TSK_FS_TYPE_APFS, "");
  if (!out.fs) {
    if (why) *why = take_error("libtsk cannot open the volume");
    return out;
  }
  out.keep = keep;
  return out;
}

std::optional<PoolContainer> read_apfs_container(TSK_IMG_INFO* img, uint64_t offset, std::string* why,
                                                 const std::vector<std::string>& passwords) {
  const TSK_POOL_INFO* pool = tsk_pool_open_img_sing(img, static_cast<TSK_OFF_T>(offset), TSK_POOL_TYPE_APFS);
  if (!pool) {
    if (why) *why = take_error("libtsk cannot open the APFS container");
    return std::nullopt;
  }
  PoolContainer c;
  c.block_size = pool->block_size;
  c.blocks = pool->num_blocks;
  unsigned char nx[0x58];  // nx_superblock_t up to nx_uuid (0x48) and its 16 bytes
  if (tsk_img_read(img, static_cast<TSK_OFF_T>(offset), reinterpret_cast<char*>(nx), sizeof nx) ==
      static_cast<ssize_t>(sizeof nx))
    c.uuid = uuid_text(nx + 0x48);
  else
    tsk_error_reset();
  int index = 0;
  for (const TSK_POOL_VOLUME_INFO* v = pool->vol_list; v; v = v->next, ++index) {
    PoolVolume vol;
    vol.index = index;
    vol.block = v->block;
    vol.blocks = v->num_blocks;
    vol.name = v->desc ? v->desc : "";
    vol.password_hint = v->password_hint ? v->password_hint : "";
    vol.encrypted = v->flags & TSK_POOL_VOLUME_FLAG_ENCRYPTED;
    vol.case_sensitive = v->flags & TSK_POOL_VOLUME_FLAG_CASE_SENSITIVE;
    vol.role = apfs_role_name(0);
    // The superblock's own account (UUID, role): the list above has neither.
    TSK_IMG_INFO* pool_img = pool->get_img_info(pool, static_cast<TSK_DADDR_T>(v->block));
    TSK_FS_INFO* fs = pool_img ? tsk_fs_open_img_decrypt(pool_img, static_cast<TSK_OFF_T>(offset), TSK_FS_TYPE_APFS, "")
                               : nullptr;
    apfs_fsstat_info info;
    if (fs && tsk_apfs_fsstat(fs, &info) == 0) {
      vol.uuid = uuid_text(reinterpret_cast<const unsigned char*>(info.uuid));
      vol.name.assign(info.name, strnlen(info.name, sizeof info.name));
      // Copied as its bytes: libtsk's APFS_VOLUME_ROLE names only the roles up to Preboot, and loading Data (0x40)
      // as that enum is undefined behaviour.
      std::underlying_type_t<APFS_VOLUME_ROLE> role = 0;
      std::memcpy(&role, &info.role, sizeof role);
      vol.role_value = static_cast<uint16_t>(role);
      vol.role = apfs_role_name(vol.role_value);
      vol.case_sensitive = info.case_sensitive;
      vol.encrypted = info.encrypted;
      if (vol.password_hint.empty())
        vol.password_hint.assign(info.password_hint, strnlen(info.password_hint, sizeof info.password_hint));
      vol.snapshots = list_snapshots(fs);
    }
    tsk_error_reset();
    if (fs) tsk_fs_close(fs);
    if (pool_img) tsk_img_close(pool_img);
    if (vol.encrypted) {
      if (vol.uuid.empty()) read_encrypted_volume_superblock(img, offset, c.block_size, &vol);
      if (vol.password_hint.empty() && !vol.uuid.empty())
        vol.password_hint = apfs_password_hint(img, offset, vol.uuid);
      if (!vol.uuid.empty()) vol.snapshots = list_unlocked_snapshots(img, offset, vol, passwords);
    }
    c.volumes.push_back(std::move(vol));
  }
  tsk_pool_close(pool);
  return c;
}

}  // namespace roo::tsk
