// APFS containers through libtsk 4.11's pool API. A Mac disk's APFS partition (or an image of the container alone)
// holds one container, and the container several volumes (System, Data, Preboot, …), each a file system of its own.
// libtsk reads a volume through a pool image (TSK_POOL_INFO::get_img_info) given to tsk_fs_open_img_decrypt, as its
// own fls -P apfs -B does: tsk_fs_open_pool is declared in 4.11's headers but not built into the library.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tsk_glue/tsk_evidence.h"

struct TSK_IMG_INFO;
struct TSK_FS_INFO;

namespace roo::tsk {

// Whether the bytes at `offset` start an APFS container superblock (its "NXSB" magic). Cheap: one small read.
bool looks_like_apfs_container(TSK_IMG_INFO* img, uint64_t offset);

// The container at `offset` and its volumes; nullopt (and *why) when libtsk cannot open it as a pool. Each volume's
// name, UUID, role, case sensitivity and encryption come from its superblock (tsk_apfs_fsstat); a volume libtsk
// cannot open is still listed with what the container's volume list says. An encrypted volume's snapshots are
// listed only when one of `passwords` unlocks it.
std::optional<PoolContainer> read_apfs_container(TSK_IMG_INFO* img, uint64_t offset, std::string* why,
                                                 const std::vector<std::string>& passwords = {});

// The name docs/row-contract.md gives a volume role (apfs_role, Apple File System Reference "Volume Roles").
std::string apfs_role_name(uint16_t role);

// libtsk's pending error as one line (or fallback when it has none), and cleared.
std::string take_error(const char* fallback);

// One opened pool volume: its TSK_FS_INFO and what must stay open under it (the pool image, then the pool). `keep`
// closes the pool image and the pool; the file system must be closed first.
struct PoolVolumeFs {
  TSK_FS_INFO* fs = nullptr;
  std::shared_ptr<void> keep;
};
// Opens volume `block` of the container at `offset` (password: empty for none). On failure fs is null and *why says
// why (libtsk's message).
// The TSK_POOL_INFO (as const void*) inside the `keep` of an opened pool volume.
const void* pool_of(const std::shared_ptr<void>& keep);
PoolVolumeFs open_pool_volume(TSK_IMG_INFO* img, uint64_t offset, uint64_t block, const std::string& password,
                              std::string* why);
// The volume of an opened pool volume (its `keep`) opened once more, on the same pool and pool image, which the
// result's keep shares: what a volume's snapshots are opened on. libtsk's pool caches the container's blocks, and a
// pool image holds a 2 MiB read cache that tsk_img_malloc zeroes, so opening a pool per snapshot costs each
// snapshot that zeroing and a cold cache of the blocks the live volume and its snapshots share.
PoolVolumeFs reopen_pool_volume(const std::shared_ptr<void>& keep, uint64_t offset, std::string* why);

}  // namespace roo::tsk
