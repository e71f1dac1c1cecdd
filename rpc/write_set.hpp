// rpc/write_set.hpp: the storage rows one frame's CSMS decisions imply (a started
// transaction, a booted charge point, a stored report). Handlers run before the frame is
// durable, so a decision cannot write on its own: the CsmsState implementation appends rows
// here, and the event sink commits them in the same transaction as the frame and its events.
// Data only, so the OCPP-J layer carries it without knowing the storage engine.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ocppgw::rpc {

// The sink prepares each statement (cached by text), binds the values (1-based, in order) and
// runs it inside the frame's commit transaction. Statements must not fail on well-formed state
// (use upserts / INSERT OR IGNORE): a failed statement fails the whole batch and makes the sink
// unhealthy.
struct WriteSet {
  // The same alternatives as storage::Value (checked where both meet, in csms/), so the sink
  // binds them directly.
  using Value = std::variant<std::monostate, int64_t, double, std::string>;
  struct Write {
    std::string sql;
    std::vector<Value> values;
  };
  std::vector<Write> writes;

  void add(std::string sql, std::vector<Value> values) {
    writes.push_back({std::move(sql), std::move(values)});
  }
  bool empty() const { return writes.empty(); }
};

}  // namespace ocppgw::rpc
