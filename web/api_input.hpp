// web/api_input.hpp: reading what a REST API request sends, the same way on every route: JSON
// bodies of string fields (unknown fields refused), integer query parameters in a range, and a
// query string whose parameter names are all known. Each reader answers 400/415 itself through
// `respond` and returns nullopt, so a route just returns.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "web/http.hpp"

namespace ocppgw::web {

std::string_view trim(std::string_view s);  // spaces and tabs at both ends
bool iequals(std::string_view a, std::string_view b);

using Fields = std::map<std::string, std::string, std::less<>>;

// The body as a JSON object of string fields, each one of `allowed`. Unknown fields are refused
// rather than ignored, so a misspelt "passwrd" is a 400 and not a silent no-op.
std::optional<Fields> string_fields(const HttpRequest& request,
                                    const std::vector<std::string_view>& allowed,
                                    const HttpRespond& respond);

// A query parameter as an integer in [min, max]; `fallback` when absent.
std::optional<int64_t> int_param(const HttpRequest& request, std::string_view name,
                                 int64_t fallback, int64_t min, int64_t max,
                                 const HttpRespond& respond);

// Every query parameter (decoded), each one of `allowed` and given at most once.
std::optional<Fields> query_fields(const HttpRequest& request,
                                   const std::vector<std::string_view>& allowed,
                                   const HttpRespond& respond);

}  // namespace ocppgw::web
