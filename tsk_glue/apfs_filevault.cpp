#include "tsk_glue/apfs_filevault.h"
#include "tsk_glue/apfs_keybag.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <tsk/libtsk.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace roo::tsk {

namespace {

using Bytes = std::vector<unsigned char>;

constexpr size_t kSector = 512;
// A PBKDF2 count above this is taken for damage, not a key: real ones are tens to hundreds of thousands, and each
// million costs about a second.
constexpr uint64_t kMaxIterations = 10'000'000;

std::optional<Bytes> uuid_bytes(const std::string& text) {
  Bytes out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '-') continue;
    if (i + 1 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i])) ||
        !std::isxdigit(static_cast<unsigned char>(text[i + 1])))
      return std::nullopt;
    out.push_back(static_cast<unsigned char>(std::stoi(text.substr(i, 2), nullptr, 16)));
    ++i;
  }
  if (out.size() != 16) return std::nullopt;
  return out;
}

struct Container {
  TSK_IMG_INFO* img = nullptr;
  uint64_t offset = 0;
  uint32_t block_size = 0;
  uint64_t blocks = 0;
  Bytes uuid;
  uint64_t keylocker = 0, keylocker_blocks = 0;
};

std::optional<Bytes> read_bytes(TSK_IMG_INFO* img, uint64_t at, size_t n) {
  Bytes b(n);
  if (at + n > static_cast<uint64_t>(img->size) ||
      tsk_img_read(img, static_cast<TSK_OFF_T>(at), reinterpret_cast<char*>(b.data()), n) != static_cast<ssize_t>(n)) {
    tsk_error_reset();
    return std::nullopt;
  }
  return b;
}

// nx_superblock_t (Apple File System Reference, "Container"): nx_block_size 0x24, nx_block_count 0x28, nx_uuid
// 0x48, nx_keylocker 0x510 (a prange_t). Block 0's copy, as libtsk's pool reads the container's geometry.
std::optional<Container> read_container(TSK_IMG_INFO* img, uint64_t offset, std::string* why) {
  auto nx = read_bytes(img, offset, 0x520);
  if (!nx || std::memcmp(nx->data() + 32, "NXSB", 4) != 0) {
    *why = "no APFS container superblock";
    return std::nullopt;
  }
  Container c;
  c.img = img;
  c.offset = offset;
  c.block_size = le32(&(*nx)[0x24]);
  c.blocks = le64(&(*nx)[0x28]);
  c.uuid.assign(nx->begin() + 0x48, nx->begin() + 0x58);
  c.keylocker = le64(&(*nx)[0x510]);
  c.keylocker_blocks = le64(&(*nx)[0x518]);
  if (c.block_size < 4096 || c.block_size > 65536 || c.block_size % kSector) {
    *why = "container block size " + std::to_string(c.block_size) + " is not one APFS uses";
    return std::nullopt;
  }
  return c;
}

// AES-XTS-128 decryption of one block, each 512-byte unit with its sector number (from the container's start) as
// the tweak (IEEE 1619, as libfsapfs "Encryption methods" says APFS uses it).
std::optional<Bytes> xts_decrypt(const Bytes& key1, const Bytes& key2, uint64_t first_sector, const Bytes& in) {
  unsigned char key[32];
  std::memcpy(key, key1.data(), 16);
  std::memcpy(key + 16, key2.data(), 16);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (!ctx) return std::nullopt;
  Bytes out(in.size());
  bool ok = EVP_DecryptInit_ex(ctx, EVP_aes_128_xts(), nullptr, key, nullptr) == 1;
  for (size_t at = 0; ok && at < in.size(); at += kSector) {
    unsigned char tweak[16] = {};
    const uint64_t sector = first_sector + at / kSector;
    for (int i = 0; i < 8; ++i) tweak[i] = static_cast<unsigned char>(sector >> (8 * i));
    int n = 0;
    ok = EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, tweak) == 1 &&
         EVP_DecryptUpdate(ctx, &out[at], &n, &in[at], static_cast<int>(kSector)) == 1 && n == static_cast<int>(kSector);
  }
  EVP_CIPHER_CTX_free(ctx);
  OPENSSL_cleanse(key, sizeof key);
  if (!ok) return std::nullopt;
  return out;
}

struct Entry {
  Bytes uuid;
  uint16_t tag = 0;
  Bytes data;
};

