// gateway/change_notifier.cpp: see change_notifier.hpp.
#include "gateway/change_notifier.hpp"

namespace ocppgw::gateway {

void notify_batch(web::ChangeFeed& feed, std::span<const analytics::Event* const> events,
                  const analytics::BatchReport& report) {
  using analytics::EventType;
  const bool quality = report.quarantined > 0 || report.technical_duplicates > 0 ||
                       report.business_duplicates > 0 || report.conflicts > 0 ||
                       !report.conservation_ok;
  const bool unknown_ids = (report.source == analytics::Source::EventLog && report.raw > 0) ||
                           (report.source == analytics::Source::Maintenance &&
                            (report.sessions_swept > 0 || report.charge_points_recomputed > 0));
  if (events.empty() && !quality && !unknown_ids) return;
  web::ChangeFeed::Batch batch(feed);
  if (quality) batch.quality();
  if (unknown_ids) return batch.everything();
  for (const analytics::Event* event : events) {
    switch (event->event_type) {
      case EventType::BootNotification:
      case EventType::Heartbeat:
      case EventType::StatusNotification:
      case EventType::Connection:
      case EventType::CsmsCall:
        batch.charge_point(event->charge_point_id);
        break;
      case EventType::StartTransaction:
      case EventType::MeterValues:
      case EventType::StopTransaction:
        batch.session(event->charge_point_id);
        break;
      default:
        break;
    }
  }
}

}  // namespace ocppgw::gateway
