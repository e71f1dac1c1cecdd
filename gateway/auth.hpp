// gateway/auth.hpp: HTTP Basic authentication of charge points (OCPP security profiles 1 and 2).
//
// Passwords are stored only as PBKDF2-HMAC-SHA256 hashes with a per-entry random salt
// (storage::ChargePointCredential); verification recomputes the hash and compares in constant
// time. The username of the Basic header must equal the charge point id of the URL.
//
// Cost control (a reconnect storm of thousands of charge points must not stall the I/O
// threads): PBKDF2 runs on the authenticator's own small thread pool, never on an I/O thread,
// with a bounded queue (beyond it the upgrade is refused with 503 and the charge point retries).
// A successful verification is remembered for `cache_ttl` as SHA-256(id, stored hash,
// password): a reconnect within that time costs one SQLite point lookup and one SHA-256, and
// changing or deleting the password takes effect at once because the stored hash is part of
// the key. Failures are not cached (a wrong password always costs a full PBKDF2 on the pool,
// whose size caps the CPU an attacker can take).
//
// Threading: verify() may be called from any thread; `done` runs on the given executor.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/thread_pool.hpp>

#include "csms/passwords.hpp"
#include "storage/charge_point_credentials.hpp"
#include "storage/db.hpp"

namespace ocppgw::gateway {

// The user and password of an `Authorization: Basic <base64(user:password)>` header value.
struct BasicCredentials {
  std::string user;
  std::string password;
};
struct BasicParse {
  std::optional<BasicCredentials> credentials;
  std::string error;  // why there are none; never contains the password
};
BasicParse parse_basic_authorization(std::string_view header_value);

enum class AuthResult { Accepted, Rejected, Unavailable };
struct AuthOutcome {
  AuthResult result = AuthResult::Rejected;
  std::string reason;  // for the log line and the 401 body; never contains the password
};

class BasicAuthenticator {
 public:
  struct Options {
    int threads = 1;  // PBKDF2 workers
    size_t max_pending = 4096;
    std::chrono::seconds cache_ttl{600};
    size_t max_cache_entries = 200000;
  };
  // Opens its own connection to the gateway database at `db_path`.
  static std::unique_ptr<BasicAuthenticator> open(const std::string& db_path, Options options,
                                                  storage::Status* status);
  ~BasicAuthenticator();
  BasicAuthenticator(const BasicAuthenticator&) = delete;
  BasicAuthenticator& operator=(const BasicAuthenticator&) = delete;

  // Checks `authorization` (the raw header value, maybe empty) for `charge_point_id` and calls
  // `done` on `executor` with the outcome.
  void verify(std::string charge_point_id, std::string_view authorization,
              boost::asio::any_io_executor executor, std::function<void(AuthOutcome)> done);
  // Waits for the workers; queued verifications are dropped (their callbacks never run).
  void stop();

  // Test and metrics hooks.
  uint64_t hash_computations() const { return hash_computations_.load(); }
  uint64_t cache_hits() const { return cache_hits_.load(); }

 private:
  BasicAuthenticator(std::unique_ptr<storage::Db> db, Options options);
  static std::string cache_key(std::string_view id, const storage::ChargePointCredential& c,
                               std::string_view password);
  bool cached(const std::string& key);
  void remember(std::string key);

  Options options_;
  std::mutex db_mu_;
  std::unique_ptr<storage::Db> db_;
  std::mutex cache_mu_;
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> cache_;
  std::atomic<size_t> pending_{0};
  std::atomic<uint64_t> hash_computations_{0};
  std::atomic<uint64_t> cache_hits_{0};
  boost::asio::thread_pool pool_;
};

}  // namespace ocppgw::gateway
