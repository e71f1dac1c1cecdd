// gateway/auth.cpp: HTTP Basic verification (see auth.hpp).
#include "gateway/auth.hpp"

#include <algorithm>
#include <cctype>

#include <openssl/evp.h>

#include <boost/asio/post.hpp>

#include "gateway/thread_priority.hpp"
#include "storage/gateway_db.hpp"

namespace ocppgw::gateway {
namespace {

namespace net = boost::asio;

}  // namespace

// ---- FailedLoginTracker ----

std::chrono::milliseconds FailedLoginTracker::blocked_for(const std::string& key,
                                                          Clock::time_point now) const {
  const auto it = entries_.find(key);
  if (it == entries_.end() || now >= it->second.blocked_until) return {};
  return std::chrono::ceil<std::chrono::milliseconds>(it->second.blocked_until - now);
}

void FailedLoginTracker::failed(const std::string& key, Clock::time_point now) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (entries_.size() >= std::max<size_t>(1, policy_.capacity)) {
      entries_.erase(order_.front());
      order_.pop_front();
    }
    it = entries_.emplace(key, Entry{}).first;
    it->second.order = order_.insert(order_.end(), key);
  } else {
    order_.splice(order_.end(), order_, it->second.order);
  }
  Entry& e = it->second;
  // A full window of quiet after the last failure (or after the block it caused) starts over;
  // measured from the block's end too, or every failure after a long block would look fresh
  // and the backoff could never grow to its cap.
  if (e.failures > 0 && now - std::max(e.last_failure, e.blocked_until) > policy_.window) {
    e.failures = 0;
    e.backoff = {};
  }
  ++e.failures;
  e.last_failure = now;
  if (e.failures >= policy_.max_failures) {
    e.backoff = e.backoff.count() == 0 ? policy_.backoff_initial
                                       : std::min(e.backoff * 2, policy_.backoff_max);
    e.blocked_until = now + e.backoff;
  }
}

void FailedLoginTracker::succeeded(const std::string& key) {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return;
  order_.erase(it->second.order);
  entries_.erase(it);
}

// ---- BasicAuthenticator ----

int BasicAuthenticator::default_threads(int io_threads, unsigned hardware_concurrency) {
  return std::max(hardware_concurrency >= 2 ? 2 : 1, io_threads / 2);
}

std::unique_ptr<BasicAuthenticator> BasicAuthenticator::open(const std::string& db_path,
                                                             Options options,
                                                             storage::Status* status) {
  // What an unknown id's password is checked against: a real hash (random salt) of a password
  // nobody sends, of the cost a stored one has. It is never accepted, whatever the outcome.
  auto unknown = csms::make_credential("", "no charge point has this password",
                                       options.unknown_id_iterations, 0);
  if (!unknown) {
    if (status) *status = storage::Status::error("the system random number generator failed");
    return nullptr;
  }
  auto db = storage::open_gateway_db(db_path, status);
  if (!db) return nullptr;
  return std::unique_ptr<BasicAuthenticator>(
      new BasicAuthenticator(std::move(db), options, std::move(*unknown)));
}

BasicAuthenticator::BasicAuthenticator(std::unique_ptr<storage::Db> db, Options options,
                                       storage::ChargePointCredential unknown_id_credential)
    : options_(options),
      db_(std::move(db)),
      unknown_id_credential_(std::move(unknown_id_credential)),
      id_failures_({options.max_failures_per_id, options.failure_window, options.backoff_initial,
                    options.backoff_max, options.max_tracked_failures}),
      address_failures_({options.max_failures_per_address, options.failure_window,
                         options.backoff_initial, options.backoff_max,
                         options.max_tracked_failures}),
      pool_(static_cast<size_t>(std::max(1, options.threads))) {
  // A storm of wrong passwords keeps these threads busy; the connections already served come
  // first.
  lower_priority(pool_, std::max(1, options.threads));
}

BasicAuthenticator::~BasicAuthenticator() { stop(); }

void BasicAuthenticator::stop() {
  pool_.stop();
  pool_.join();
}

std::string BasicAuthenticator::cache_key(std::string_view id,
                                          const storage::ChargePointCredential& c,
                                          std::string_view password) {
  // Length-prefixed fields so that no two (id, hash, password) triples share an input.
  std::string input;
  for (std::string_view part : {id, std::string_view(c.derived_key_hex), password}) {
    input += std::to_string(part.size());
    input += ':';
    input += part;
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(input.data(), input.size(), digest, &length, EVP_sha256(), nullptr);
  OPENSSL_cleanse(input.data(), input.size());
  return std::string(reinterpret_cast<const char*>(digest), length);
}

bool BasicAuthenticator::cached(const std::string& key) {
  std::lock_guard lock(cache_mu_);
  auto it = cache_.find(key);
  if (it == cache_.end()) return false;
  if (it->second < std::chrono::steady_clock::now()) {
    cache_.erase(it);
    return false;
  }
  return true;
}

void BasicAuthenticator::remember(std::string key) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(cache_mu_);
  if (cache_.size() >= options_.max_cache_entries) {
    std::erase_if(cache_, [now](const auto& e) { return e.second < now; });
    // Still full of live entries: start over rather than grow without bound.
    if (cache_.size() >= options_.max_cache_entries) cache_.clear();
  }
  cache_[std::move(key)] = now + options_.cache_ttl;
}

