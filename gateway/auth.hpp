// gateway/auth.hpp: HTTP Basic authentication of charge points (OCPP security profiles 1 and 2).
//
// Passwords are stored only as PBKDF2-HMAC-SHA256 hashes with a per-entry random salt
// (storage::ChargePointCredential); verification recomputes the hash and compares in constant
// time. The username of the Basic header must equal the charge point id of the URL.
//
// Cost control (a reconnect storm of thousands of charge points must not stall the I/O
// threads, and an attacker must neither learn which ids exist nor crowd out real logins):
// - PBKDF2 runs on the authenticator's own small thread pool, never on an I/O thread. The
//   gateway gives it half the I/O threads, at least two on a multi-core machine
//   (default_threads()), so one long verification never serialises every login.
// - A successful verification is remembered for `cache_ttl` as SHA-256(id, stored hash,
//   password): a reconnect within that time costs one SQLite point lookup and one SHA-256, and
//   changing or deleting the password takes effect at once because the stored hash is part of
//   the key. Failures are not cached.
// - An unknown charge point id costs what a wrong password costs: its password is checked
//   against a dummy hash of `unknown_id_iterations` on the same pool and then refused, so the
//   refusal time does not tell a prober which ids exist (the 401 body is the same as well; only
//   the log line says which case it was).
// - Failed verifications are counted per charge point id and per remote address (an IPv6
//   client by its /64, see HttpSession). After `max_failures_per_id` (per address:
//   `max_failures_per_address`, higher, because a site's chargers may share one NAT address)
//   failures within `failure_window`, further attempts are refused at once without PBKDF2 for
//   a backoff that starts at `backoff_initial` and doubles with every further failure up to
//   `backoff_max`; a success resets the id's count (not the address's: one valid password
//   must not launder an address's guesses). A password that is in the success cache is
//   accepted even while its id is blocked, so an attacker guessing a charge point's password
//   cannot lock out the charge point that logged in recently. Unknown ids are counted like
//   known ones, so a block reveals nothing either. Both tables are bounded
//   (`max_tracked_failures`, least recently failed evicted first).
// - The queue is bounded globally (`max_pending`) and per id and per address
//   (`max_pending_per_id`, `max_pending_per_address`); beyond any of them the upgrade is
//   refused with 503 at once and the charge point retries. So one attacker's hundreds of wrong
//   passwords for one id occupy at most two places in the queue, and a legitimate login queues
//   behind a handful of verifications, not behind the attack.
//
// Threading: verify() may be called from any thread; `done` runs on the given executor.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/thread_pool.hpp>

#include "csms/passwords.hpp"
#include "gateway/upgrade_request.hpp"
#include "storage/charge_point_credentials.hpp"
#include "storage/db.hpp"

namespace ocppgw::gateway {

enum class AuthResult { Accepted, Rejected, Unavailable };
struct AuthOutcome {
  AuthResult result = AuthResult::Rejected;
  std::string reason;  // for the log line; never contains the password
  // Set when the attempt was refused without a verification (backoff or a full queue): when
  // to try again (HTTP Retry-After). The reason is then safe to show to the client.
  std::chrono::seconds retry_after{0};
};

// Failed logins per key (a charge point id or a remote address) with exponential backoff; at
// most `capacity` keys, the least recently failed evicted first. Not thread-safe.
class FailedLoginTracker {
 public:
  using Clock = std::chrono::steady_clock;
  struct Policy {
    int max_failures = 5;  // failures within `window` before attempts are blocked
    std::chrono::seconds window{60};
    std::chrono::milliseconds backoff_initial{1000};
    std::chrono::milliseconds backoff_max{60000};
    size_t capacity = 50000;
  };
  explicit FailedLoginTracker(Policy policy) : policy_(policy) {}

