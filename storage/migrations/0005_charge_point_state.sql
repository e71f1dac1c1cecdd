-- 0005_charge_point_state: what the central system knows of each charge point beyond its
-- transactions, kept from the results of the calls it sent (docs/api.md, "Charge point state").

-- The BootNotification answer an operator chose for this charge point (Accepted | Pending |
-- Rejected); NULL: the configured policy (unknown_charge_points) decides.
ALTER TABLE charge_points ADD COLUMN boot_status TEXT
  CHECK (boot_status IS NULL OR boot_status IN ('Accepted', 'Pending', 'Rejected'));

-- One row per known item of one kind; json is the item as the API shows it. Kinds:
--   configuration     1.6 configuration key (item_key: the key)
--   variable          2.0.1 device model attribute (item_key: component/evse/variable/type)
--   reservation       reservation (item_key: reservation id); json.status Active|Cancelled|Used
--   local_list        the local authorisation list version (item_key '')
--   local_list_entry  an entry sent in the list (item_key: HMAC of the id token, never the token)
--   charging_profile  a profile set and not cleared (item_key: profile id)
--   display_message   a 2.0.1 display message set and not cleared (item_key: message id)
-- Secrets (1.6 AuthorizationKey, 2.0.1 SecurityCtrlr.BasicAuthPassword) are never stored.
CREATE TABLE charge_point_items (
  charge_point_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  item_key TEXT NOT NULL,
  json TEXT NOT NULL,
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY (charge_point_id, kind, item_key)
);
