// storage/gateway_db.cpp: open + migrate the gateway database (see gateway_db.hpp).
#include "storage/gateway_db.hpp"

namespace ocppgw::storage {

std::unique_ptr<Db> open_gateway_db(const std::string& path, Status* status,
                                    const OpenOptions& options) {
  Status s;
  std::unique_ptr<Db> db = Db::open(path, options, &s);
  if (db && !options.read_only) s = migrate(*db, gateway_migrations());
  if (!s.ok()) db.reset();
  if (status) *status = s;
  return db;
}

}  // namespace ocppgw::storage