// A keybag block, decrypted with `uuid` as both keys and checked (apfs_keybag.h keybag_object_ok), and its entries.
std::optional<std::vector<Entry>> read_keybag(const Container& c, uint64_t block, const Bytes& uuid, uint32_t type,
                                              std::string* why) {
  if (block == 0 || block >= c.blocks) {
    *why = "keybag block " + std::to_string(block) + " is outside the container";
    return std::nullopt;
  }
  auto cipher = read_bytes(c.img, c.offset + block * c.block_size, c.block_size);
  if (!cipher) {
    *why = "keybag block " + std::to_string(block) + " cannot be read";
    return std::nullopt;
  }
  auto plain = xts_decrypt(uuid, uuid, block * (c.block_size / kSector), *cipher);
  if (!plain || !keybag_object_ok(*plain, type)) {
    *why = "keybag at block " + std::to_string(block) +
           " does not decrypt with the UUID (a Mac's security chip may hold its key: hardware encryption)";
    return std::nullopt;
  }
  // An entry list cut short (KeybagEntries::error) still gives the entries before the cut.
  std::vector<Entry> entries;
  for (const KeybagEntry& e : keybag_entries(*plain).entries)
    entries.push_back({Bytes(e.uuid.begin(), e.uuid.end()), e.tag, Bytes(e.data.begin(), e.data.end())});
  return entries;
}

