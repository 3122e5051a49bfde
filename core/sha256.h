// SHA-256 through OpenSSL's libcrypto (EVP), incremental.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>

namespace roo {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t len);
  std::string hex();  // finishes the digest; call once

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

using Sha256Digest = std::array<unsigned char, 32>;
Sha256Digest sha256_digest(std::string_view data);
std::string sha256_hex(std::string_view data);  // the same digest as 64 lower-case hex digits

}  // namespace roo
