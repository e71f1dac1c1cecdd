// tests/unit/web/change_feed_test.cpp: the live stream's ChangeFeed. Nothing changed: no event;
// notifications coalesce (each id once, sorted, flags or'ed) until taken; more than 500 ids
// become "*"; seq counts the events taken (discard() takes none); notifications from several
// threads all arrive.
#include "web/change_feed.hpp"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace ocppgw::web {
namespace {

using nlohmann::json;

TEST(ChangeFeed, NothingChangedMeansNoEvent) {
  ChangeFeed feed;
  EXPECT_FALSE(feed.take());
  feed.charge_point("");  // no id: nothing to refetch
  EXPECT_FALSE(feed.take());
}

TEST(ChangeFeed, CoalescesUntilTakenAndCountsEvents) {
  ChangeFeed feed;
  feed.charge_point("CP-2");
  feed.charge_point("CP-1");
  feed.charge_point("CP-2");
  feed.session("CP-3");
  const auto first = feed.take();
  ASSERT_TRUE(first);
  EXPECT_EQ(*first, (json{{"charge_points", {"CP-1", "CP-2", "CP-3"}},
                          {"sessions", true},
                          {"quality", false},
                          {"seq", 1}}));
  EXPECT_FALSE(feed.take()) << "taken: nothing is left";

  feed.quality();
  const auto second = feed.take();
  ASSERT_TRUE(second);
  EXPECT_EQ(
      *second,
      (json{{"charge_points", json::array()}, {"sessions", false}, {"quality", true}, {"seq", 2}}));
}

TEST(ChangeFeed, MoreThan500IdsBecomeStar) {
  ChangeFeed feed;
  for (int i = 0; i < 500; ++i) feed.charge_point("CP-" + std::to_string(i));
  auto event = feed.take();
  ASSERT_TRUE(event);
  EXPECT_EQ((*event)["charge_points"].size(), 500u) << "500 is still a list";

  for (int i = 0; i < 501; ++i) feed.charge_point("CP-" + std::to_string(i));
  feed.session("CP-9999");  // after the overflow: still "*", the flag still counts
  event = feed.take();
  ASSERT_TRUE(event);
  EXPECT_EQ((*event)["charge_points"], "*");
  EXPECT_EQ((*event)["sessions"], true);
  EXPECT_EQ((*event)["seq"], 2);

  // The overflow ends with the event: the next one lists ids again.
  feed.charge_point("CP-1");
  event = feed.take();
  ASSERT_TRUE(event);
  EXPECT_EQ((*event)["charge_points"], json::array({"CP-1"}));
}

TEST(ChangeFeed, EverythingIsStarWithBothFlags) {
  ChangeFeed feed;
  {
    ChangeFeed::Batch batch(feed);
    batch.charge_point("CP-1");
    batch.everything();
    batch.charge_point("CP-2");
  }
  EXPECT_EQ(*feed.take(),
            (json{{"charge_points", "*"}, {"sessions", true}, {"quality", true}, {"seq", 1}}));
}

TEST(ChangeFeed, DiscardForgetsWithoutAnEvent) {
  ChangeFeed feed;
  feed.charge_point("CP-1");
  feed.quality();
  feed.discard();
  EXPECT_FALSE(feed.take());
  feed.charge_point("CP-2");
  const auto event = feed.take();
  ASSERT_TRUE(event);
  EXPECT_EQ((*event)["seq"], 1) << "a discard is not an event";
  EXPECT_EQ((*event)["charge_points"], json::array({"CP-2"}));
  EXPECT_EQ((*event)["quality"], false);
}

TEST(ChangeFeed, NotificationsFromManyThreadsAllArrive) {
  ChangeFeed feed;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&feed, t] {
      for (int i = 0; i < 1000; ++i) feed.charge_point("CP-" + std::to_string(t * 100 + i % 100));
    });
  for (auto& t : threads) t.join();
  const auto event = feed.take();
  ASSERT_TRUE(event);
  EXPECT_EQ((*event)["charge_points"].size(), 400u);
}

}  // namespace
}  // namespace ocppgw::web
