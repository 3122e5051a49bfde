// The keybags of an APFS container with encrypted volumes (FileVault, software encryption), read by roo-ingest
// itself: libtsk 4.11.1 is built without OpenSSL (its configure.ac leaves HAVE_LIBOPENSSL undefined, "currently
// disabled due to automatic test failures"; Debian's libtsk19 needs no libcrypto), so it decrypts neither the
// keybags nor a volume: it lists no password hint, and no password unlocks a volume through it.
//
// Apple File System Reference, "Encryption" (media_keybag_t, kb_locker_t, keybag_entry_t, Keybag Tags) and
// libfsapfs' format documentation ("Key bag", "Encryption methods"): the container keybag (at nx_keylocker) is
// AES-XTS-128 encrypted with the container's UUID as both keys, each 512-byte sector's number from the start of the
// container its tweak; it holds each encrypted volume's wrapped volume key (KB_TAG_VOLUME_KEY) and the place of its
// volume keybag (KB_TAG_VOLUME_UNLOCK_RECORDS), encrypted likewise with the volume's UUID. That one holds the
// password hint (KB_TAG_VOLUME_PASSPHRASE_HINT) and the key-encryption keys wrapped (RFC 3394) under
// PBKDF2-HMAC-SHA256 of a password (KB_TAG_VOLUME_UNLOCK_RECORDS).
#pragma once

#include <cstdint>
#include <string>

#include "tsk_glue/apfs_pool.h"

struct TSK_IMG_INFO;

namespace roo::tsk {

// The password hint of the volume with UUID `volume_uuid` ("xxxxxxxx-xxxx-…", as apfs_pool.h prints it) in the
// container at `offset`: empty when it keeps none or its keybags cannot be read.
std::string apfs_password_hint(TSK_IMG_INFO* img, uint64_t offset, const std::string& volume_uuid);

// A volume's key (VEK) once unwrapped: AES-XTS-128 key 1 then key 2.
struct ApfsVolumeKey {
  unsigned char bytes[32] = {};
  ~ApfsVolumeKey();
};

enum class ApfsUnlock {
  unlocked,        // the password unwraps a key-encryption key, and that the volume key
  wrong_password,  // the keybags were read, and no key-encryption key unwraps with the password
  no_keys,         // the keybags cannot be read (damaged, hardware-encrypted, not there): *why says why
};
// Whether `password` unlocks the volume key of volume `volume_uuid` of the container at `offset`. The password is
// used only here and kept nowhere.
// When it does and `key` is given, *key is the volume's key.
ApfsUnlock apfs_unlock_volume_key(TSK_IMG_INFO* img, uint64_t offset, const std::string& volume_uuid,
                                  const std::string& password, std::string* why, ApfsVolumeKey* key = nullptr);

// Opens volume `block` of the container at `offset` of `img` (apfs_pool.h open_pool_volume) with its key, for a
// libtsk that cannot decrypt it itself: libtsk reads the container through an image that shows each block of the
// volume's file-system tree decrypted (a block whose Fletcher-64 checksum fails as stored and holds once decrypted
// with the key: Apple File System Reference "Accessing Encrypted Objects", only the tree nodes and file data of an
// encrypted volume are encrypted), and its file data is decrypted by the file system's decrypt_block callback,
// which libtsk calls for every extent with a crypto id (tsk_fs_read_block_decrypt) and which without OpenSSL would
// leave the bytes as stored. The returned keep closes the pool, then that image.
PoolVolumeFs open_filevault_volume(TSK_IMG_INFO* img, uint64_t offset, uint64_t block, const ApfsVolumeKey& key,
                                   std::string* why);

// Decrypts `len` bytes (whole blocks of `block_size`) of a container in place, as they would be an encrypted volume's
// file data written at container block `first_block` on: each 512-byte unit with its sector number from the
// container's start as the tweak, the rule open_filevault_volume's image applies to the tree's nodes. It is file
// data's rule too wherever an extent's crypto id is its first block (as macOS and fixtures/tools/apfs_put.py write
// them): the bytes a deleted file's freed extent or a file's slack keeps. false when it cannot (len not whole blocks).
bool apfs_decrypt_blocks(const ApfsVolumeKey& key, uint64_t first_block, uint32_t block_size, unsigned char* data,
                         size_t len);

}  // namespace roo::tsk
