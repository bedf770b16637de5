// What polars does for the same numbers as `servestat stats` (bench/side_by_side.py): scanJson
// over the canonical log, per-request metrics of the successful requests, count, mean, std, min,
// max and linear quantiles p50/p90/p95/p99 per subset, rates and error counts. Threads are set by
// POLARS_MAX_THREADS. Prints the percentiles as JSON. Usage: node polars_stats.mjs FILE
import pl from "nodejs-polars";

const [file] = process.argv.slice(2);
const schema = {
  id: pl.Utf8, t_sched: pl.Float64, t_sent: pl.Float64, t_first: pl.Float64, t_end: pl.Float64,
  prompt_tokens: pl.Int64, output_tokens: pl.Int64, max_tokens: pl.Int64, status: pl.Utf8,
  http_status: pl.Int64, error: pl.Utf8,
};
const requests = pl.scanJson(file, { schema }).filter(pl.col("status").isNotNull());
const df = requests.collectSync();
const ok = df.filter(pl.col("status").eq(pl.lit("ok")));
const metrics = {
  e2e: pl.col("t_end").minus(pl.col("t_sent")),
  ttft: pl.col("t_first").minus(pl.col("t_sent")),
  decode: pl.col("t_end").minus(pl.col("t_first")),
  tpot: pl.when(pl.col("output_tokens").gt(1))
    .then(pl.col("t_end").minus(pl.col("t_first")).div(pl.col("output_tokens").minus(1)))
    .otherwise(pl.lit(null)),
  client_queue: pl.col("t_sent").minus(pl.col("t_sched")),
  e2e_sched: pl.col("t_end").minus(pl.col("t_sched")),
};
const subsets = {
  all: pl.lit(true), short: pl.col("prompt_tokens").ltEq(64),
  medium: pl.col("prompt_tokens").gt(64).and(pl.col("prompt_tokens").lt(2048)), long: pl.col("prompt_tokens").gtEq(2048),
};
const out = {};
for (const [subset, member] of Object.entries(subsets)) {
  const part = ok.filter(member);
  const aggs = [];
  for (const [name, expr] of Object.entries(metrics)) {
    aggs.push(expr.count().alias(`${name}_n`), expr.mean().alias(`${name}_mean`), expr.std().alias(`${name}_std`),
      expr.min().alias(`${name}_min`), expr.max().alias(`${name}_max`));
    for (const q of [50, 90, 95, 99]) aggs.push(expr.quantile(q / 100, "linear").alias(`${name}_p${q}`));
  }
  const row = part.select(...aggs).toRecords()[0];
  out[subset] = {};
  for (const name of Object.keys(metrics))
    out[subset][name] = { p50: row[`${name}_p50`], p90: row[`${name}_p90`], p95: row[`${name}_p95`], p99: row[`${name}_p99`] };
}
const duration = df.getColumn("t_end").max() - df.getColumn("t_sent").min();
df.filter(pl.col("status").neq(pl.lit("ok"))).groupBy("error").len();
console.log(JSON.stringify({ rates: [ok.height / duration, ok.getColumn("output_tokens").sum() / duration], percentiles: out }));
