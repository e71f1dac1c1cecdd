// gateway/operator_directory.cpp: see operator_directory.hpp.
#include "gateway/operator_directory.hpp"

namespace ocppgw::gateway {
namespace {

using Directory = web::OperatorDirectory;

// The two role enums have the same names; web/ cannot see csms/, so they meet here.
web::Role to_web(csms::OperatorRole role) {
  return web::parse_role(csms::role_name(role)).value_or(web::Role::Viewer);
}
csms::OperatorRole to_csms(web::Role role) {
  return csms::parse_role(web::role_name(role)).value_or(csms::OperatorRole::Viewer);
}

Directory::Change to_web(const csms::Change& c) {
  switch (c.error) {
    case csms::ChangeError::None:
      return {Directory::ChangeResult::Ok, {}};
    case csms::ChangeError::Invalid:
      return {Directory::ChangeResult::Invalid, c.message};
    case csms::ChangeError::NotFound:
      return {Directory::ChangeResult::NotFound, c.message};
    case csms::ChangeError::Conflict:
      return {Directory::ChangeResult::Conflict, c.message};
    case csms::ChangeError::Failed:
      break;
  }
  return {Directory::ChangeResult::Failed, c.message};
}

class OperatorsDirectory : public Directory {
 public:
  explicit OperatorsDirectory(csms::Operators& operators) : operators_(operators) {}

  Login login(std::string_view name, std::string_view password, std::string_view address) override {
    auto outcome = operators_.login(name, password, address);
    Login out;
    out.retry_after_ms = outcome.retry_after_ms;
    out.error = std::move(outcome.error);
    switch (outcome.result) {
      case csms::LoginResult::Ok: {
        out.result = LoginResult::Ok;
        auto& s = *outcome.session;
        out.session = Session{std::move(s.token), std::move(s.csrf_token), s.expires_ms,
                              web::Principal{std::move(s.name), to_web(s.role)}};
        break;
      }
      case csms::LoginResult::Rejected:
        out.result = LoginResult::Rejected;
        break;
      case csms::LoginResult::Throttled:
        out.result = LoginResult::Throttled;
        break;
      case csms::LoginResult::Unavailable:
        out.result = LoginResult::Unavailable;
        break;
    }
    return out;
  }

  Check authenticate(std::string_view token) override {
    auto c = operators_.authenticate(token);
    Check out;
    switch (c.state) {
      case csms::SessionState::Valid:
        out.state = TokenState::Valid;
        break;
      case csms::SessionState::Unknown:
        out.state = TokenState::Unknown;
        break;
      case csms::SessionState::Expired:
        out.state = TokenState::Expired;
        break;
      case csms::SessionState::Unavailable:
        out.state = TokenState::Unavailable;
        break;
    }
    out.principal = {std::move(c.name), to_web(c.role)};
    out.csrf_token = std::move(c.csrf_token);
    out.expires_ms = c.expires_ms;
    out.error = std::move(c.error);
    return out;
  }

  util::Status logout(std::string_view token) override { return operators_.logout(token); }

  util::Status audit(const AuditEntry& e) override {
    return operators_.audit(
        e.actor, e.action, e.target,
        e.details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), e.outcome);
  }

  AuditPage audit_list(std::optional<int64_t> cursor, int64_t limit,
                       util::Status* status) override {
    auto page = operators_.audit_list(cursor, limit, status);
    AuditPage out;
    out.next_cursor = page.next_cursor;
    for (auto& r : page.items) {
      // Rows are written as JSON by this code and the CLI; anything else shows as text.
      auto details = nlohmann::json::parse(r.details, nullptr, false);
      if (details.is_discarded()) details = r.details;
      out.items.push_back({r.id, r.ts_ms, std::move(r.actor), std::move(r.action),
                           std::move(r.target), std::move(details), std::move(r.outcome)});
    }
    return out;
  }

  std::vector<Account> accounts(util::Status* status) override {
    std::vector<Account> out;
    for (auto& a : operators_.list(status))
      out.push_back({std::move(a.name), to_web(a.role), a.created_ms, a.updated_ms});
    return out;
  }

  Change add_account(const std::string& name, web::Role role, std::string_view password) override {
    return to_web(operators_.add(name, to_csms(role), password));
  }

  Change update_account(const std::string& name, std::optional<web::Role> role,
                        std::optional<std::string> password) override {
    // The password's policy first, so that a refused password leaves the role unchanged too.
    if (password)
      if (auto e = csms::operator_password_error(*password); !e.empty())
        return {ChangeResult::Invalid, e};
    if (role)
      if (auto c = operators_.set_role(name, to_csms(*role)); !c.ok()) return to_web(c);
    if (password) return to_web(operators_.passwd(name, *password));
    return {};
  }

  Change remove_account(const std::string& name) override {
    return to_web(operators_.remove(name));
  }

 private:
  csms::Operators& operators_;
};

}  // namespace

std::unique_ptr<web::OperatorDirectory> make_operator_directory(csms::Operators& operators) {
  return std::make_unique<OperatorsDirectory>(operators);
}

std::unique_ptr<OperatorApi> start_operator_api(const Config& config, web::Router& router,
                                                util::Status* status) {
  auto api = std::make_unique<OperatorApi>();
  csms::Operators::Options options;
  options.session_ttl_ms = int64_t{config.api_session_ttl_s} * 1000;
  util::Status s;
  api->operators = csms::Operators::open(config.db_path(), options, &s);
  if (!api->operators) {
    *status = util::Status::error("opening " + config.db_path() + " for operators: " + s.message());
    return nullptr;
  }
  if (s = api->operators->ensure_first_admin(); !s.ok()) {
    *status = s;
    return nullptr;
  }
  api->directory = make_operator_directory(*api->operators);
  api->auth = std::make_unique<web::ApiAuth>(*api->directory, web::ApiAuth::Options());
  api->auth->add_routes(router);
  return api;
}

}  // namespace ocppgw::gateway
