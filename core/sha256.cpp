#include "core/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

#include "core/text_util.h"

namespace roo {

namespace {
// Fetched once: EVP_sha256() makes OpenSSL 3 look the algorithm up again on every init, which dominated the cost
// of the short digests taken per row (row ids, edit sides).
const EVP_MD* sha256_md() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (!md) throw std::runtime_error("OpenSSL SHA-256 is not available");
  return md;
}
}  // namespace

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {
  impl_->ctx = EVP_MD_CTX_new();
  if (!impl_->ctx || EVP_DigestInit_ex(impl_->ctx, sha256_md(), nullptr) != 1)
    throw std::runtime_error("OpenSSL SHA-256 initialisation failed");
}

Sha256::~Sha256() { EVP_MD_CTX_free(impl_->ctx); }

void Sha256::update(const void* data, size_t len) { EVP_DigestUpdate(impl_->ctx, data, len); }

std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(impl_->ctx, md, &n);
  return to_hex(md, n);
}

Sha256Digest sha256_digest(std::string_view data) {
  // One context per thread, re-initialised per digest: EVP_Digest makes and frees a context on every call, which
  // costs as much as hashing a short record (carving hashes every record it finds; row ids hash every row).
  struct Context {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~Context() { EVP_MD_CTX_free(ctx); }
  };
  thread_local Context context;
  Sha256Digest d{};
  unsigned int n = 0;
  if (!context.ctx || EVP_DigestInit_ex(context.ctx, sha256_md(), nullptr) != 1 ||
      EVP_DigestUpdate(context.ctx, data.data(), data.size()) != 1 || EVP_DigestFinal_ex(context.ctx, d.data(), &n) != 1)
    throw std::runtime_error("OpenSSL SHA-256 failed");
  return d;
}

std::string sha256_hex(std::string_view data) {
  const Sha256Digest d = sha256_digest(data);
  return to_hex(d.data(), d.size());
}

}  // namespace roo
