// The keybag byte parsers of tsk_glue/apfs_keybag.h on hand-made bytes: an entry list as the Apple File System
// Reference's keybag_entry_t lays it out (ke_uuid 16 bytes, ke_tag, ke_keylen, 4 bytes of padding, ke_keydata, the
// next entry at the next multiple of 16), and packed objects as libfsapfs' "Key bag packed object" describes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tsk_glue/apfs_keybag.h"

namespace roo::tsk {
namespace {

using Bytes = std::vector<unsigned char>;

// A keybag block's first 48 bytes with kl_nkeys = `count` (the object header and the checksum left zero: the entry
// list does not look at them), then `entries` as given.
Bytes keybag(uint16_t count, const Bytes& entries) {
  Bytes b(48 + entries.size(), 0);
  b[32] = 2;  // kl_version
  b[34] = static_cast<unsigned char>(count);
  b[35] = static_cast<unsigned char>(count >> 8);
  std::copy(entries.begin(), entries.end(), b.begin() + 48);
  return b;
}

// One keybag_entry_t's 24-byte head: UUID bytes all `uuid_byte`, `tag`, `len`.
Bytes entry_head(unsigned char uuid_byte, uint16_t tag, uint16_t len) {
  Bytes h(24, 0);
  std::fill_n(h.begin(), 16, uuid_byte);
  h[16] = static_cast<unsigned char>(tag);
  h[17] = static_cast<unsigned char>(tag >> 8);
  h[18] = static_cast<unsigned char>(len);
  h[19] = static_cast<unsigned char>(len >> 8);
  return h;
}

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(ApfsKeybag, EntriesAreReadAtTheirAlignedPlaces) {
  // Entry 0 at byte 48: head 24 + 5 data bytes ends at 77, so entry 1 starts at 80 (3 padding bytes).
  const Bytes b = keybag(2, cat({entry_head(0x11, 3, 5), {'h', 'e', 'l', 'l', 'o'}, {0, 0, 0},
                                 entry_head(0x22, 4, 2), {'h', 'i'}}));
  const KeybagEntries bag = keybag_entries(b);
  EXPECT_EQ(bag.error, "");
  ASSERT_EQ(bag.entries.size(), 2u);
  EXPECT_EQ(bag.entries[0].uuid.data(), b.data() + 48);
  EXPECT_EQ(Bytes(bag.entries[0].uuid.begin(), bag.entries[0].uuid.end()), Bytes(16, 0x11));
  EXPECT_EQ(bag.entries[0].tag, kTagUnlockRecords);
  EXPECT_EQ(std::string(bag.entries[0].data.begin(), bag.entries[0].data.end()), "hello");
  EXPECT_EQ(bag.entries[1].uuid.data(), b.data() + 80);
  EXPECT_EQ(bag.entries[1].tag, kTagPassphraseHint);
  EXPECT_EQ(std::string(bag.entries[1].data.begin(), bag.entries[1].data.end()), "hi");
}

TEST(ApfsKeybag, AnEntryCutShortEndsTheListWithAnError) {
  // kl_nkeys says 2; the second entry's head (at 80) has only 10 of its 24 bytes.
  const Bytes b = keybag(2, cat({entry_head(0x11, 2, 5), {1, 2, 3, 4, 5}, {0, 0, 0}, Bytes(10, 0x22)}));
  const KeybagEntries bag = keybag_entries(b);
  ASSERT_EQ(bag.entries.size(), 1u);
  EXPECT_EQ(bag.entries[0].tag, kTagVolumeKey);
  EXPECT_EQ(bag.error, "keybag entry 1 of 2 at byte 80 is cut short");
}

TEST(ApfsKeybag, ALengthPastTheEndEndsTheListWithAnError) {
  // ke_keylen 200, and only 3 bytes follow the head.
  const KeybagEntries bag = keybag_entries(keybag(1, cat({entry_head(0x11, 4, 200), {'a', 'b', 'c'}})));
  EXPECT_TRUE(bag.entries.empty());
  EXPECT_EQ(bag.error, "keybag entry 0 of 1 at byte 48: its 200 bytes of data run past the keybag's end");
}

TEST(ApfsKeybag, BytesShorterThanTheHeaderAreAnError) {
  const KeybagEntries bag = keybag_entries(Bytes(40, 0xFF));
  EXPECT_TRUE(bag.entries.empty());
  EXPECT_EQ(bag.error, "keybag of 40 bytes is shorter than its header");
  EXPECT_FALSE(keybag_object_ok(Bytes(40, 0), kContainerKeybag));
  EXPECT_FALSE(checksum_ok(Bytes(7, 0)));
}

TEST(ApfsKeybag, AWrappedKeysValuesAreFoundInsideItsPackedObject) {
  // 30 { A3 { 81 (2 bytes) 82 (1) 83 (long form 0x81: 3 bytes) 84 (2: 1000) 85 (1) } }
  const Bytes blob = {0x30, 0x16, 0xA3, 0x14, 0x81, 0x02, 0xAB, 0xCD, 0x82, 0x01, 0x07, 0x83, 0x81, 0x03,
                      0x01, 0x02, 0x03, 0x84, 0x02, 0x03, 0xE8, 0x85, 0x01, 0x5A};
  const WrappedKeyBlob key = wrapped_key_blob(blob);
  ASSERT_TRUE(key.uuid && key.flags && key.wrapped && key.iterations && key.salt);
  EXPECT_EQ(Bytes(key.uuid->begin(), key.uuid->end()), (Bytes{0xAB, 0xCD}));
  EXPECT_EQ(be_number(*key.flags), 7u);
  EXPECT_EQ(key.wrapped->data(), blob.data() + 14);
  EXPECT_EQ(Bytes(key.wrapped->begin(), key.wrapped->end()), (Bytes{1, 2, 3}));
  EXPECT_EQ(be_number(*key.iterations), 1000u);
  EXPECT_EQ(Bytes(key.salt->begin(), key.salt->end()), Bytes{0x5A});
}

TEST(ApfsKeybag, APackedLengthPastWhatHoldsItIsNoValue) {
  // 0xA3 says 0x10 bytes inside a 0x30 of 4; 0x83's 9 bytes run past the blob's end; 0x83 of length form 0x83 (three
  // length bytes, which the format does not use).
  EXPECT_FALSE(packed_value(Bytes{0x30, 0x04, 0xA3, 0x10, 0x83, 0x00}, {0x30, 0xA3, 0x83}));
  EXPECT_FALSE(packed_value(Bytes{0x30, 0x04, 0xA3, 0x02, 0x83, 0x09}, {0x30, 0xA3, 0x83}));
  EXPECT_FALSE(packed_value(Bytes{0x30, 0x05, 0x83, 0x83, 0x00, 0x00, 0x01}, {0x30, 0x83}));
  const WrappedKeyBlob none = wrapped_key_blob(Bytes{0x30});
  EXPECT_FALSE(none.uuid || none.flags || none.wrapped || none.iterations || none.salt);
}

}  // namespace
}  // namespace roo::tsk
