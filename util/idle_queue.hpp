// util/idle_queue.hpp: a FIFO that holds no memory while it is empty.
// Why: std::deque allocates a 512-byte block and its map even when empty and keeps them after
// its last element is popped, and a connection spends most of its life with its queues empty
// (in-flight frames, outbound replies, waiting CSMS calls: about 1.5 KB per idle charge point;
// BENCHMARKS.md, "Memory per connection"). boost::container::deque allocates on the first push,
// and pop_front() here gives the memory back when the last element leaves. The price is a
// block allocation when a queue goes from empty to one element, a few dozen ns per frame.
#pragma once

#include <utility>

#include <boost/container/deque.hpp>

namespace ocppgw::util {

template <class T>
class IdleQueue {
 public:
  using Items = boost::container::deque<T>;

  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  T& front() { return items_.front(); }
  T& operator[](size_t i) { return items_[i]; }
  typename Items::iterator begin() { return items_.begin(); }
  typename Items::iterator end() { return items_.end(); }

  template <class... Args>
  T& emplace_back(Args&&... args) {
    return items_.emplace_back(std::forward<Args>(args)...);
  }
  void pop_front() {
    items_.pop_front();
    if (items_.empty()) items_.shrink_to_fit();
  }
  // Drops the elements from `first` on (all of them: begin()).
  void erase_from(typename Items::iterator first) {
    items_.erase(first, items_.end());
    if (items_.empty()) items_.shrink_to_fit();
  }
  void clear() { erase_from(items_.begin()); }
  // Moves every element out, leaving this queue empty and without memory.
  Items take() {
    Items all = std::move(items_);
    items_.shrink_to_fit();
    return all;
  }

 private:
  Items items_;
};

}  // namespace ocppgw::util
