// web/api_input.cpp: see api_input.hpp.
#include "web/api_input.hpp"

#include <algorithm>
#include <charconv>

#include <nlohmann/json.hpp>

#include "web/router.hpp"

namespace ocppgw::web {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::optional<Fields> string_fields(const HttpRequest& request,
                                    const std::vector<std::string_view>& allowed,
                                    const HttpRespond& respond) {
  const std::string_view type = request[http::field::content_type];
  if (!iequals(trim(type.substr(0, type.find(';'))), "application/json")) {
    respond(json_error(request, http::status::unsupported_media_type,
                       "the body must be JSON (Content-Type: application/json)"));
    return std::nullopt;
  }
  const auto body = nlohmann::json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    respond(json_error(request, http::status::bad_request, "the body is not a JSON object"));
    return std::nullopt;
  }
  Fields out;
  for (const auto& [key, value] : body.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      respond(json_error(request, http::status::bad_request,
                         "unknown field '" + key + "' (expected " + list + ")"));
      return std::nullopt;
    }
    if (!value.is_string()) {
      respond(json_error(request, http::status::bad_request, "'" + key + "' must be a string"));
      return std::nullopt;
    }
    out[key] = value.get<std::string>();
  }
  return out;
}

std::optional<int64_t> int_param(const HttpRequest& request, std::string_view name,
                                 int64_t fallback, int64_t min, int64_t max,
                                 const HttpRespond& respond) {
  const auto text = query_param(request.target(), name);
  if (!text || text->empty()) return fallback;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || p != text->data() + text->size() || v < min || v > max) {
    respond(json_error(request, http::status::bad_request,
                       std::string(name) + " must be an integer from " + std::to_string(min) +
                           " to " + std::to_string(max)));
    return std::nullopt;
  }
  return v;
}

std::optional<Fields> query_fields(const HttpRequest& request,
                                   const std::vector<std::string_view>& allowed,
                                   const HttpRespond& respond) {
  const std::string_view target = request.target();
  const size_t q = target.find('?');
  std::string_view rest = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  rest = rest.substr(0, rest.find('#'));
  Fields out;
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    auto name = percent_decode(pair.substr(0, eq), true);
    auto value = percent_decode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
    if (!name || !value) {
      respond(json_error(request, http::status::bad_request, "malformed query string"));
      return std::nullopt;
    }
    if (std::find(allowed.begin(), allowed.end(), *name) == allowed.end()) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      respond(json_error(request, http::status::bad_request,
                         "unknown query parameter '" + *name + "' (expected " +
                             (list.empty() ? "none" : list) + ")"));
      return std::nullopt;
    }
    if (!out.emplace(std::move(*name), std::move(*value)).second) {
      respond(
          json_error(request, http::status::bad_request,
                     "query parameter '" + std::string(pair.substr(0, eq)) + "' is given twice"));
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace ocppgw::web
