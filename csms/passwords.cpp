// csms/passwords.cpp: see passwords.hpp.
#include "csms/passwords.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "util/hex.hpp"

namespace ocppgw::csms {
namespace {

constexpr size_t kSaltBytes = 16;
constexpr size_t kKeyBytes = 32;

std::optional<std::string> pbkdf2(std::string_view password, std::string_view salt,
                                  int64_t iterations) {
  if (iterations <= 0 || iterations > (1 << 24)) return std::nullopt;
  unsigned char key[kKeyBytes];
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), static_cast<int>(iterations), EVP_sha256(),
                        sizeof key, key) != 1)
    return std::nullopt;
  return std::string(reinterpret_cast<const char*>(key), sizeof key);
}

}  // namespace

std::string password_error(std::string_view password) {
  if (password.size() < kMinPasswordLength || password.size() > kMaxPasswordLength)
    return "the password must have " + std::to_string(kMinPasswordLength) + " to " +
           std::to_string(kMaxPasswordLength) + " characters (OCPP), this one has " +
           std::to_string(password.size());
  for (char ch : password) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F) return "the password must not contain control characters";
  }
  return {};
}

std::optional<PasswordHash> hash_password(std::string_view password, int iterations) {
  unsigned char salt[kSaltBytes];
  if (RAND_bytes(salt, sizeof salt) != 1) return std::nullopt;
  const std::string salt_bytes(reinterpret_cast<const char*>(salt), sizeof salt);
  auto key = pbkdf2(password, salt_bytes, iterations);
  if (!key) return std::nullopt;
  return PasswordHash{std::string(kPasswordAlgorithm), iterations, util::to_hex(salt, sizeof salt),
                      util::to_hex(*key)};
}

bool verify_password(const PasswordHash& h, std::string_view password) {
  if (h.algorithm != kPasswordAlgorithm) return false;
  const auto salt = util::from_hex(h.salt_hex);
  const auto expected = util::from_hex(h.derived_key_hex);
  if (!salt || !expected || expected->size() != kKeyBytes) return false;
  const auto actual = pbkdf2(password, *salt, h.iterations);
  return actual && CRYPTO_memcmp(actual->data(), expected->data(), kKeyBytes) == 0;
}

std::optional<storage::ChargePointCredential> make_credential(std::string charge_point_id,
                                                              std::string_view password,
                                                              int iterations, int64_t updated_ms) {
  auto h = hash_password(password, iterations);
  if (!h) return std::nullopt;
  return storage::ChargePointCredential{
      std::move(charge_point_id), std::move(h->algorithm),       h->iterations,
      std::move(h->salt_hex),     std::move(h->derived_key_hex), updated_ms};
}

bool verify_password(const storage::ChargePointCredential& c, std::string_view password) {
  return verify_password(PasswordHash{c.algorithm, c.iterations, c.salt_hex, c.derived_key_hex},
                         password);
}

}  // namespace ocppgw::csms
