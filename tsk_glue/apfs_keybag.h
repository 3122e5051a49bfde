// The byte structures of APFS keybags, parsed from bytes already read and decrypted (tsk_glue/apfs_filevault.cpp does
// the reading, decrypting and unwrapping): the standard library only, so the libFuzzer build links it without libtsk
// or OpenSSL (tests/fuzz/fuzz_filevault_keybag.cpp).
//
// Apple File System Reference, "Encryption" (media_keybag_t, kb_locker_t, keybag_entry_t) and libfsapfs' format
// documentation ("Key bag", "Key bag entries", "Key bag packed object").
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace roo::tsk {

using ByteSpan = std::span<const unsigned char>;

constexpr uint32_t kContainerKeybag = 0x6b657973;  // 'keys' (media_keybag_t's o_type)
constexpr uint32_t kVolumeKeybag = 0x72656373;     // 'recs'
constexpr uint16_t kTagVolumeKey = 2, kTagUnlockRecords = 3, kTagPassphraseHint = 4;

uint16_t le16(const unsigned char* p);
uint32_t le32(const unsigned char* p);
uint64_t le64(const unsigned char* p);

// Apple File System Reference, "Objects", obj_phys_t o_cksum: whether the Fletcher-64 over the object after its first
// 8 bytes is those bytes. False for fewer than 8 bytes.
bool checksum_ok(ByteSpan object);

// Whether `block` is a decrypted keybag object of o_type `type`: its checksum holds, and kb_locker_t's version is 2.
bool keybag_object_ok(ByteSpan block, uint32_t type);

// One keybag_entry_t: views into the bytes given to keybag_entries.
struct KeybagEntry {
  ByteSpan uuid;  // ke_uuid, 16 bytes
  uint16_t tag = 0;
  ByteSpan data;  // ke_keydata, ke_keylen bytes
};
struct KeybagEntries {
  std::vector<KeybagEntry> entries;  // the entries read, in order, at most kl_nkeys
  std::string error;                 // empty when all kl_nkeys entries were read; else why the list stops there
};
// The entry list of a keybag object (kl_nkeys at byte 34, the entries from byte 48, each 16-byte aligned: libfsapfs
// "Key bag entries"). An entry cut short or whose length runs past the end ends the list, with `error` saying so.
KeybagEntries keybag_entries(ByteSpan block);

// A value of a packed object (libfsapfs "Key bag packed object", DER-like): tag, length (one byte, or 0x81/0x82 and
// one or two length bytes), data; `path` the tags to go down, each one inside the last. A view into `blob`; nullopt
// when a tag on the path is missing or a length runs past what holds it.
std::optional<ByteSpan> packed_value(ByteSpan blob, std::initializer_list<unsigned char> path);

// A wrapped key's packed object (a KB_TAG_VOLUME_KEY or KB_TAG_VOLUME_UNLOCK_RECORDS entry's data: tag 0x30 holding
// 0xA3, holding these); each a view into the blob, nullopt when it is not there.
struct WrappedKeyBlob {
  std::optional<ByteSpan> uuid;        // 0x81: the key's UUID
  std::optional<ByteSpan> flags;       // 0x82: big-endian flags (bit 57: a 16-byte key, from CoreStorage)
  std::optional<ByteSpan> wrapped;     // 0x83: the RFC 3394 wrapped key
  std::optional<ByteSpan> iterations;  // 0x84: big-endian PBKDF2 count (KEKs only)
  std::optional<ByteSpan> salt;        // 0x85: the PBKDF2 salt (KEKs only)
};
WrappedKeyBlob wrapped_key_blob(ByteSpan blob);

// A big-endian number (the packed object's numbers); the last 8 bytes count when there are more.
uint64_t be_number(ByteSpan bytes);

}  // namespace roo::tsk
