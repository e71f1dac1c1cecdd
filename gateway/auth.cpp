// gateway/auth.cpp: HTTP Basic verification (see auth.hpp).
#include "gateway/auth.hpp"

#include <algorithm>
#include <cctype>

#include <openssl/evp.h>

#include <boost/asio/post.hpp>
#include "storage/gateway_db.hpp"

namespace ocppgw::gateway {
namespace {

namespace net = boost::asio;

// RFC 4648 base64 with padding, nothing else accepted (no whitespace, no URL alphabet).
std::optional<std::string> decode_base64(std::string_view in) {
  auto value = [](char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (in.empty() || in.size() % 4 != 0) return std::nullopt;
  size_t padding = 0;
  while (padding < 2 && in[in.size() - 1 - padding] == '=') ++padding;
  std::string out;
  uint32_t bits = 0;
  int nbits = 0;
  for (size_t i = 0; i < in.size() - padding; ++i) {
    const int v = value(in[i]);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out += static_cast<char>((bits >> nbits) & 0xFF);
    }
  }
  // Leftover bits must be zero (a canonical encoding).
  if ((bits & ((1u << nbits) - 1)) != 0) return std::nullopt;
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

BasicParse parse_basic_authorization(std::string_view header) {
  BasicParse out;
  while (!header.empty() && (header.front() == ' ' || header.front() == '\t'))
    header.remove_prefix(1);
  while (!header.empty() && (header.back() == ' ' || header.back() == '\t'))
    header.remove_suffix(1);
  if (header.empty()) {
    out.error = "no Authorization header (HTTP Basic required)";
    return out;
  }
  const size_t space = header.find(' ');
  if (space == std::string_view::npos || !iequals(header.substr(0, space), "Basic")) {
    out.error = "Authorization is not the Basic scheme";
    return out;
  }
  std::string_view token = header.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  auto decoded = decode_base64(token);
  if (!decoded) {
    out.error = "Basic credentials are not valid base64";
    return out;
  }
  const size_t colon = decoded->find(':');
  if (colon == std::string::npos) {
    out.error = "Basic credentials have no ':' between user and password";
    return out;
  }
  out.credentials = BasicCredentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
  return out;
}

// ---- BasicAuthenticator ----

std::unique_ptr<BasicAuthenticator> BasicAuthenticator::open(const std::string& db_path,
                                                             Options options,
                                                             storage::Status* status) {
  auto db = storage::open_gateway_db(db_path, status);
  if (!db) return nullptr;
  return std::unique_ptr<BasicAuthenticator>(new BasicAuthenticator(std::move(db), options));
}

BasicAuthenticator::BasicAuthenticator(std::unique_ptr<storage::Db> db, Options options)
    : options_(options),
      db_(std::move(db)),
      pool_(static_cast<size_t>(std::max(1, options.threads))) {}

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

void BasicAuthenticator::verify(std::string charge_point_id, std::string_view authorization,
                                net::any_io_executor executor,
                                std::function<void(AuthOutcome)> done) {
  auto finish = [&](AuthResult result, std::string reason) {
    net::post(executor, [done = std::move(done), outcome = AuthOutcome{result, std::move(reason)}] {
      done(outcome);
    });
  };
  auto parsed = parse_basic_authorization(authorization);
  if (!parsed.credentials) return finish(AuthResult::Rejected, parsed.error);
  if (parsed.credentials->user != charge_point_id)
    return finish(AuthResult::Rejected, "Basic user does not match the charge point id");

  storage::Status status;
  std::optional<storage::ChargePointCredential> credential;
  {
    std::lock_guard lock(db_mu_);
    credential = storage::ChargePointCredentialStore(*db_).find(charge_point_id, &status);
  }
  if (!status.ok())
    return finish(AuthResult::Unavailable, "credential lookup failed: " + status.message());
  if (!credential) return finish(AuthResult::Rejected, "no password is set for this charge point");

  std::string key = cache_key(charge_point_id, *credential, parsed.credentials->password);
  if (cached(key)) {
    ++cache_hits_;
    return finish(AuthResult::Accepted, "cached");
  }
  if (pending_.fetch_add(1) >= options_.max_pending) {
    --pending_;
    return finish(AuthResult::Unavailable, "too many password verifications pending");
  }
  net::post(pool_, [this, credential = std::move(*credential), key = std::move(key),
                    password = std::move(parsed.credentials->password),
                    executor = std::move(executor), done = std::move(done)]() mutable {
    const bool ok = csms::verify_password(credential, password);
    OPENSSL_cleanse(password.data(), password.size());
    ++hash_computations_;
    --pending_;
    if (ok) remember(std::move(key));
    net::post(executor, [done = std::move(done), ok] {
      done(ok ? AuthOutcome{AuthResult::Accepted, "password verified"}
              : AuthOutcome{AuthResult::Rejected, "wrong password"});
    });
  });
}

}  // namespace ocppgw::gateway
