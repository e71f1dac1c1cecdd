// web/change_feed.hpp: what changed since the live stream last said so (docs/api.md, "Live
// stream"). The gateway notifies it where its views change: the session registry (a charge
// point connected or went away) and the analytics pipeline after each committed batch (status,
// heartbeat, boot, sessions, quarantine and duplicates; what the read API serves). Once a second
// the live stream takes the accumulated changes as one `changes` event, so a burst of a
// thousand StatusNotifications costs the page one refetch, not a thousand.
//
// The feed carries ids and flags only, never the data: the page refetches what it shows through
// the REST API, so the stream stays small at 20,000 charge points. Past kMaxIds changed charge
// points the ids are dropped and the event says "*" (refetch everything): a refetch of the list
// is cheaper than a list of ids the size of the fleet, and the feed's memory stays bounded.
//
// Data flows one way: the notifiers call the feed, the feed never calls them.
// Threading: every method may be called from any thread. A notification is one mutex and, for
// an id not yet pending, one insertion into a set (nothing at all for an id already pending or
// past kMaxIds); Batch takes the mutex once for many notifications (one committed batch).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace ocppgw::web {

class ChangeFeed {
 public:
  static constexpr size_t kMaxIds = 500;

  // Several notifications under one lock. Holds the feed's mutex while it lives: keep it short
  // and call nothing else in the meantime.
  class Batch {
   public:
    explicit Batch(ChangeFeed& feed) : feed_(feed), lock_(feed.mu_) {}
    // A charge point's connection, boot, status or heartbeat changed.
    void charge_point(std::string_view id) { feed_.add_id(id); }
    // A session of the charge point started, was updated or ended.
    void session(std::string_view charge_point_id) {
      feed_.add_id(charge_point_id);
      feed_.sessions_ = true;
    }
    // Quarantine, duplicate or conservation numbers may have changed.
    void quality() { feed_.quality_ = true; }
    // Anything may have changed (e.g. analytics read a stretch of the event log back): "*", and
    // both flags.
    void everything() {
      feed_.all_ = true;
      feed_.ids_.clear();
      feed_.sessions_ = feed_.quality_ = true;
    }

   private:
    ChangeFeed& feed_;
    std::lock_guard<std::mutex> lock_;
  };

  void charge_point(std::string_view id) { Batch(*this).charge_point(id); }
  void session(std::string_view charge_point_id) { Batch(*this).session(charge_point_id); }
  void quality() { Batch(*this).quality(); }
  void everything() { Batch(*this).everything(); }

  // The data of the next `changes` event, or nullopt when nothing changed since the last one:
  // {"charge_points": [ids, sorted] or "*", "sessions": bool, "quality": bool, "seq": n}, where
  // seq is 1 for the first event taken and one more for each one after it. Resets what it took.
  std::optional<nlohmann::json> take();
  // Forgets what changed without an event (no stream listens: nothing to tell, and the next
  // listener starts with a full fetch anyway). seq is unchanged.
  void discard();

 private:
  // Transparent hashing: looking up a string_view allocates nothing.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // REQUIRES: mu_ held.
  void add_id(std::string_view id);

  std::mutex mu_;
  std::unordered_set<std::string, Hash, std::equal_to<>> ids_;
  bool all_ = false;  // more than kMaxIds changed: "*"
  bool sessions_ = false;
  bool quality_ = false;
  uint64_t seq_ = 0;
};

}  // namespace ocppgw::web
