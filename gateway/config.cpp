// gateway/config.cpp: the options (one table, config_options.hpp) read from the TOML file, the
// environment and CLI11, in that order, and the settings checked together.
#include "gateway/config.hpp"

#include "gateway/config_options.hpp"
#include "util/secret.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <toml++/toml.h>
#include <CLI/CLI.hpp>

namespace ocppgw::gateway {
namespace {

using detail::option_specs;
using detail::OptionSpec;
using detail::parse_mode;
using detail::parse_subprotocol;
using rpc::OcppVersion;
using rpc::ValidationMode;

std::string env_name(const std::string& key) {
  std::string out = "OCPPGW_";
  for (char ch : key) out += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return out;
}

std::string flag_name(const std::string& key) {
  std::string out = "--";
  for (char ch : key) out += ch == '_' ? '-' : ch;
  return out;
}

// A TOML scalar or array as the text the setters read.
std::optional<std::string> toml_text(const toml::node& node) {
  if (auto s = node.value<std::string>(); s && node.is_string()) return *s;
  if (node.is_integer()) return std::to_string(*node.value<int64_t>());
  if (node.is_floating_point()) {
    std::ostringstream o;
    o << *node.value<double>();
    return o.str();
  }
  if (node.is_boolean()) return std::string(*node.value<bool>() ? "true" : "false");
  if (const auto* arr = node.as_array()) {
    std::string out;
    for (const auto& el : *arr) {
      auto t = toml_text(el);
      if (!t) return std::nullopt;
      out += (out.empty() ? "" : ",") + *t;
    }
    return out;
  }
  return std::nullopt;
}

std::string apply_file(Config& c, const std::string& path) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    std::ostringstream o;
    o << path << ": " << e.description() << " (line " << e.source().begin.line << ")";
    return o.str();
  }
  for (const auto& [k, node] : table) {
    const std::string key(k.str());
    if (key == "kafka") {
      const auto* t = node.as_table();
      if (!t) return path + ": kafka must be a table";
      for (const auto& [k2, v2] : *t) {
        auto text = toml_text(v2);
        if (!text) return path + ": kafka." + std::string(k2.str()) + " has an unsupported type";
        c.kafka_settings[std::string(k2.str())] = *text;
      }
      continue;
    }
    if (key == "charge_points") {
      const auto* cps = node.as_table();
      if (!cps) return path + ": charge_points must be a table of tables";
      for (const auto& [id, entry] : *cps) {
        const auto* t = entry.as_table();
        if (!t) return path + ": charge_points." + std::string(id.str()) + " must be a table";
        auto& o = c.charge_points[std::string(id.str())];
        for (const auto& [field, value] : *t) {
          const auto text = value.value<std::string>();
          if (field == "validation" && text && parse_mode(*text)) {
            o.validation = parse_mode(*text);
          } else if (field == "subprotocol" && text && parse_subprotocol(*text)) {
            o.subprotocol = parse_subprotocol(*text);
          } else {
            return path + ": charge_points." + std::string(id.str()) + "." +
                   std::string(field.str()) +
                   ": expected validation = strict|lenient or subprotocol = ocpp1.6|ocpp2.0.1";
          }
        }
      }
      continue;
    }
    const OptionSpec* spec = nullptr;
    for (const auto& sp : option_specs())
      if (sp.key == key) spec = &sp;
    if (!spec) return path + ": unknown option '" + key + "'";
    auto text = toml_text(node);
    if (!text) return path + ": " + key + " has an unsupported value type";
    if (auto e = spec->set(c, *text); !e.empty()) return path + ": " + key + ": " + e;
  }
  return {};
}

}  // namespace

ValidationMode Config::validation_for(std::string_view charge_point_id) const {
  if (auto it = charge_points.find(charge_point_id);
      it != charge_points.end() && it->second.validation)
    return *it->second.validation;
  return validation_mode;
}

std::vector<OcppVersion> Config::subprotocols_for(std::string_view charge_point_id) const {
  if (auto it = charge_points.find(charge_point_id);
      it != charge_points.end() && it->second.subprotocol)
    return {*it->second.subprotocol};
  return subprotocols;
}

struct ConfigLoader::State {
  std::string config_path;
  std::vector<std::string> cli_values;
  std::vector<CLI::Option*> cli_options;
};

