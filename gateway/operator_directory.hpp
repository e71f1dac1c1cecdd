// gateway/operator_directory.hpp: the REST API's operators, wired: csms::Operators (accounts,
// sessions and the audit log in the gateway database) behind web::OperatorDirectory, and the
// web::ApiAuth that checks every API request against it. App starts this once, before the
// components, so a component's routes can call App::api_auth().require().
#pragma once

#include <memory>

#include "csms/operators.hpp"
#include "gateway/config.hpp"
#include "util/status.hpp"
#include "web/api_auth.hpp"
#include "web/router.hpp"

namespace ocppgw::gateway {

struct OperatorApi {
  std::unique_ptr<csms::Operators> operators;
  std::unique_ptr<web::OperatorDirectory> directory;
  std::unique_ptr<web::ApiAuth> auth;
};

// Opens the operators on config.db_path(), creates the first admin from the environment when
// there is none (csms::Operators::ensure_first_admin), and adds ApiAuth's routes to `router`.
// nullptr with *status set when the database cannot be opened or OCPPGW_ADMIN_PASSWORD is
// refused (start-up stops: better than an API nobody can log in to).
std::unique_ptr<OperatorApi> start_operator_api(const Config& config, web::Router& router,
                                                util::Status* status);

// csms::Operators as web::ApiAuth sees it (exposed for tests).
std::unique_ptr<web::OperatorDirectory> make_operator_directory(csms::Operators& operators);

}  // namespace ocppgw::gateway
