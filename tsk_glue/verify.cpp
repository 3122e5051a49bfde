#include "tsk_glue/verify.h"

#include <libewf.h>
#include <openssl/evp.h>
#include <tsk/libtsk.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "core/text_util.h"
#include "tsk_glue/library_errors.h"

namespace roo::tsk {

namespace {

// MD5 and SHA-1 over the same bytes, in one pass.
class TwoDigests {
 public:
  TwoDigests() : md5_(EVP_MD_CTX_new()), sha1_(EVP_MD_CTX_new()) {
    if (!md5_ || !sha1_ || EVP_DigestInit_ex(md5_, EVP_md5(), nullptr) != 1 ||
        EVP_DigestInit_ex(sha1_, EVP_sha1(), nullptr) != 1)
      throw std::runtime_error("OpenSSL MD5/SHA-1 initialisation failed");
  }
  ~TwoDigests() {
    EVP_MD_CTX_free(md5_);
    EVP_MD_CTX_free(sha1_);
  }
  TwoDigests(const TwoDigests&) = delete;
  TwoDigests& operator=(const TwoDigests&) = delete;
  void update(const void* data, size_t n) {
    EVP_DigestUpdate(md5_, data, n);
    EVP_DigestUpdate(sha1_, data, n);
  }
  void finish(std::string* md5, std::string* sha1) {
    *md5 = final_hex(md5_);
    *sha1 = final_hex(sha1_);
  }

 private:
  static std::string final_hex(EVP_MD_CTX* ctx) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx, md, &n);
    return to_hex(md, n);
  }
  EVP_MD_CTX* md5_;
  EVP_MD_CTX* sha1_;
};

// Reads [0, size) in blocks through read(offset, buffer, length) -> bytes read, or 0 or -1 after the reader has noted
// why it failed, hashing as it goes.
template <typename Read>
void hash_media(uint64_t size, Read read, TwoDigests& digests, Verification& v, const VerifyProgress& progress) {
  std::unique_ptr<char[]> buf(new char[kVerifyBlockBytes]);
  while (v.bytes_hashed < size) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kVerifyBlockBytes, size - v.bytes_hashed));
    const int64_t got = read(v.bytes_hashed, buf.get(), want);
    if (got <= 0) return;
    digests.update(buf.get(), static_cast<size_t>(got));
    v.bytes_hashed += static_cast<uint64_t>(got);
    if (progress) progress(v.bytes_hashed, size, false);
  }
}

// EWF through libewf itself: its reads check every chunk's checksum and count the failures, as ewfverify does.
std::string verify_ewf(const std::vector<std::string>& segments, TwoDigests& digests, Verification& v,
                       const VerifyProgress& progress) {
  v.read_with = "libewf";
  std::vector<char*> argv;
  for (const std::string& s : segments) argv.push_back(const_cast<char*>(s.c_str()));
  libewf_error_t* err = nullptr;
  libewf_handle_t* h = nullptr;
  if (libewf_handle_initialize(&h, &err) != 1) return "libewf: " + ewf_error_text(err);
  std::string why;
  if (libewf_handle_open(h, argv.data(), static_cast<int>(argv.size()), LIBEWF_OPEN_READ, &err) != 1) {
    why = "libewf cannot open the segments: " + ewf_error_text(err);
    libewf_handle_free(&h, nullptr);
    return why;
  }
  // A chunk whose checksum fails is hashed as stored, not zeroed: the hash is then the one ewfverify and ewfexport
  // give by default, which an examiner can reproduce (this libewf zeroes such chunks unless told not to).
  libewf_handle_set_read_zero_chunk_on_error(h, 0, nullptr);
  size64_t media_size = 0;
  if (libewf_handle_get_media_size(h, &media_size, &err) != 1) {
    why = "libewf cannot tell the media size: " + ewf_error_text(err);
  } else {
    v.media_size = media_size;
    hash_media(
        media_size,
        [&](uint64_t offset, char* buf, size_t n) -> int64_t {
          const ssize_t got = libewf_handle_read_buffer(h, buf, n, &err);  // sequential: the handle keeps the offset
          if (got <= 0)
            why = "libewf read at byte " + std::to_string(offset) +
                  " failed: " + (got < 0 ? ewf_error_text(err) : std::string("unexpected end of media"));
          return got;
        },
        digests, v, progress);
    uint32_t checksum_errors = 0;
    if (libewf_handle_get_number_of_checksum_errors(h, &checksum_errors, nullptr) == 1)
      v.checksum_errors = checksum_errors;
  }
  libewf_handle_close(h, nullptr);
  libewf_handle_free(&h, nullptr);
  return why;
}

// Every other type through libtsk's own reader (raw and split raw have no checksums of their own).
std::string verify_tsk(const std::vector<std::string>& paths, TwoDigests& digests, Verification& v,
                       const VerifyProgress& progress) {
  v.read_with = "libtsk";
  std::vector<const char*> names;
  for (const std::string& p : paths) names.push_back(p.c_str());
  TSK_IMG_INFO* img = tsk_img_open_utf8(static_cast<int>(names.size()), names.data(), TSK_IMG_TYPE_DETECT, 0);
  if (!img) {
    const char* e = tsk_error_get();
    std::string why = "libtsk cannot open the image: " + one_line(e ? e : "unknown error");
    tsk_error_reset();
    return why;
  }
  v.media_size = static_cast<uint64_t>(img->size);
  std::string why;
  hash_media(
      v.media_size,
      [&](uint64_t offset, char* buf, size_t n) -> int64_t {
        const ssize_t got = tsk_img_read(img, static_cast<TSK_OFF_T>(offset), buf, n);
        if (got <= 0) {
          const char* e = tsk_error_get();
          why = "libtsk read at byte " + std::to_string(offset) +
                " failed: " + one_line(e && *e ? e : (got == 0 ? "unexpected end of media" : "unknown error"));
          tsk_error_reset();
        }
        return got;
      },
      digests, v, progress);
  tsk_img_close(img);
  return why;
}

}  // namespace

Verification verify_image(const std::vector<std::string>& paths, const ImageInfo& info,
                          const VerifyProgress& progress) {
  Verification v;
  v.md5_stored = info.stored_md5;
  v.sha1_stored = info.stored_sha1;
  TwoDigests digests;
  std::string why;
  if (info.type.find("ewf") != std::string::npos)  // libtsk's EWF type names ("ewf")
    why = verify_ewf(info.segments.empty() ? paths : info.segments, digests, v, progress);
  else
    why = verify_tsk(paths, digests, v, progress);
  // The media must be the one the scan reads: a segment changed or cut since Image::open would be hashed short.
  if (why.empty() && v.media_size != info.size)
    why = "the image reads as " + std::to_string(v.media_size) + " bytes now, " + std::to_string(info.size) +
          " when it was opened";
  if (progress) progress(v.bytes_hashed, v.media_size, true);
  if (!why.empty()) {
    v.result = "read error: " + why;
    return v;
  }
  digests.finish(&v.md5, &v.sha1);
  if (v.md5_stored.empty() && v.sha1_stored.empty())
    v.result = "no stored hash";
  else if ((!v.md5_stored.empty() && !v.md5_match()) || (!v.sha1_stored.empty() && !v.sha1_match()))
    v.result = "mismatch";
  else
    v.result = "verified";
  return v;
}

}  // namespace roo::tsk
