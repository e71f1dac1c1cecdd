// util/logging.hpp: structured log lines over spdlog. Every line is an event name plus
// key=value fields (or one JSON object per line with --log-format json), and every line about a
// connection carries the charge point id, so `grep cp=CP-17` tells a charger's whole story.
// Threading: spdlog's default logger is thread-safe; these helpers may be called from any thread.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include <spdlog/spdlog.h>

namespace ocppgw::log {

using Field = std::pair<std::string_view, std::string_view>;

// Sets up the default logger: level name (trace..off) and format ("text" or "json").
void init(std::string_view level, std::string_view format);

// One line: `event=<event> cp=<id> k=v ...`; cp is omitted when empty. Values with spaces or
// quotes are quoted.
void line(spdlog::level::level_enum level, std::string_view event, std::string_view charge_point_id,
          std::initializer_list<Field> fields = {});

// Values longer than this are cut (with the original size noted): a field may hold text a
// charge point sent (an action name, a close reason), and one hostile frame must not turn into a
// megabyte log line.
inline constexpr size_t kMaxLogValueBytes = 512;

// The text of one line as line() writes it after the time and level. Control characters (CR,
// LF, ESC, ...) in any value are escaped in both formats, so a peer cannot forge or hide lines.
std::string format_line(bool json, std::string_view event, std::string_view charge_point_id,
                        std::initializer_list<Field> fields);

inline void info(std::string_view event, std::string_view cp, std::initializer_list<Field> f = {}) {
  line(spdlog::level::info, event, cp, f);
}
inline void warn(std::string_view event, std::string_view cp, std::initializer_list<Field> f = {}) {
  line(spdlog::level::warn, event, cp, f);
}
inline void error(std::string_view event, std::string_view cp,
                  std::initializer_list<Field> f = {}) {
  line(spdlog::level::err, event, cp, f);
}
inline void debug(std::string_view event, std::string_view cp,
                  std::initializer_list<Field> f = {}) {
  line(spdlog::level::debug, event, cp, f);
}

}  // namespace ocppgw::log