// RFC 3394 unwrap under `kek` (16 or 32 bytes); nullopt when its integrity check fails.
std::optional<Bytes> key_unwrap(const Bytes& kek, const Bytes& wrapped) {
  if (wrapped.size() < 24 || wrapped.size() % 8) return std::nullopt;
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (!ctx) return std::nullopt;
  EVP_CIPHER_CTX_set_flags(ctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
  Bytes out(wrapped.size());
  int n = 0, tail = 0;
  const bool ok =
      EVP_DecryptInit_ex(ctx, kek.size() == 16 ? EVP_aes_128_wrap() : EVP_aes_256_wrap(), nullptr, kek.data(),
                         nullptr) == 1 &&
      EVP_DecryptUpdate(ctx, out.data(), &n, wrapped.data(), static_cast<int>(wrapped.size())) == 1 &&
      EVP_DecryptFinal_ex(ctx, out.data() + n, &tail) == 1;
  EVP_CIPHER_CTX_free(ctx);
  if (!ok || n + tail != static_cast<int>(wrapped.size() - 8)) {
    OPENSSL_cleanse(out.data(), out.size());
    return std::nullopt;
  }
  out.resize(static_cast<size_t>(n + tail));
  return out;
}

struct VolumeKeybags {
  Bytes wrapped_vek_blob;         // the container keybag's KB_TAG_VOLUME_KEY entry
  std::vector<Entry> volume;      // the volume keybag's entries
};

std::optional<VolumeKeybags> read_volume_keybags(TSK_IMG_INFO* img, uint64_t offset, const std::string& volume_uuid,
                                                 std::string* why) {
  auto uuid = uuid_bytes(volume_uuid);
  if (!uuid) {
    *why = "the volume's UUID is not known";
    return std::nullopt;
  }
  auto c = read_container(img, offset, why);
  if (!c) return std::nullopt;
  if (c->keylocker == 0) {
    *why = "the container has no keybag (nx_keylocker is empty)";
    return std::nullopt;
  }
  auto container = read_keybag(*c, c->keylocker, c->uuid, kContainerKeybag, why);
  if (!container) return std::nullopt;
  VolumeKeybags out;
  std::optional<uint64_t> recs;
  for (const Entry& e : *container) {
    if (e.uuid != *uuid) continue;
    if (e.tag == kTagVolumeKey) out.wrapped_vek_blob = e.data;
    if (e.tag == kTagUnlockRecords && e.data.size() >= 16) recs = le64(e.data.data());
  }
  if (out.wrapped_vek_blob.empty() || !recs) {
    *why = "the container keybag holds no key for this volume";
    return std::nullopt;
  }
  auto volume = read_keybag(*c, *recs, *uuid, kVolumeKeybag, why);
  if (!volume) return std::nullopt;
  out.volume = std::move(*volume);
  return out;
}

// ---- reading an unlocked volume ------------------------------------------------------------------------------

struct FileVaultImage {
  TSK_IMG_INFO img;  // first: libtsk's handle is this object (tsk_img_open_external)
  TSK_IMG_INFO* base = nullptr;
  uint64_t offset = 0, end = 0;  // the container's bytes in base
  uint32_t block_size = 0;
  Bytes key1, key2;
};

// One container block as libtsk will see it: as stored when its checksum holds (or it is no object), else decrypted
// when that makes the checksum hold.
void show_block(const FileVaultImage& f, uint64_t block, unsigned char* data) {
  Bytes b(data, data + f.block_size);
  if (checksum_ok(b)) return;
  auto plain = xts_decrypt(f.key1, f.key2, block * (f.block_size / kSector), b);
  if (plain && checksum_ok(*plain)) std::memcpy(data, plain->data(), f.block_size);
}

ssize_t filevault_read(TSK_IMG_INFO* img, TSK_OFF_T off, char* buf, size_t len) {
  auto* f = reinterpret_cast<FileVaultImage*>(img);
  const ssize_t n = tsk_img_read(f->base, off, buf, len);
  if (n <= 0) return n;
  const uint64_t from = std::max<uint64_t>(static_cast<uint64_t>(off), f->offset);
  const uint64_t to = std::min<uint64_t>(static_cast<uint64_t>(off) + static_cast<uint64_t>(n), f->end);
  for (uint64_t b = from > f->offset ? (from - f->offset) / f->block_size : 0;
       from < to && f->offset + b * f->block_size < to; ++b) {
    const uint64_t start = f->offset + b * f->block_size, stop = start + f->block_size;
    if (start >= static_cast<uint64_t>(off) && stop <= static_cast<uint64_t>(off) + static_cast<uint64_t>(n)) {
      show_block(*f, b, reinterpret_cast<unsigned char*>(buf) + (start - static_cast<uint64_t>(off)));
      continue;
    }
    // A block the read covers in part: the whole block is looked at, and the part asked for copied.
    Bytes whole(f->block_size);
    if (tsk_img_read(f->base, static_cast<TSK_OFF_T>(start), reinterpret_cast<char*>(whole.data()), whole.size()) !=
        static_cast<ssize_t>(whole.size())) {
      tsk_error_reset();
      continue;
    }
    show_block(*f, b, whole.data());
    const uint64_t lo = std::max<uint64_t>(start, static_cast<uint64_t>(off));
    const uint64_t hi = std::min<uint64_t>(stop, static_cast<uint64_t>(off) + static_cast<uint64_t>(n));
    std::memcpy(buf + (lo - static_cast<uint64_t>(off)), whole.data() + (lo - start), hi - lo);
  }
  return n;
}

void filevault_close(TSK_IMG_INFO* img) {
  auto* f = reinterpret_cast<FileVaultImage*>(img);
  OPENSSL_cleanse(f->key1.data(), f->key1.size());
  OPENSSL_cleanse(f->key2.data(), f->key2.size());
  delete f;
}

void filevault_imgstat(TSK_IMG_INFO* img, FILE* out) {
  std::fprintf(out, "IMAGE FILE INFORMATION\n--------------------------------------------\nImage Type:\t\tapfs volume "
                    "decrypted by roo-ingest\n\nSize of data in bytes:\t%lld\n",
               static_cast<long long>(img->size));
}

// The key of each file system open_filevault_volume opened, for its decrypt_block; taken out when it closes.
struct DataKey {
  Bytes key1, key2;
  void (*close)(TSK_FS_INFO*) = nullptr;
};
std::mutex g_data_keys_lock;
std::map<const TSK_FS_INFO*, DataKey> g_data_keys;

// TSK_FS_INFO::decrypt_block: one block of file data, `crypto_id` the extent's crypto id plus the block's place in
// it (a block number: the tweak is its first sector), as libtsk's APFS reader would decrypt it with OpenSSL.
uint8_t filevault_decrypt_block(TSK_FS_INFO* fs, TSK_DADDR_T crypto_id, void* data) {
  Bytes key1, key2;
  {
    std::lock_guard<std::mutex> hold(g_data_keys_lock);
    auto it = g_data_keys.find(fs);
    if (it == g_data_keys.end()) return 1;
    key1 = it->second.key1;
    key2 = it->second.key2;
  }
  Bytes b(static_cast<unsigned char*>(data), static_cast<unsigned char*>(data) + fs->block_size);
  auto plain = xts_decrypt(key1, key2, crypto_id * (fs->block_size / kSector), b);
  OPENSSL_cleanse(key1.data(), key1.size());
  OPENSSL_cleanse(key2.data(), key2.size());
  if (!plain) return 1;
  std::memcpy(data, plain->data(), plain->size());
  return 0;
}

void filevault_fs_close(TSK_FS_INFO* fs) {
  void (*close)(TSK_FS_INFO*) = nullptr;
  {
    std::lock_guard<std::mutex> hold(g_data_keys_lock);
    auto it = g_data_keys.find(fs);
    if (it != g_data_keys.end()) {
      close = it->second.close;
      OPENSSL_cleanse(it->second.key1.data(), it->second.key1.size());
      OPENSSL_cleanse(it->second.key2.data(), it->second.key2.size());
      g_data_keys.erase(it);
    }
  }
  if (close) close(fs);
}

// What open_filevault_volume's keep holds: the pool's handles (closed first), then the decrypting image.
struct FileVaultHandles {
  std::shared_ptr<void> pool;
  TSK_IMG_INFO* image = nullptr;
  ~FileVaultHandles() {
    pool.reset();
    if (image) tsk_img_close(image);
  }
};

}  // namespace

