// rpc/transaction_link.cpp: see transaction_link.hpp.
#include "rpc/transaction_link.hpp"

#include <limits>
#include <vector>

#include "rpc/action.hpp"

namespace ocppgw::rpc {
namespace {

struct Choice {
  LinkRule rule = LinkRule::None;
  int64_t id = 0;
};

// The single open transaction matching `pred`, if exactly one does.
template <typename Pred>
std::optional<int64_t> single(std::span<const OpenTx16> open, Pred pred) {
  std::optional<int64_t> found;
  for (const OpenTx16& tx : open) {
    if (!pred(tx)) continue;
    if (found) return std::nullopt;
    found = tx.id;
  }
  return found;
}

std::optional<int64_t> latest_start_before(std::span<const OpenTx16> open, int64_t ts_ms) {
  int64_t latest = std::numeric_limits<int64_t>::min();
  for (const OpenTx16& tx : open)
    if (tx.start_ts_ms <= ts_ms && tx.start_ts_ms > latest) latest = tx.start_ts_ms;
  // A tie is ambiguous: guessing could merge two transactions.
  return single(open, [&](const OpenTx16& tx) { return tx.start_ts_ms == latest; });
}

Choice choose(std::span<const OpenTx16> open, const TransactionLink16& req,
              const std::optional<std::string>& id_tag_hash) {
  if (req.connector_id) {
    // A connector starts a transaction only after the previous one ended, so an older one still
    // open there lost its stop: the latest start is the current transaction.
    std::vector<OpenTx16> here;
    for (const OpenTx16& tx : open)
      if (tx.connector_id == *req.connector_id) here.push_back(tx);
    const auto id = latest_start_before(here, std::numeric_limits<int64_t>::max());
    return id ? Choice{LinkRule::Connector, *id} : Choice{};
  }
  if (id_tag_hash) {
    if (auto id = single(open, [&](const OpenTx16& tx) { return tx.id_tag_hash == *id_tag_hash; }))
      return {LinkRule::IdTag, *id};
  }
  if (open.size() == 1) return {LinkRule::OnlyOpen, open.front().id};
  if (auto id = latest_start_before(open, req.timestamp_ms)) return {LinkRule::LatestStart, *id};
  return {};
}

}  // namespace

std::string synthetic_run_id(std::optional<int64_t> connector_id, int64_t ingest_ts_ms,
                             std::string_view message_id) {
  std::string id = "-1:";
  id += connector_id ? std::to_string(*connector_id) : "?";
  id += ':';
  id += std::to_string(ingest_ts_ms);
  id += ':';
  id += message_id;
  return id;
}

std::string LinkMemory::join(const std::string& charge_point_id,
                             std::optional<int64_t> connector_id, bool stop, int64_t ingest_ts_ms,
                             std::string_view message_id) {
  if (connector_id) {
    auto [it, inserted] = runs_.try_emplace({charge_point_id, *connector_id});
    if (inserted) it->second = synthetic_run_id(connector_id, ingest_ts_ms, message_id);
    std::string id = it->second;
    if (stop) runs_.erase(it);
    return id;
  }
  auto first = runs_.lower_bound({charge_point_id, std::numeric_limits<int64_t>::min()});
  auto last = first;
  size_t count = 0;
  while (last != runs_.end() && last->first.first == charge_point_id) ++last, ++count;
  if (count != 1) return synthetic_run_id(std::nullopt, ingest_ts_ms, message_id);
  std::string id = first->second;
  if (stop) runs_.erase(first);
  return id;
}

void LinkMemory::end(const std::string& charge_point_id, int64_t connector_id) {
  runs_.erase({charge_point_id, connector_id});
}

std::optional<TransactionLink16Result> LinkMemory::repeated_stop(
    const std::string& charge_point_id, std::string_view message_id) const {
  auto it = last_stop_.find(charge_point_id);
  if (it == last_stop_.end() || it->second.first != message_id) return std::nullopt;
  return it->second.second;
}

void LinkMemory::remember_stop(const std::string& charge_point_id, std::string_view message_id,
                               const TransactionLink16Result& result) {
  last_stop_[charge_point_id] = {std::string(message_id), result};
}

TransactionLink16Result resolve_link(std::span<const OpenTx16> open, LinkMemory& runs,
                                     const CallContext& ctx, const TransactionLink16& req,
                                     const std::optional<std::string>& id_tag_hash) {
  if (req.stop) {
    if (auto earlier = runs.repeated_stop(ctx.charge_point_id, ctx.message_id)) return *earlier;
  }
  TransactionLink16Result r;
  const Choice c = choose(open, req, id_tag_hash);
  if (c.rule != LinkRule::None) {
    r.rule = c.rule;
    r.linked_id = c.id;
    r.transaction_id = std::to_string(c.id);
  } else if (req.minus1) {
    r.transaction_id = runs.join(ctx.charge_point_id, req.connector_id, req.stop, ctx.ingest_ts_ms,
                                 ctx.message_id);
  }
  if (req.stop) runs.remember_stop(ctx.charge_point_id, ctx.message_id, r);
  return r;
}

}  // namespace ocppgw::rpc