void BasicAuthenticator::finished(const std::string& id, const std::string& address, bool ok) {
  auto release = [](std::unordered_map<std::string, size_t>& counts, const std::string& key) {
    if (auto it = counts.find(key); it != counts.end() && --it->second == 0) counts.erase(it);
  };
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(limits_mu_);
  --pending_;
  release(pending_by_id_, id);
  release(pending_by_address_, address);
  if (ok) {
    id_failures_.succeeded(id);
  } else {
    id_failures_.failed(id, now);
    address_failures_.failed(address, now);
  }
}

void BasicAuthenticator::verify(std::string charge_point_id, std::string_view authorization,
                                std::string remote_address, net::any_io_executor executor,
                                std::function<void(AuthOutcome)> done) {
  auto finish = [&](AuthResult result, std::string reason, std::chrono::seconds retry_after = {}) {
    net::post(executor,
              [done = std::move(done),
               outcome = AuthOutcome{result, std::move(reason), retry_after}] { done(outcome); });
  };
  auto parsed = parse_basic_authorization(authorization);
  if (!parsed.credentials) return finish(AuthResult::Rejected, parsed.error);
  if (parsed.credentials->user != charge_point_id)
    return finish(AuthResult::Rejected, "Basic user does not match the charge point id");

  storage::Status status;
  std::optional<storage::ChargePointCredential> stored;
  {
    std::lock_guard lock(db_mu_);
    stored = storage::ChargePointCredentialStore(*db_).find(charge_point_id, &status);
  }
  if (!status.ok())
    return finish(AuthResult::Unavailable, "credential lookup failed: " + status.message());
  // From here on an unknown id takes the same path as a known one, with the dummy credential.
  const bool known = stored.has_value();
  storage::ChargePointCredential credential = known ? std::move(*stored) : unknown_id_credential_;

  std::string key = cache_key(charge_point_id, credential, parsed.credentials->password);
  if (cached(key)) {  // never true for an unknown id: only verified passwords are remembered
    ++cache_hits_;
    return finish(AuthResult::Accepted, "cached");
  }
  {
    std::lock_guard lock(limits_mu_);
    const auto now = std::chrono::steady_clock::now();
    const auto blocked = std::max(id_failures_.blocked_for(charge_point_id, now),
                                  address_failures_.blocked_for(remote_address, now));
    if (blocked.count() > 0) {
      ++throttled_;
      const auto wait = std::chrono::ceil<std::chrono::seconds>(blocked);
      return finish(AuthResult::Rejected,
                    "too many failed logins, retry after " + std::to_string(wait.count()) + " s",
                    wait);
    }
    auto count = [](const std::unordered_map<std::string, size_t>& counts,
                    const std::string& name) {
      const auto it = counts.find(name);
      return it == counts.end() ? size_t{0} : it->second;
    };
    std::optional<std::string_view> full;  // which queue limit the attempt hits, if any
    if (pending_ >= options_.max_pending)
      full = "";
    else if (count(pending_by_id_, charge_point_id) >= options_.max_pending_per_id)
      full = " for this charge point";
    else if (count(pending_by_address_, remote_address) >= options_.max_pending_per_address)
      full = " from this address";
    if (full)
      return finish(AuthResult::Unavailable,
                    "too many password verifications pending" + std::string(*full),
                    std::chrono::seconds(1));
    ++pending_;
    ++pending_by_id_[charge_point_id];
    ++pending_by_address_[remote_address];
  }
  net::post(pool_, [this, known, credential = std::move(credential), key = std::move(key),
                    id = std::move(charge_point_id), address = std::move(remote_address),
                    password = std::move(parsed.credentials->password),
                    executor = std::move(executor), done = std::move(done)]() mutable {
    const bool ok = csms::verify_password(credential, password) && known;
    OPENSSL_cleanse(password.data(), password.size());
    ++hash_computations_;
    finished(id, address, ok);
    if (ok) remember(std::move(key));
    net::post(executor, [done = std::move(done), ok, known] {
      done(ok      ? AuthOutcome{AuthResult::Accepted, "password verified"}
           : known ? AuthOutcome{AuthResult::Rejected, "wrong password"}
                   : AuthOutcome{AuthResult::Rejected, "no password is set for this charge point"});
    });
  });
}

}  // namespace ocppgw::gateway
