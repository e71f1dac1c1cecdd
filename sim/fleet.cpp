// sim/fleet.cpp: building a fleet: gateway targets, source addresses, TLS material, and the
// charge points spread over shards. Runs on the controlling thread before any shard thread
// starts; the run itself is fleet_run.cpp.
#include "sim/fleet.hpp"

#include <algorithm>
#include <cmath>

#include "sim/fleet_shard.hpp"
#include "sim/rng.hpp"

namespace ocppgw::sim {
namespace {

namespace net = boost::asio;

// Without --ca the peer is not verified, so a run against a gateway with self-signed
// development certificates needs no extra set-up.
std::string make_tls_context(const SimConfig& config, std::unique_ptr<net::ssl::context>& out) {
  out = std::make_unique<net::ssl::context>(net::ssl::context::tls_client);
  auto& ctx = *out;
  ctx.set_options(net::ssl::context::no_sslv2 | net::ssl::context::no_sslv3 |
                  net::ssl::context::no_tlsv1 | net::ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  if (!config.ca_file.empty()) {
    ctx.load_verify_file(config.ca_file, ec);
    if (ec) return "cannot load --ca " + config.ca_file + ": " + ec.message();
    ctx.set_verify_mode(net::ssl::verify_peer, ec);
  } else {
    ctx.set_verify_mode(net::ssl::verify_none, ec);
  }
  if (!config.cert_file.empty()) {
    ctx.use_certificate_chain_file(config.cert_file, ec);
    if (ec) return "cannot load --cert: " + ec.message();
    ctx.use_private_key_file(config.key_file, net::ssl::context::pem, ec);
    if (ec) return "cannot load --key: " + ec.message();
  }
  return {};
}

}  // namespace

Fleet::Fleet(const SimConfig& config) : config_(config), shared_(std::make_unique<Shared>()) {}
Fleet::~Fleet() = default;

std::string Fleet::prepare() {
  std::string error;
  bool any_tls = false;
  for (const auto& url : config_.urls) {
    auto t = resolve_target(url, &error);
    if (!t) return error;
    any_tls |= t->tls;
    shared_->targets.push_back(*t);
  }
  for (const auto& s : config_.source_addresses) {
    boost::system::error_code ec;
    auto a = net::ip::make_address(s, ec);
    if (ec) return "bad --source address: " + s;
    shared_->sources.push_back(a);
  }
  if (any_tls) {
    error = make_tls_context(config_, shared_->ssl);
    if (!error.empty()) return error;
  }
  const int n_shards = std::min(config_.threads, config_.count);
  for (int i = 0; i < n_shards; ++i) shards_.push_back(std::make_unique<Shard>(config_, *shared_));
  // Seeds are drawn in index order, not per shard, so --threads does not change any charge
  // point's random choices.
  Rng seeder{config_.seed};
  for (int i = 0; i < config_.count; ++i) {
    const int index = config_.first_index + i;
    auto& shard = *shards_[static_cast<size_t>(i % n_shards)];
    // Golden-ratio spacing spreads the 2.0.1 charge points evenly over the indices, and so over
    // shards and targets, instead of bunching them at the start.
    const bool v201 = std::fmod(static_cast<double>(i) * 0.6180339887, 1.0) < config_.fraction_201;
    shard.cps.push_back(
        std::make_unique<ChargePoint>(shard.ctx, index, format_cp_id(config_.id_pattern, index),
                                      v201 ? Version::v201 : Version::v16, seeder.next()));
  }
  for (auto& s : shards_) s->rate = config_.connect_rate / static_cast<double>(shards_.size());
  return {};
}

}  // namespace ocppgw::sim
