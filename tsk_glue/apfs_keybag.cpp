#include "tsk_glue/apfs_keybag.h"

namespace roo::tsk {

namespace {
constexpr size_t kEntriesStart = 48;  // sizeof(obj_phys_t) + kb_locker_t's kl_version, kl_nkeys, kl_nbytes, padding
constexpr size_t kEntryHead = 24;     // keybag_entry_t before ke_keydata: ke_uuid, ke_tag, ke_keylen, padding
}  // namespace

uint16_t le16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t le32(const unsigned char* p) { return le16(p) | static_cast<uint32_t>(le16(p + 2)) << 16; }
uint64_t le64(const unsigned char* p) { return le32(p) | static_cast<uint64_t>(le32(p + 4)) << 32; }

bool checksum_ok(ByteSpan b) {
  if (b.size() < 8) return false;
  const uint64_t mod = 0xFFFFFFFF;
  uint64_t s1 = 0, s2 = 0;
  for (size_t i = 8; i + 4 <= b.size(); i += 4) {
    s1 = (s1 + le32(&b[i])) % mod;
    s2 = (s2 + s1) % mod;
  }
  const uint64_t c1 = mod - ((s1 + s2) % mod);
  const uint64_t c2 = mod - ((s1 + c1) % mod);
  return le64(b.data()) == ((c2 << 32) | c1);
}

bool keybag_object_ok(ByteSpan block, uint32_t type) {
  return block.size() >= kEntriesStart && checksum_ok(block) && le32(&block[24]) == type && le16(&block[32]) == 2;
}

KeybagEntries keybag_entries(ByteSpan b) {
  KeybagEntries out;
  if (b.size() < kEntriesStart) {
    out.error = "keybag of " + std::to_string(b.size()) + " bytes is shorter than its header";
    return out;
  }
  const uint16_t count = le16(&b[34]);
  size_t at = kEntriesStart;
  for (uint16_t i = 0; i < count; ++i) {
    if (at > b.size() || b.size() - at < kEntryHead) {
      out.error = "keybag entry " + std::to_string(i) + " of " + std::to_string(count) + " at byte " +
                  std::to_string(at) + " is cut short";
      break;
    }
    const uint16_t len = le16(&b[at + 18]);
    if (b.size() - at - kEntryHead < len) {
      out.error = "keybag entry " + std::to_string(i) + " of " + std::to_string(count) + " at byte " +
                  std::to_string(at) + ": its " + std::to_string(len) + " bytes of data run past the keybag's end";
      break;
    }
    out.entries.push_back({b.subspan(at, 16), le16(&b[at + 16]), b.subspan(at + kEntryHead, len)});
    at = (at + kEntryHead + len + 15) & ~size_t{15};
  }
  return out;
}

std::optional<ByteSpan> packed_value(ByteSpan blob, std::initializer_list<unsigned char> path) {
  size_t begin = 0, end = blob.size();
  for (unsigned char want : path) {
    bool found = false;
    size_t at = begin;
    while (end - at >= 2) {
      const unsigned char tag = blob[at];
      size_t len = blob[at + 1];
      size_t head = 2;
      if (len & 0x80) {
        const size_t bytes = len & 0x7F;
        if (bytes == 0 || bytes > 2 || end - at - 2 < bytes) return std::nullopt;
        len = 0;
        for (size_t i = 0; i < bytes; ++i) len = len << 8 | blob[at + 2 + i];
        head += bytes;
      }
      if (end - at - head < len) return std::nullopt;
      if (tag == want) {
        begin = at + head;
        end = begin + len;
        found = true;
        break;
      }
      at += head + len;
    }
    if (!found) return std::nullopt;
  }
  return blob.subspan(begin, end - begin);
}

WrappedKeyBlob wrapped_key_blob(ByteSpan blob) {
  return {packed_value(blob, {0x30, 0xA3, 0x81}), packed_value(blob, {0x30, 0xA3, 0x82}),
          packed_value(blob, {0x30, 0xA3, 0x83}), packed_value(blob, {0x30, 0xA3, 0x84}),
          packed_value(blob, {0x30, 0xA3, 0x85})};
}

uint64_t be_number(ByteSpan b) {
  uint64_t n = 0;
  for (unsigned char x : b) n = n << 8 | x;
  return n;
}

}  // namespace roo::tsk
