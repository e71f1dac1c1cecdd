// util/logging.cpp
#include "util/logging.hpp"

#include <atomic>

#include <spdlog/sinks/stdout_sinks.h>
#include <nlohmann/json.hpp>

namespace ocppgw::log {
namespace {

std::atomic<bool> json_format{false};

void append_value(std::string& out, std::string_view v) {
  const bool plain = !v.empty() && v.find_first_of(" \"=\t\n\\") == std::string_view::npos;
  if (plain) {
    out += v;
    return;
  }
  out += '"';
  for (char ch : v) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  out += '"';
}

}  // namespace

void init(std::string_view level, std::string_view format) {
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

void line(spdlog::level::level_enum level, std::string_view event, std::string_view charge_point_id,
          std::initializer_list<Field> fields) {
  if (!spdlog::should_log(level)) return;
  std::string out;
  if (json_format) {
    nlohmann::json j = nlohmann::json::object();
    j["event"] = std::string(event);
    if (!charge_point_id.empty()) j["cp"] = std::string(charge_point_id);
    for (const auto& [k, v] : fields) j[std::string(k)] = std::string(v);
    out = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out = out.substr(1, out.size() - 2);  // the pattern supplies the braces
  } else {
    out = "event=";
    out += event;
    if (!charge_point_id.empty()) {
      out += " cp=";
      append_value(out, charge_point_id);
    }
    for (const auto& [k, v] : fields) {
      out += ' ';
      out += k;
      out += '=';
      append_value(out, v);
    }
  }
  spdlog::log(level, "{}", out);
}

}  // namespace ocppgw::log
