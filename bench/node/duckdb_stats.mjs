// What DuckDB does for the same numbers as `servestat stats` (bench/side_by_side.py): read the
// canonical log with read_json, per-request metrics of the successful requests, count, mean, std,
// min, max and quantile_cont p50/p90/p95/p99 per subset, rates and error counts. Prints the
// percentiles as JSON for the agreement check. Usage: node duckdb_stats.mjs FILE THREADS
import { DuckDBInstance } from "@duckdb/node-api";

const [file, threads] = process.argv.slice(2);
const db = await DuckDBInstance.create(":memory:", { threads: String(threads) });
const con = await db.connect();
const columns = `{id: 'VARCHAR', t_sched: 'DOUBLE', t_sent: 'DOUBLE', t_first: 'DOUBLE', t_end: 'DOUBLE',
  prompt_tokens: 'INTEGER', output_tokens: 'INTEGER', max_tokens: 'INTEGER', status: 'VARCHAR',
  http_status: 'INTEGER', error: 'VARCHAR'}`;
await con.run(`CREATE TABLE requests AS SELECT * FROM read_json('${file}', format = 'newline_delimited',
  columns = ${columns}) WHERE status IS NOT NULL`);
const metrics = {
  e2e: "t_end - t_sent", ttft: "t_first - t_sent", decode: "t_end - t_first",
  tpot: "CASE WHEN output_tokens > 1 THEN (t_end - t_first) / (output_tokens - 1) END",
  client_queue: "t_sent - t_sched", e2e_sched: "t_end - t_sched",
};
const subset = `CASE WHEN prompt_tokens <= 64 THEN 'short' WHEN prompt_tokens >= 2048 THEN 'long' ELSE 'medium' END`;
const per_metric = Object.entries(metrics).map(([name, expr]) =>
  `count(${expr}) AS ${name}_n, avg(${expr}) AS ${name}_mean, stddev_samp(${expr}) AS ${name}_std,
   min(${expr}) AS ${name}_min, max(${expr}) AS ${name}_max,
   quantile_cont(${expr}, [0.5, 0.9, 0.95, 0.99]) AS ${name}_p`).join(",\n");
const grouped = await con.runAndReadAll(`SELECT coalesce(${subset}, 'all') AS subset, ${per_metric}
  FROM requests WHERE status = 'ok' GROUP BY GROUPING SETS ((), (${subset}))`);
const run = await con.runAndReadAll(`SELECT count(*) FILTER (WHERE status = 'ok') / (max(t_end) - min(t_sent)),
  sum(output_tokens) FILTER (WHERE status = 'ok') / (max(t_end) - min(t_sent)) FROM requests`);
await con.runAndReadAll(`SELECT error, count(*) FROM requests WHERE status <> 'ok' GROUP BY error`);
const out = {};
for (const row of grouped.getRowObjectsJS()) {
  out[row.subset] = {};
  for (const name of Object.keys(metrics)) {
    const p = row[`${name}_p`];
    out[row.subset][name] = { p50: p[0], p90: p[1], p95: p[2], p99: p[3] };
  }
}
console.log(JSON.stringify({ rates: run.getRows()[0].map(Number), percentiles: out }));
