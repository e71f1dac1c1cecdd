// gateway/config_options.hpp: the table of the gateway's options (gateway/config_options.cpp),
// each with its key, help text and how to set it from text and show it as text. Internal to
// the configuration: gateway/config.cpp feeds the one table from the TOML file, the environment
// and CLI11, so an option is declared in one place only.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/config.hpp"
#include "rpc/action.hpp"

namespace ocppgw::gateway::detail {

// Setters return an error text, empty on success.
using Setter = std::function<std::string(Config&, const std::string&)>;
using Shower = std::function<std::string(const Config&)>;

struct OptionSpec {
  std::string key;  // file key; flag is --key with '_' -> '-'; env is OCPPGW_KEY
  std::string help;
  Setter set;
  Shower show;
};

// Every option, built on first use, in the order of --help (make_specs in config_options.cpp).
const std::vector<OptionSpec>& option_specs();

// The values of validation_mode and subprotocols, also read from [charge_points."<id>"] tables.
std::optional<rpc::ValidationMode> parse_mode(std::string_view t);
std::optional<rpc::OcppVersion> parse_subprotocol(std::string_view t);

}  // namespace ocppgw::gateway::detail
