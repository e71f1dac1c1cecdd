// analytics/event_id_key.hpp: how the technical dedup registry (the event_ids table) stores an
// event id. The gateway's ids are 32 lower-case hex digits (make_event_id in event.hpp); the
// registry keeps those as their 16 bytes, half the key, and every other id as the text it is.
// Why: the registry holds every event id ever seen, in random order, so once it outgrows the page
// cache each new id costs a page read and a page written back; a key half as long means a tree
// half as large (analytics/README.md, "What a batch costs"). The mapping is one-to-one: only
// lower-case digits are packed (so "AB..." and "ab..." stay apart), and SQLite never finds a
// BLOB equal to a TEXT.
#pragma once

#include "storage/db.hpp"

namespace ocppgw::analytics {

// Registers the SQL function event_id_key(id) on `db`: the registry's key for the text id, as
// described above (NULL stays NULL). Every statement that reads or writes event_ids goes through
// it, and so does the migration that converted the old text keys; Pipeline::open registers it
// before the migrations run.
storage::Status register_event_id_key(storage::Db& db);

}  // namespace ocppgw::analytics