  // How long `key` stays blocked from `now`; zero when it may be verified.
  std::chrono::milliseconds blocked_for(const std::string& key, Clock::time_point now) const;
  void failed(const std::string& key, Clock::time_point now);
  void succeeded(const std::string& key);
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    int failures = 0;
    Clock::time_point last_failure;
    Clock::time_point blocked_until;
    std::chrono::milliseconds backoff{0};
    std::list<std::string>::iterator order;
  };
  Policy policy_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> order_;  // front: the least recently failed key
};

class BasicAuthenticator {
 public:
  struct Options {
    int threads = 1;            // PBKDF2 workers; the gateway uses default_threads()
    size_t max_pending = 4096;  // verifications queued or running, all clients together
    size_t max_pending_per_id = 2;
    size_t max_pending_per_address = 32;  // a site's chargers may reconnect together
    int max_failures_per_id = 5;          // within failure_window, before the backoff
    int max_failures_per_address = 20;
    std::chrono::seconds failure_window{60};
    std::chrono::milliseconds backoff_initial{1000};  // doubles per failure while blocked
    std::chrono::milliseconds backoff_max{60000};
    size_t max_tracked_failures = 50000;  // per table (ids, addresses)
    // Cost of the dummy hash an unknown id is checked against: the cost the `charge-points`
    // command stores passwords with, so both refusals take the same time.
    int unknown_id_iterations = csms::kDefaultPasswordIterations;
    std::chrono::seconds cache_ttl{600};
    size_t max_cache_entries = 200000;
  };
  // PBKDF2 workers for a gateway with `io_threads` I/O threads: half of them, so a fleet
  // re-authenticating after a restart cannot take every core from the connections already
  // serving, but at least two on a multi-core machine, so a login does not wait for every
  // verification queued before it one at a time.
  static int default_threads(int io_threads, unsigned hardware_concurrency);
  // Opens its own connection to the gateway database at `db_path`.
  static std::unique_ptr<BasicAuthenticator> open(const std::string& db_path, Options options,
                                                  storage::Status* status);
  ~BasicAuthenticator();
  BasicAuthenticator(const BasicAuthenticator&) = delete;
  BasicAuthenticator& operator=(const BasicAuthenticator&) = delete;

  // Checks `authorization` (the raw header value, maybe empty) for `charge_point_id`, sent from
  // `remote_address` (the key of the per-address limits), and calls `done` on `executor` with
  // the outcome.
  void verify(std::string charge_point_id, std::string_view authorization,
              std::string remote_address, boost::asio::any_io_executor executor,
              std::function<void(AuthOutcome)> done);
  // Waits for the workers; queued verifications are dropped (their callbacks never run).
  void stop();

  // Test and metrics hooks.
  uint64_t hash_computations() const { return hash_computations_.load(); }
  uint64_t cache_hits() const { return cache_hits_.load(); }
  uint64_t throttled() const { return throttled_.load(); }  // refused by a backoff

 private:
  BasicAuthenticator(std::unique_ptr<storage::Db> db, Options options,
                     storage::ChargePointCredential unknown_id_credential);
  static std::string cache_key(std::string_view id, const storage::ChargePointCredential& c,
                               std::string_view password);
  bool cached(const std::string& key);
  void remember(std::string key);
  // Gives back the queue places of one verification and records its result.
  void finished(const std::string& id, const std::string& address, bool ok);

  Options options_;
  std::mutex db_mu_;
  std::unique_ptr<storage::Db> db_;
  std::mutex cache_mu_;
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> cache_;
  const storage::ChargePointCredential unknown_id_credential_;
  std::mutex limits_mu_;  // the failure tables and the pending counts
  FailedLoginTracker id_failures_;
  FailedLoginTracker address_failures_;
  size_t pending_ = 0;
  std::unordered_map<std::string, size_t> pending_by_id_;  // only keys with a count > 0
  std::unordered_map<std::string, size_t> pending_by_address_;
  std::atomic<uint64_t> hash_computations_{0};
  std::atomic<uint64_t> cache_hits_{0};
  std::atomic<uint64_t> throttled_{0};
  boost::asio::thread_pool pool_;
};

}  // namespace ocppgw::gateway