ApfsVolumeKey::~ApfsVolumeKey() { OPENSSL_cleanse(bytes, sizeof bytes); }

PoolVolumeFs open_filevault_volume(TSK_IMG_INFO* img, uint64_t offset, uint64_t block, const ApfsVolumeKey& key,
                                   std::string* why) {
  std::string reason;
  auto c = read_container(img, offset, &reason);
  if (!c) {
    if (why) *why = reason;
    return {};
  }
  auto* f = new FileVaultImage();  // value-initialised: an empty read cache
  f->base = img;
  f->offset = offset;
  f->block_size = c->block_size;
  f->end = std::min<uint64_t>(offset + c->blocks * c->block_size, static_cast<uint64_t>(img->size));
  f->key1.assign(key.bytes, key.bytes + 16);
  f->key2.assign(key.bytes + 16, key.bytes + 32);
  f->img.tag = TSK_IMG_INFO_TAG;
  TSK_IMG_INFO* dec = tsk_img_open_external(f, img->size, img->sector_size, &filevault_read, &filevault_close,
                                            &filevault_imgstat);
  if (!dec) {
    filevault_close(&f->img);
    if (why) *why = "cannot make the decrypting image";
    return {};
  }
  // No password for libtsk: it cannot use one, and the key is already known.
  PoolVolumeFs opened = open_pool_volume(dec, offset, block, "", why);
  if (!opened.fs) {
    tsk_img_close(dec);
    return opened;
  }
  {
    std::lock_guard<std::mutex> hold(g_data_keys_lock);
    DataKey& k = g_data_keys[opened.fs];
    k.key1 = f->key1;
    k.key2 = f->key2;
    k.close = opened.fs->close;
  }
  opened.fs->decrypt_block = &filevault_decrypt_block;
  opened.fs->close = &filevault_fs_close;
  auto handles = std::make_shared<FileVaultHandles>();
  handles->pool = opened.keep;
  handles->image = dec;
  // The keep still points at the pool's handles (apfs_pool.h pool_of reads them), and owns this too.
  void* pool_handles = opened.keep.get();
  opened.keep = std::shared_ptr<void>(handles, pool_handles);
  return opened;
}

bool apfs_decrypt_blocks(const ApfsVolumeKey& key, uint64_t first_block, uint32_t block_size, unsigned char* data,
                         size_t len) {
  if (block_size == 0 || block_size % kSector || len % block_size) return false;
  Bytes key1(key.bytes, key.bytes + 16), key2(key.bytes + 16, key.bytes + 32);
  auto plain = xts_decrypt(key1, key2, first_block * (block_size / kSector), Bytes(data, data + len));
  OPENSSL_cleanse(key1.data(), key1.size());
  OPENSSL_cleanse(key2.data(), key2.size());
  if (!plain) return false;
  std::memcpy(data, plain->data(), len);
  return true;
}

std::string apfs_password_hint(TSK_IMG_INFO* img, uint64_t offset, const std::string& volume_uuid) {
  std::string why;
  auto bags = read_volume_keybags(img, offset, volume_uuid, &why);
  if (!bags) return "";
  const auto uuid = uuid_bytes(volume_uuid);
  for (const Entry& e : bags->volume)
    if (e.tag == kTagPassphraseHint && e.uuid == *uuid) {
      std::string hint(e.data.begin(), e.data.end());
      hint.erase(std::find(hint.begin(), hint.end(), '\0'), hint.end());
      return hint;
    }
  return "";
}

