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

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), md, &n, sha256_md(), nullptr) != 1)
    throw std::runtime_error("OpenSSL SHA-256 failed");
  return to_hex(md, n);
}

}  // namespace roo
