// csms/passwords.hpp: passwords stored only as PBKDF2-HMAC-SHA256 hashes with a per-entry random
// salt: the HTTP Basic passwords of charge points (OCPP security profiles 1 and 2,
// storage::ChargePointCredential) and the passwords of operators (csms/operators.hpp). Used by
// the serving gateway (gateway/auth.hpp verifies) and by the management commands (set a
// password). Pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/charge_point_credentials.hpp"

namespace ocppgw::csms {

inline constexpr std::string_view kPasswordAlgorithm = "pbkdf2-sha256";
// High enough to make an offline guess of a stolen hash slow, low enough (~10 ms on one core)
// that a fleet reconnecting after a gateway restart is verified within seconds. OCPP Basic
// passwords are machine-generated (16-40 characters), so entropy carries most of the weight.
inline constexpr int kDefaultPasswordIterations = 20000;
// OCPP 1.6 (AuthorizationKey) and 2.0.1 (BasicAuthPassword) passwords: 16 to 40 characters.
inline constexpr size_t kMinPasswordLength = 16;
inline constexpr size_t kMaxPasswordLength = 40;

// Why `password` may not be stored (empty: acceptable).
std::string password_error(std::string_view password);

// The stored form of any password, whatever table keeps it.
struct PasswordHash {
  std::string algorithm;  // kPasswordAlgorithm
  int64_t iterations = 0;
  std::string salt_hex;
  std::string derived_key_hex;
};
// A fresh hash of `password`: new random salt. nullopt only when the system RNG fails.
std::optional<PasswordHash> hash_password(std::string_view password, int iterations);
// Recomputes the hash of `password` with the stored salt and iterations and compares in constant
// time. False for an unknown algorithm or malformed stored values.
bool verify_password(const PasswordHash& hash, std::string_view password);

// A fresh credential for `charge_point_id`: new random salt, PBKDF2 of `password`.
// Returns nullopt only when the system RNG fails.
std::optional<storage::ChargePointCredential> make_credential(std::string charge_point_id,
                                                              std::string_view password,
                                                              int iterations, int64_t updated_ms);
// verify_password() above, on a charge point's stored credential.
bool verify_password(const storage::ChargePointCredential& credential, std::string_view password);

}  // namespace ocppgw::csms
