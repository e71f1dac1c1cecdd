// web/change_feed.cpp: see change_feed.hpp.
#include "web/change_feed.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace ocppgw::web {

void ChangeFeed::add_id(std::string_view id) {
  if (all_ || id.empty() || ids_.find(id) != ids_.end()) return;
  if (ids_.size() >= kMaxIds) {
    all_ = true;
    ids_.clear();
    return;
  }
  ids_.emplace(id);
}

std::optional<nlohmann::json> ChangeFeed::take() {
  std::vector<std::string> ids;
  bool all = false, sessions = false, quality = false;
  uint64_t seq = 0;
  {
    std::lock_guard lock(mu_);
    if (!all_ && ids_.empty() && !sessions_ && !quality_) return std::nullopt;
    ids.reserve(ids_.size());
    while (!ids_.empty()) ids.push_back(std::move(ids_.extract(ids_.begin()).value()));
    all = std::exchange(all_, false);
    sessions = std::exchange(sessions_, false);
    quality = std::exchange(quality_, false);
    seq = ++seq_;
  }
  std::sort(ids.begin(), ids.end());
  return nlohmann::json{{"charge_points", all ? nlohmann::json("*") : nlohmann::json(ids)},
                        {"sessions", sessions},
                        {"quality", quality},
                        {"seq", seq}};
}

void ChangeFeed::discard() {
  std::lock_guard lock(mu_);
  ids_.clear();
  all_ = sessions_ = quality_ = false;
}

}  // namespace ocppgw::web
