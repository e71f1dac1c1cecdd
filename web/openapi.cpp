// web/openapi.cpp: see openapi.hpp.
#include "web/openapi.hpp"

namespace ocppgw::web {

void add_openapi_route(Router& router, ApiAuth& auth) {
  router.add(http::verb::get, "/api/v1/openapi.json",
             [&auth](HttpRequest&& request, HttpRespond respond) {
               if (!auth.require(request, Role::Viewer, respond)) return;
               respond(make_response(request, http::status::ok, std::string(openapi_document()),
                                     "application/json"));
             });
}

}  // namespace ocppgw::web
