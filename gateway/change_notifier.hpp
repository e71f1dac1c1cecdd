// gateway/change_notifier.hpp: tells the live stream's ChangeFeed (web/change_feed.hpp) what an
// analytics batch changed, so the page refetches exactly the views that now answer differently.
// Called on the analytics worker after each batch is committed to the store (LivePipeline's
// on_batch), because that is when the read API (charge point status and heartbeat, sessions,
// data quality) shows the change; connections are told by the session registry, at once.
//
// The rule, by canonical event type (docs/api.md, "Live stream"):
//   BootNotification, Heartbeat, StatusNotification, Connection, CsmsCall   the charge point
//   StartTransaction, MeterValues, StopTransaction (1.6, and 2.0.1's TransactionEvent, which
//     maps to them)                                                         sessions + the charge
//     point
//   anything quarantined, a duplicate removed, a conflict, a failed conservation check   quality
//   a batch read back from the event log (its events are not at hand)     everything ("*")
//   a sweep that timed out sessions or charge points (ids not at hand)    everything ("*")
// Other types (Authorize, DataTransfer, ...) change nothing the page shows.
// Cost on the worker: one lock for the whole batch, a set lookup per event.
#pragma once

#include <span>

#include "analytics/batch_report.hpp"
#include "analytics/event.hpp"
#include "web/change_feed.hpp"

namespace ocppgw::gateway {

void notify_batch(web::ChangeFeed& feed, std::span<const analytics::Event* const> events,
                  const analytics::BatchReport& report);

}  // namespace ocppgw::gateway