ConfigLoader::ConfigLoader(CLI::App& app) : state_(std::make_unique<State>()) {
  const Config defaults;
  app.add_option("--config", state_->config_path,
                 "TOML config file; keys are the option names below with '_' "
                 "(e.g. max_frame_bytes = 1048576), plus [charge_points.\"<id>\"] tables with "
                 "validation = \"lenient\" and subprotocol = \"ocpp1.6\".")
      ->envname("OCPPGW_CONFIG");
  state_->cli_values.resize(option_specs().size());
  for (size_t i = 0; i < option_specs().size(); ++i) {
    const auto& sp = option_specs()[i];
    std::string help = sp.help;
    const std::string def = sp.show(defaults);
    help += " [default: " + (def.empty() ? std::string("none") : def) + "; env " +
            env_name(sp.key) + "; file key " + sp.key + "]";
    state_->cli_options.push_back(app.add_option(flag_name(sp.key), state_->cli_values[i], help));
  }
}

ConfigLoader::~ConfigLoader() = default;

std::optional<Config> ConfigLoader::resolve(std::string* error,
                                            const char* (*environ_lookup)(const char*)) const {
  auto lookup = environ_lookup ? environ_lookup
                               : +[](const char* name) -> const char* { return std::getenv(name); };
  Config c;
  auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return std::optional<Config>();
  };
  std::string path = state_->config_path;
  if (path.empty())
    if (const char* p = lookup("OCPPGW_CONFIG")) path = p;
  if (!path.empty()) {
    if (!std::filesystem::exists(path)) return fail("config file " + path + " does not exist");
    if (auto e = apply_file(c, path); !e.empty()) return fail(e);
  }
  for (const auto& sp : option_specs()) {
    const std::string name = env_name(sp.key);
    if (const char* v = lookup(name.c_str()))
      if (auto e = sp.set(c, v); !e.empty()) return fail(name + ": " + e);
  }
  for (size_t i = 0; i < option_specs().size(); ++i) {
    if (state_->cli_options[i]->count() == 0) continue;
    const auto& sp = option_specs()[i];
    if (auto e = sp.set(c, state_->cli_values[i]); !e.empty())
      return fail(flag_name(sp.key) + ": " + e);
  }
  if (c.path_prefix.empty() || c.path_prefix.front() != '/') c.path_prefix = "/" + c.path_prefix;
  while (c.path_prefix.size() > 1 && c.path_prefix.back() == '/') c.path_prefix.pop_back();
  if (c.node_index >= c.node_stride) return fail("node_index must be smaller than node_stride");
  if (!c.plain_enabled() && !c.tls_enabled())
    return fail("nothing to listen on: listen and tls_listen are both off");
  if (c.tls_enabled() && (c.tls_cert.empty() || c.tls_key.empty()))
    return fail("tls_listen needs tls_cert and tls_key (PEM files)");
  if (c.tls_extra_cert.empty() != c.tls_extra_key.empty())
    return fail("tls_extra_cert and tls_extra_key go together");
  if (!c.tls_enabled() && (!c.tls_client_ca.empty() || c.tls_basic_auth))
    return fail(std::string(c.tls_basic_auth ? "tls_basic_auth" : "tls_client_ca") +
                " is set but tls_listen is off");
  if (!c.plain_enabled() && c.basic_auth)
    return fail("basic_auth applies to the plain listener, which is off (use tls_basic_auth)");
  if (c.csr_ca_cert.empty() != c.csr_ca_key.empty())
    return fail("csr_ca_cert and csr_ca_key go together (PEM files)");
  if (!c.csr_ca_cert.empty() && !c.csr_sign_command.empty())
    return fail("csr_ca_cert and csr_sign_command exclude each other: one of them signs");
  if (!c.ocsp_responder_hosts.empty() && c.ocsp_trust.empty())
    return fail("ocsp_responder_hosts needs ocsp_trust: a response is believed only when signed");
  if (c.web_tls_cert.empty() != c.web_tls_key.empty())
    return fail("web_tls_cert and web_tls_key go together (PEM files)");
  if (!c.web_listener_enabled() && !c.web_tls_cert.empty())
    return fail("web_tls_cert is set but web_listen is off");
  return c;
}

std::optional<std::string> id_token_secret(const Config& config, bool* generated,
                                           util::Status* status) {
  if (generated) *generated = false;
  if (!config.id_token_secret.empty()) return config.id_token_secret;
  return util::load_or_create_secret(config.data_dir + "/id_token_secret", generated, status);
}

}  // namespace ocppgw::gateway