ApfsUnlock apfs_unlock_volume_key(TSK_IMG_INFO* img, uint64_t offset, const std::string& volume_uuid,
                                  const std::string& password, std::string* why, ApfsVolumeKey* key) {
  std::string reason;
  auto bags = read_volume_keybags(img, offset, volume_uuid, &reason);
  if (!bags) {
    if (why) *why = reason;
    return ApfsUnlock::no_keys;
  }
  const WrappedKeyBlob vek_blob = wrapped_key_blob(bags->wrapped_vek_blob);
  const auto& wrapped_vek = vek_blob.wrapped;
  const auto& vek_flags = vek_blob.flags;
  if (!wrapped_vek || wrapped_vek->size() != 40) {
    if (why) *why = "the volume key in the container keybag is not a wrapped 32-byte key";
    return ApfsUnlock::no_keys;
  }
  // libtsk's reading of the key metadata (tsk/fs/tsk_apfs.hpp, crypto_info_t::cs()): bit 57 set marks a 16-byte
  // key of a volume converted from CoreStorage.
  const size_t vek_len = vek_flags && (be_number(*vek_flags) >> 57 & 1) ? 16 : 32;
  bool any_kek = false;
  for (const Entry& e : bags->volume) {
    if (e.tag != kTagUnlockRecords) continue;
    const WrappedKeyBlob kek_blob = wrapped_key_blob(e.data);
    const auto &wrapped = kek_blob.wrapped, &flags = kek_blob.flags;
    const auto &iterations = kek_blob.iterations, &salt = kek_blob.salt;
    if (!wrapped || wrapped->size() != 40 || !iterations || iterations->empty() || iterations->size() > 8 || !salt)
      continue;
    const uint64_t count = be_number(*iterations);
    if (count == 0 || count > kMaxIterations) continue;
    any_kek = true;
    const size_t kek_len = flags && (be_number(*flags) >> 57 & 1) ? 16 : 32;
    Bytes user_key(kek_len);
    if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), salt->data(),
                          static_cast<int>(salt->size()), static_cast<int>(count), EVP_sha256(),
                          static_cast<int>(kek_len), user_key.data()) != 1)
      continue;
    auto kek = key_unwrap(user_key, Bytes(wrapped->begin(), wrapped->begin() + kek_len + 8));
    OPENSSL_cleanse(user_key.data(), user_key.size());
    if (!kek) continue;
    // A 16-byte volume key wrapped under a 32-byte KEK uses the KEK's first 16 bytes (as libtsk unlocks it).
    Bytes used(kek->begin(), kek->begin() + std::min(kek_len, vek_len));
    auto vek = key_unwrap(used, Bytes(wrapped_vek->begin(), wrapped_vek->begin() + vek_len + 8));
    OPENSSL_cleanse(kek->data(), kek->size());
    OPENSSL_cleanse(used.data(), used.size());
    if (vek) {
      if (key) {
        std::memcpy(key->bytes, vek->data(), vek_len);
        if (vek_len == 16) {
          // libtsk's reading of a volume converted from CoreStorage (tsk/fs/apfs.cpp unlock()): the tweak key is the
          // first 16 bytes of SHA-256 of the key and the volume key's UUID.
          const auto& vek_uuid = vek_blob.uuid;
          unsigned char both[32] = {}, hash[32];
          std::memcpy(both, vek->data(), 16);
          if (vek_uuid && vek_uuid->size() == 16) std::memcpy(both + 16, vek_uuid->data(), 16);
          unsigned int hash_len = 0;
          EVP_Digest(both, sizeof both, hash, &hash_len, EVP_sha256(), nullptr);
          std::memcpy(key->bytes + 16, hash, 16);
          OPENSSL_cleanse(both, sizeof both);
        }
      }
      OPENSSL_cleanse(vek->data(), vek->size());
      return ApfsUnlock::unlocked;
    }
  }
  if (!any_kek) {
    if (why) *why = "the volume keybag holds no password-wrapped key";
    return ApfsUnlock::no_keys;
  }
  return ApfsUnlock::wrong_password;
}

}  // namespace roo::tsk
