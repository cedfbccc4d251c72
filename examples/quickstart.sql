-- A short tour of Tributary SQL: `make run` executes this file against ./warehouse.
-- Every statement commits before the next one starts; query rows print on stdout.

CREATE DATABASE IF NOT EXISTS quickstart;
USE quickstart;

-- A primary-key table: rows with the same key are merged (latest wins by default).
CREATE TABLE orders (
  order_id BIGINT,
  customer STRING,
  amount   DECIMAL(10, 2),
  status   STRING,
  dt       STRING,
  PRIMARY KEY (order_id, dt) NOT ENFORCED
) PARTITIONED BY (dt) WITH ('bucket' = '2');

INSERT INTO orders VALUES
  (1, 'alice', 30.00, 'new', '2025-01-01'),
  (2, 'bob',   12.50, 'new', '2025-01-01'),
  (3, 'carol', 99.90, 'new', '2025-01-02');

-- An upsert: the same key again replaces the row.
INSERT INTO orders VALUES (2, 'bob', 15.00, 'paid', '2025-01-01');

-- Update and delete by key.
UPDATE orders SET status = 'shipped' WHERE order_id = 1;
DELETE FROM orders WHERE order_id = 3;

SELECT * FROM orders ORDER BY order_id;

-- Aggregates over the merged rows.
SELECT dt, COUNT(*) AS orders, SUM(amount) AS revenue FROM orders GROUP BY dt ORDER BY dt;

-- An append table keeps every row (a log).
CREATE TABLE events (ts TIMESTAMP(3), kind STRING, order_id BIGINT) WITH ('bucket' = '-1');
INSERT INTO events VALUES
  (TIMESTAMP '2025-01-01 10:00:00', 'created', 1),
  (TIMESTAMP '2025-01-01 10:05:00', 'created', 2),
  (TIMESTAMP '2025-01-01 11:00:00', 'paid', 2);
SELECT kind, COUNT(*) AS n FROM events GROUP BY kind ORDER BY kind;

-- Every commit is a snapshot; system tables show the table's metadata.
SELECT snapshot_id, commit_kind, total_record_count FROM orders$snapshots ORDER BY snapshot_id;

-- Time travel to the first snapshot.
SELECT order_id, status FROM orders /*+ OPTIONS('scan.snapshot-id' = '1') */ ORDER BY order_id;

-- A full compaction merges the files of every bucket.
CALL sys.compact('quickstart.orders');
SELECT bucket, level, record_count FROM orders$files ORDER BY bucket;

SHOW CREATE TABLE orders;
