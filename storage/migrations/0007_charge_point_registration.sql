-- 0007_charge_point_registration: when an operator registered a charge point (REST API
-- POST /api/v1/charge-points, `ocppgw charge-points register`); NULL: never registered, only
-- seen (it connected, or an operator set one of its properties first). A registered charge
-- point is known: its BootNotification is Accepted whatever unknown_charge_points says, unless
-- an operator chose its boot_status.
ALTER TABLE charge_points ADD COLUMN registered_ms INTEGER;
