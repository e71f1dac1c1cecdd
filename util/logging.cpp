// util/logging.cpp
#include "util/logging.hpp"

#include <atomic>

#include <spdlog/sinks/stdout_sinks.h>
#include <nlohmann/json.hpp>

namespace ocppgw::log {
namespace {

std::atomic<bool> json_format{false};

bool needs_quotes(std::string_view v) {
  if (v.empty()) return true;
  for (char ch : v) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f || ch == ' ' || ch == '"' || ch == '=' || ch == '\\') return true;
  }
  return false;
}

// Quoted when needed; every control character becomes an escape, never a raw byte, so that CR,
// LF or ESC sent by a charge point cannot start a forged line or rewrite the terminal.
void append_value(std::string& out, std::string_view v) {
  if (!needs_quotes(v)) {
    out += v;
    return;
  }
  out += '"';
  for (char ch : v) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += ch;
    }
  }
  out += '"';
}

// The first kMaxLogValueBytes of v, marked with its full size when cut.
std::string bounded(std::string_view v) {
  if (v.size() <= kMaxLogValueBytes) return std::string(v);
  return std::string(v.substr(0, kMaxLogValueBytes)) + "...(" + std::to_string(v.size()) +
         " bytes)";
}

}  // namespace

void init(std::string_view level, std::string_view format) {
  spdlog::drop("ocppgw");  // init may run twice: with defaults first, then with the config
  auto logger = spdlog::stderr_logger_mt("ocppgw");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(std::string(level)));
  json_format = format == "json";
  if (json_format)
    spdlog::set_pattern(R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l","thread":%t,%v})",
                        spdlog::pattern_time_type::utc);
  else
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
  spdlog::flush_on(spdlog::level::warn);
}

std::string format_line(bool json, std::string_view event, std::string_view charge_point_id,
                        std::initializer_list<Field> fields) {
  std::string out;
  if (json) {
    // nlohmann escapes every control character as \uXXXX.
    nlohmann::json j = nlohmann::json::object();
    j["event"] = bounded(event);
    if (!charge_point_id.empty()) j["cp"] = bounded(charge_point_id);
    for (const auto& [k, v] : fields) j[std::string(k)] = bounded(v);
    out = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return out.substr(1, out.size() - 2);  // the pattern supplies the braces
  }
  out = "event=";
  append_value(out, bounded(event));
  if (!charge_point_id.empty()) {
    out += " cp=";
    append_value(out, bounded(charge_point_id));
  }
  for (const auto& [k, v] : fields) {
    out += ' ';
    out += k;
    out += '=';
    append_value(out, bounded(v));
  }
  return out;
}

void line(spdlog::level::level_enum level, std::string_view event, std::string_view charge_point_id,
          std::initializer_list<Field> fields) {
  if (!spdlog::should_log(level)) return;
  spdlog::log(level, "{}", format_line(json_format, event, charge_point_id, fields));
}

}  // namespace ocppgw::log
