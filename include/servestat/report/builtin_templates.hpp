// Built-in report templates, generated from templates/*.mustache by cmake/embed_templates.cmake: edit those, then regenerate.
#pragma once

#include <array>       // std::array
#include <string_view> // std::string_view

namespace servestat {

// One built-in template: its name (the file name without .mustache) and its text.
struct builtin_template {
    std::string_view name;
    std::string_view text;
};

namespace detail {

// compare.html.mustache
inline constexpr char builtin_template_0[] =
    R"tmpl(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{{generator}}">
<title>{{title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1b1b1b; line-height: 1.45; }
h1 { border-bottom: 2px solid #0072B2; padding-bottom: .3rem; }
h2 { margin-top: 2.5rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .8rem 0 1.4rem; font-size: .92rem; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .55rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td.text { text-align: left; max-width: 40rem; overflow-wrap: anywhere; }
thead th { background: #f2f5f8; }
.headline { font-size: 1.05rem; background: #f7f9fb; border-left: 4px solid #0072B2; padding: .6rem 1rem; }
td.improved { background: #e3f2ec; color: #006d4f; font-weight: bold; }
td.regressed { background: #fbe6dc; color: #b3400c; font-weight: bold; }
td.neutral { color: #1b1b1b; }
td.undecided { color: #6b6b6b; font-style: italic; }
.pass { color: #006d4f; font-weight: bold; }
.fail { color: #b3400c; font-weight: bold; }
details { margin: .6rem 0; }
summary { cursor: pointer; font-weight: bold; }
ul.summary { font-size: 1.05rem; background: #f7f9fb; border-left: 4px solid #0072B2; padding: .6rem 1rem .6rem 2rem; }
ul.summary li { margin: .3rem 0; }
figure { margin: 1.2rem 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
table.kpi th:nth-child(-n+2), table.kpi td:nth-child(-n+2), table.kpi th:last-child { text-align: left; }
table.kpi td:first-child { white-space: nowrap; }
.ci { display: block; color: #555; font-size: .9em; }
</style>
</head>
<body>
<h1>{{title}}</h1>
<h2>Summary</h2>
<ul class="summary">
{{#summary}}
<li>{{text}}</li>
{{/summary}}
</ul>
<table class="kpi">
<thead><tr><th></th><th>subset</th><th>requests</th><th>ok</th><th>req/s</th><th>output tok/s</th><th>TTFT p50</th><th>TTFT p99</th><th>e2e p50</th><th>e2e p99</th>{{#has_kpi_cost}}<th>$ / 1M out</th>{{/has_kpi_cost}}{{#has_kpi_cost_good}}<th>$ / 1M good out</th>{{/has_kpi_cost_good}}{{#has_kpi_energy}}<th>J / out tok</th>{{/has_kpi_energy}}{{#has_kpi_energy_good}}<th>J / good out tok</th>{{/has_kpi_energy_good}}{{#has_kpi_slo}}<th>SLO</th>{{/has_kpi_slo}}</tr></thead>
<tbody>
{{#kpi}}
<tr><td class="text">{{name}}</td><td class="text">{{subset}}</td><td>{{requests}}</td><td>{{ok}}</td><td>{{rps}}</td><td>{{output_tps}}</td><td>{{ttft_p50}}{{#ttft_p50_ci}} <span class="ci">{{ttft_p50_ci}}</span>{{/ttft_p50_ci}}{{ttft_p50_mark}}{{ttft_p50_failed}}</td><td>{{ttft_p99}}{{#ttft_p99_ci}} <span class="ci">{{ttft_p99_ci}}</span>{{/ttft_p99_ci}}{{ttft_p99_mark}}{{ttft_p99_failed}}</td><td>{{e2e_p50}}{{#e2e_p50_ci}} <span class="ci">{{e2e_p50_ci}}</span>{{/e2e_p50_ci}}{{e2e_p50_mark}}{{e2e_p50_failed}}</td><td>{{e2e_p99}}{{#e2e_p99_ci}} <span class="ci">{{e2e_p99_ci}}</span>{{/e2e_p99_ci}}{{e2e_p99_mark}}{{e2e_p99_failed}}</td>{{#has_kpi_cost}}<td>{{cost_output}}{{#cost_output_ci}} <span class="ci">{{cost_output_ci}}</span>{{/cost_output_ci}}</td>{{/has_kpi_cost}}{{#has_kpi_cost_good}}<td>{{cost_good_output}}{{#cost_good_output_ci}} <span class="ci">{{cost_good_output_ci}}</span>{{/cost_good_output_ci}}</td>{{/has_kpi_cost_good}}{{#has_kpi_energy}}<td>{{energy_output}}{{#energy_output_ci}} <span class="ci">{{energy_output_ci}}</span>{{/energy_output_ci}}</td>{{/has_kpi_energy}}{{#has_kpi_energy_good}}<td>{{energy_good_output}}{{#energy_good_output_ci}} <span class="ci">{{energy_good_output_ci}}</span>{{/energy_good_output_ci}}</td>{{/has_kpi_energy_good}}{{#has_kpi_slo}}<td class="text">{{slo}}</td>{{/has_kpi_slo}}</tr>
{{/kpi}}
</tbody>
</table>
<p class="note">Short and long rows count their successful requests; rates and ok % belong to the whole run.</p>
{{#kpi_interval_note}}<p class="note">{{kpi_interval_note}}</p>{{/kpi_interval_note}}
{{#has_few_samples}}
<p class="note">{{few_samples_note}}</p>
{{/has_few_samples}}
<p class="headline">{{#kpi_note}}{{kpi_note}} {{/kpi_note}}Compared {{pairing_text}}: {{verdict_counts}}.</p>
<p class="note">{{verdict_terms}}</p>
{{#has_gate}}
{{#gate}}
<h2>Gate: <span class="{{#passed}}pass{{/passed}}{{^passed}}fail{{/passed}}">{{verdict}}</span></h2>
<p>Rule --fail-on {{rule}}: {{#passed}}no gated statistic regressed.{{/passed}}{{^passed}}these regressed beyond the noise band:{{/passed}}</p>
{{#has_failed}}
<ul>
{{#failed}}
<li>{{text}}</li>
{{/failed}}
</ul>
{{/has_failed}}
{{/gate}}
{{/has_gate}}
{{#has_findings}}
<h2>Findings</h2>
<ol>
{{#findings}}
<li>{{text}}</li>
{{/findings}}
</ol>
{{#has_more_findings}}
<details>
<summary>All findings ({{findings_total}}, ranked the same way)</summary>
<ol>
{{#all_findings}}
<li>{{text}}</li>
{{/all_findings}}
</ol>
</details>
{{/has_more_findings}}
{{/has_findings}}
{{#has_overlays}}
<h2>Before and after on one axis</h2>
{{/has_overlays}}
{{#overlays}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/overlays}}
{{^many_pairs}}
<h2>Verdicts</h2>
<table>
<thead><tr>{{#many_pairs}}<th>pair</th>{{/many_pairs}}<th>statistic</th><th>before</th><th>after</th><th>change</th><th>{{options.confidence}} CI</th><th>p</th><th>verdict</th></tr></thead>
<tbody>
{{#summary_rows}}
<tr>{{#many_pairs}}<td class="text">{{pair}}</td>{{/many_pairs}}<td class="text">{{metric}}</td><td>{{before}}{{before_mark}}</td><td>{{after}}{{after_mark}}</td><td>{{change}}</td><td>{{ci}}</td><td>{{p}}</td><td class="text {{css}}">{{verdict}}</td></tr>
{{/summary_rows}}
</tbody>
</table>
{{/many_pairs}}
{{#has_sweep}}
{{#sweep}}
<h2>{{title}}</h2>
<p class="note">Each latency cell: before → after, the change with its {{options.confidence}} interval in brackets, and the verdict.</p>
<table>
<thead><tr><th>{{param}}</th><th>throughput before</th><th>after</th><th>change</th><th>e2e p50</th><th>e2e p99</th><th>ttft p99</th>{{#by_prompt_length}}<th>short prompts' e2e p99</th><th>long prompts' e2e p99</th>{{/by_prompt_length}}</tr></thead>
<tbody>
{{#levels}}
<tr><td>{{load}}</td>{{#rps}}<td>{{before}}</td><td>{{after}}</td>{{/rps}}<td>{{rps_change}}</td>{{#e2e_p50}}<td class="{{css}}">{{before}}{{before_mark}} → {{after}}{{after_mark}}<br>{{change}}<br>{{verdict}}</td>{{/e2e_p50}}{{#e2e_p99}}<td class="{{css}}">{{before}}{{before_mark}} → {{after}}{{after_mark}}<br>{{change}}<br>{{verdict}}</td>{{/e2e_p99}}{{#ttft_p99}}<td class="{{css}}">{{before}}{{before_mark}} → {{after}}{{after_mark}}<br>{{change}}<br>{{verdict}}</td>{{/ttft_p99}}{{#by_prompt_length}}{{#short_e2e_p99}}<td class="{{css}}">{{before}}{{before_mark}} → {{after}}{{after_mark}}<br>{{change}}<br>{{verdict}}</td>{{/short_e2e_p99}}{{#long_e2e_p99}}<td class="{{css}}">{{before}}{{before_mark}} → {{after}}{{after_mark}}<br>{{change}}<br>{{verdict}}</td>{{/long_e2e_p99}}{{/by_prompt_length}}</tr>
{{/levels}}
</tbody>
</table>
{{#has_knees}}
<p>Knees (Kneedle, S = 1), each side's own:</p>
<ul>
{{#knees}}
<li>{{text}}</li>
{{/knees}}
</ul>
{{/has_knees}}
{{#has_capacity}}
<p>SLO capacity:</p>
<ul>
{{#capacity}}
<li>{{text}}</li>
{{/capacity}}
</ul>
{{/has_capacity}}
{{#has_only_before}}
<p>Measured only before, not compared: {{only_before}}.</p>
{{/has_only_before}}
{{#has_only_after}}
<p>Measured only after, not compared: {{only_after}}.</p>
{{/has_only_after}}
{{#plots}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/plots}}
{{/sweep}}
{{/has_sweep}}
<h2>Inputs</h2>
<table>
<thead><tr><th></th><th>before</th><th>after</th></tr></thead>
<tbody>
{{#pairs}}
<tr><td class="text">{{heading}}</td>{{#before}}<td class="text"><strong>{{label}}</strong>: {{ok}} of {{requests}} requests ok<br>{{source_path}} ({{source_format}}), started {{started_at}}</td>{{/before}}{{#after}}<td class="text"><strong>{{label}}</strong>: {{ok}} of {{requests}} requests ok<br>{{source_path}} ({{source_format}}), started {{started_at}}</td>{{/after}}</tr>
{{/pairs}}
</tbody>
</table>
{{#many_pairs}}
<h2>Every statistic, pair by pair</h2>
{{/many_pairs}}
{{#pairs}}
<details{{^many_pairs}} open{{/many_pairs}}>
<summary>{{heading}}</summary>
<p>{{#before}}Before: <strong>{{label}}</strong>, {{ok}} of {{requests}} requests ok ({{source_path}}, {{source_format}}, started {{started_at}}).{{/before}}<br>
{{#after}}After: <strong>{{label}}</strong>, {{ok}} of {{requests}} requests ok ({{source_path}}, {{source_format}}, started {{started_at}}).{{/after}}</p>
<h4>Run level</h4>
<table>
<thead><tr><th>statistic</th><th>before</th><th>after</th><th>change</th><th>{{options.confidence}} CI</th><th>p</th><th>verdict</th></tr></thead>
<tbody>
{{#run_rows}}
<tr><td class="text">{{metric}}</td><td>{{before}}{{before_mark}}</td><td>{{after}}{{after_mark}}</td><td>{{change}}</td><td>{{ci}}</td><td>{{p}}</td><td class="text {{css}}">{{verdict}}</td></tr>
{{/run_rows}}
</tbody>
</table>
{{#has_runs_as_unit}}
<h4>Between runs</h4>
<p class="note">{{runs_as_unit_note}}</p>
<table>
<thead><tr><th>statistic</th><th>before (mean ± std)</th><th>after (mean ± std)</th><th>change</th><th>{{options.confidence}} Welch CI</th><th>verdict over runs</th></tr></thead>
<tbody>
{{#runs_as_unit_rows}}
<tr><td class="text">{{metric}}</td><td>{{before}}</td><td>{{after}}</td><td>{{change}}</td><td>{{ci}}</td><td class="text {{css}}">{{verdict}}</td></tr>
{{/runs_as_unit_rows}}
</tbody>
</table>
{{/has_runs_as_unit}}
{{#has_time_split}}<h4>Where a request's time goes, by the server's clock</h4>
<p class="note">Mean time per ok request and its share, before → after; the server's queue and prefill times are compared with their intervals in the tables below.</p>
<table>
<thead><tr><th>subset</th><th>n</th>{{#time_split_client_wait}}<th>client wait</th>{{/time_split_client_wait}}<th>network and front end</th><th>server queue</th><th>{{time_split_prefill}}</th><th>decode</th><th>total</th></tr></thead>
<tbody>
{{#time_split}}
<tr><td class="text">{{subset}}</td><td>{{n}}</td>{{#time_split_client_wait}}<td>{{client_wait}}</td>{{/time_split_client_wait}}<td>{{network}}</td><td>{{server_queue}}</td><td>{{prefill}}</td><td>{{decode}}</td><td>{{total}}</td></tr>
{{/time_split}}
</tbody>
</table>{{/has_time_split}}
{{#subsets}}
<details{{#first}} open{{/first}}>
<summary>{{name}} requests ({{n_before}} before, {{n_after}} after)</summary>
<table>
<thead><tr><th>statistic</th><th>before</th><th>after</th><th>change</th><th>{{options.confidence}} CI</th><th>p</th><th>verdict</th></tr></thead>
<tbody>
{{#rows}}
<tr><td class="text">{{metric}}</td><td>{{before}}{{before_mark}}</td><td>{{after}}{{after_mark}}</td><td>{{change}}</td><td>{{ci}}</td><td>{{p}}</td><td class="text {{css}}">{{verdict}}</td></tr>
{{/rows}}
</tbody>
</table>
</details>
{{/subsets}}
{{#plots}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/plots}}
</details>
{{/pairs}}
<h2>How to read this comparison</h2>
<ul>
<li><strong>change</strong> is after − before, and in brackets after / before − 1. Lower is better for latencies; higher for throughput, success rate and goodput. Shares change in percentage points (pp).</li>
<li><strong>{{options.confidence}} CI</strong> is the interval of the relative change, made to hold at any number of requests: a percentile's from both sides' order statistics (no assumption about the distribution), a mean's by Welch's t (absolute change) and Fieller's interval (relative change), a share's (success rate, goodput) from {{options.resamples}} bootstrap resamples of the requests (seed {{options.seed}}). An interval that includes 0% says the data cannot tell the direction.</li>
<li><strong>p</strong> is the two-sided Mann–Whitney U test of whether the metric's whole distribution shifted; every statistic of one metric shares it. Below α = {{options.alpha}} counts as significant.</li>
<li><strong>improved / regressed</strong>: the whole interval lies beyond the {{options.noise}} noise band on one side; for a mean or a share p &lt; α too. A percentile's interval is its own test: the distribution test would miss a tail that moved while the bulk did not. <strong>within noise</strong>: a change is shown (the interval excludes none; for a mean, p &lt; α), but the interval reaches into the band. <strong>no significant change</strong>: a percentile's interval includes no change, or a mean's p ≥ α. A mean whose interval clears the band while p does not is listed under Findings.</li>
<li><strong>†</strong> marks a value without an interval that rests on few samples on that side: fewer than 10 requests lie beyond it.</li>
<li><strong>too few requests</strong>: a percentile gets a verdict only when each side has enough requests for an interval from both sides' order statistics at {{options.confidence}} ({{options.too_few_rule}}); means need 2.</li>
<li><strong>single measurement</strong>: requests and tokens per second are one number per run, with no interval: only repeated runs show whether a difference is real.</li>
<li>Settings: {{options.text}}. <code>servestat compare --json</code> gives every number at full precision.</li>
</ul>
<p><em>Generated by {{generator}}.</em></p>
</body>
</html>
)tmpl";

// compare.md.mustache
inline constexpr char builtin_template_1[] =
    R"tmpl(# {{title}}

## Summary

{{#summary}}
- {{text}}
{{/summary}}

| | subset | requests | ok | req/s | output tok/s | TTFT p50 | TTFT p99 | e2e p50 | e2e p99 |{{#has_kpi_cost}} $ / 1M out |{{/has_kpi_cost}}{{#has_kpi_cost_good}} $ / 1M good out |{{/has_kpi_cost_good}}{{#has_kpi_energy}} J / out tok |{{/has_kpi_energy}}{{#has_kpi_energy_good}} J / good out tok |{{/has_kpi_energy_good}}{{#has_kpi_slo}} SLO |{{/has_kpi_slo}}
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|{{#has_kpi_cost}}---:|{{/has_kpi_cost}}{{#has_kpi_cost_good}}---:|{{/has_kpi_cost_good}}{{#has_kpi_energy}}---:|{{/has_kpi_energy}}{{#has_kpi_energy_good}}---:|{{/has_kpi_energy_good}}{{#has_kpi_slo}}---|{{/has_kpi_slo}}
{{#kpi}}
| {{name}} | {{subset}} | {{requests}} | {{ok}} | {{rps}} | {{output_tps}} | {{ttft_p50}}{{#ttft_p50_ci}} {{ttft_p50_ci}}{{/ttft_p50_ci}}{{ttft_p50_mark}}{{ttft_p50_failed}} | {{ttft_p99}}{{#ttft_p99_ci}} {{ttft_p99_ci}}{{/ttft_p99_ci}}{{ttft_p99_mark}}{{ttft_p99_failed}} | {{e2e_p50}}{{#e2e_p50_ci}} {{e2e_p50_ci}}{{/e2e_p50_ci}}{{e2e_p50_mark}}{{e2e_p50_failed}} | {{e2e_p99}}{{#e2e_p99_ci}} {{e2e_p99_ci}}{{/e2e_p99_ci}}{{e2e_p99_mark}}{{e2e_p99_failed}} |{{#has_kpi_cost}} {{cost_output}}{{#cost_output_ci}} {{cost_output_ci}}{{/cost_output_ci}} |{{/has_kpi_cost}}{{#has_kpi_cost_good}} {{cost_good_output}}{{#cost_good_output_ci}} {{cost_good_output_ci}}{{/cost_good_output_ci}} |{{/has_kpi_cost_good}}{{#has_kpi_energy}} {{energy_output}}{{#energy_output_ci}} {{energy_output_ci}}{{/energy_output_ci}} |{{/has_kpi_energy}}{{#has_kpi_energy_good}} {{energy_good_output}}{{#energy_good_output_ci}} {{energy_good_output_ci}}{{/energy_good_output_ci}} |{{/has_kpi_energy_good}}{{#has_kpi_slo}} {{slo}} |{{/has_kpi_slo}}
{{/kpi}}

Short and long rows count their successful requests; rates and ok % belong to the whole run.
{{#kpi_interval_note}}

{{kpi_interval_note}}
{{/kpi_interval_note}}
{{#has_few_samples}}

{{few_samples_note}}
{{/has_few_samples}}

{{#kpi_note}}{{kpi_note}} {{/kpi_note}}Compared {{pairing_text}}: {{verdict_counts}}.

{{verdict_terms}}

{{#has_gate}}
{{#gate}}
## Gate: {{verdict}}

Rule --fail-on {{rule}}: {{#passed}}no gated statistic regressed.{{/passed}}{{^passed}}these regressed beyond the noise band:{{/passed}}
{{#has_failed}}

{{#failed}}
- {{text}}
{{/failed}}
{{/has_failed}}

{{/gate}}
{{/has_gate}}
{{#has_findings}}
## Findings

{{#findings}}
{{index}}. {{text}}
{{/findings}}
{{#has_more_findings}}

The {{findings_total}} findings in full, ranked the same way, are under "All findings" below.
{{/has_more_findings}}

{{/has_findings}}
{{#has_overlays}}
## Before and after on one axis

{{/has_overlays}}
{{#overlays}}
![{{title}}]({{file}})

{{/overlays}}
{{^many_pairs}}
## Verdicts

| {{#many_pairs}}pair | {{/many_pairs}}statistic | before | after | change | {{options.confidence}} CI | p | verdict |
|{{#many_pairs}}---|{{/many_pairs}}---|---:|---:|---:|---:|---:|---|
{{#summary_rows}}
| {{#many_pairs}}{{pair}} | {{/many_pairs}}{{metric}} | {{before}}{{before_mark}} | {{after}}{{after_mark}} | {{change}} | {{ci}} | {{p}} | {{#significant}}**{{verdict}}**{{/significant}}{{^significant}}{{verdict}}{{/significant}} |
{{/summary_rows}}

{{/many_pairs}}
{{#has_sweep}}
{{#sweep}}
## {{title}}

Each latency cell: before → after, the change with its {{options.confidence}} interval in brackets, and the verdict.

| {{param}} | throughput before | after | change | e2e p50 | e2e p99 | ttft p99 |{{#by_prompt_length}} short prompts' e2e p99 | long prompts' e2e p99 |{{/by_prompt_length}}
|---:|---:|---:|---:|---|---|---|{{#by_prompt_length}}---|---|{{/by_prompt_length}}
{{#levels}}
| {{load}} | {{#rps}}{{before}} | {{after}}{{/rps}} | {{rps_change}} | {{#e2e_p50}}{{before}}{{before_mark}} → {{after}}{{after_mark}}, {{change}}: {{verdict}}{{/e2e_p50}} | {{#e2e_p99}}{{before}}{{before_mark}} → {{after}}{{after_mark}}, {{change}}: {{verdict}}{{/e2e_p99}} | {{#ttft_p99}}{{before}}{{before_mark}} → {{after}}{{after_mark}}, {{change}}: {{verdict}}{{/ttft_p99}} |{{#by_prompt_length}} {{#short_e2e_p99}}{{before}}{{before_mark}} → {{after}}{{after_mark}}, {{change}}: {{verdict}}{{/short_e2e_p99}} | {{#long_e2e_p99}}{{before}}{{before_mark}} → {{after}}{{after_mark}}, {{change}}: {{verdict}}{{/long_e2e_p99}} |{{/by_prompt_length}}
{{/levels}}
{{#has_knees}}

Knees (Kneedle, S = 1), each side's own:
{{#knees}}
- {{text}}
{{/knees}}
{{/has_knees}}
{{#has_capacity}}

SLO capacity:
{{#capacity}}
- {{text}}
{{/capacity}}
{{/has_capacity}}
{{#has_only_before}}

Measured only before, not compared: {{only_before}}.
{{/has_only_before}}
{{#has_only_after}}

Measured only after, not compared: {{only_after}}.
{{/has_only_after}}

{{#plots}}
![{{title}}]({{file}})

{{/plots}}
{{/sweep}}
{{/has_sweep}}
{{#has_more_findings}}
## All findings

{{#all_findings}}
{{index}}. {{text}}
{{/all_findings}}

{{/has_more_findings}}
## Inputs

| | before | after |
|---|---|---|
{{#pairs}}
| {{heading}} | {{#before}}{{label}}: {{ok}} of {{requests}} requests ok, {{source_path}} ({{source_format}}), started {{started_at}}{{/before}} | {{#after}}{{label}}: {{ok}} of {{requests}} requests ok, {{source_path}} ({{source_format}}), started {{started_at}}{{/after}} |
{{/pairs}}

{{#many_pairs}}
## Every statistic, pair by pair

{{/many_pairs}}
{{#pairs}}
### {{heading}}

{{#before}}Before: **{{label}}**, {{ok}} of {{requests}} requests ok ({{source_path}}, {{source_format}}, started {{started_at}}).{{/before}}
{{#after}}After: **{{label}}**, {{ok}} of {{requests}} requests ok ({{source_path}}, {{source_format}}, started {{started_at}}).{{/after}}

#### Run level

| statistic | before | after | change | {{options.confidence}} CI | p | verdict |
|---|---:|---:|---:|---:|---:|---|
{{#run_rows}}
| {{metric}} | {{before}}{{before_mark}} | {{after}}{{after_mark}} | {{change}} | {{ci}} | {{p}} | {{#significant}}**{{verdict}}**{{/significant}}{{^significant}}{{verdict}}{{/significant}} |
{{/run_rows}}

{{#has_runs_as_unit}}
#### Between runs

{{runs_as_unit_note}}

| statistic | before (mean ± std) | after (mean ± std) | change | {{options.confidence}} Welch CI | verdict over runs |
|---|---:|---:|---:|---:|---|
{{#runs_as_unit_rows}}
| {{metric}} | {{before}} | {{after}} | {{change}} | {{ci}} | {{#within_run_noise}}**{{verdict}}**{{/within_run_noise}}{{^within_run_noise}}{{verdict}}{{/within_run_noise}} |
{{/runs_as_unit_rows}}
{{/has_runs_as_unit}}
{{#has_time_split}}

#### Where a request's time goes, by the server's clock

Mean time per ok request and its share, before → after; the server's queue and prefill times are
compared with their intervals in the tables below.

| subset | n |{{#time_split_client_wait}} client wait |{{/time_split_client_wait}} network and front end | server queue | {{time_split_prefill}} | decode | total |
|---|---:|{{#time_split_client_wait}}---:|{{/time_split_client_wait}}---:|---:|---:|---:|---:|
{{#time_split}}
| {{subset}} | {{n}} |{{#time_split_client_wait}} {{client_wait}} |{{/time_split_client_wait}} {{network}} | {{server_queue}} | {{prefill}} | {{decode}} | {{total}} |
{{/time_split}}

{{/has_time_split}}
{{#subsets}}
#### {{name}} requests ({{n_before}} before, {{n_after}} after)

| statistic | before | after | change | {{options.confidence}} CI | p | verdict |
|---|---:|---:|---:|---:|---:|---|
{{#rows}}
| {{metric}} | {{before}}{{before_mark}} | {{after}}{{after_mark}} | {{change}} | {{ci}} | {{p}} | {{#significant}}**{{verdict}}**{{/significant}}{{^significant}}{{verdict}}{{/significant}} |
{{/rows}}

{{/subsets}}
{{#plots}}
![{{title}}]({{file}})

{{/plots}}
{{/pairs}}
## How to read this comparison

- **change** is after − before, and in brackets after / before − 1. Lower is better for latencies;
  higher for throughput, success rate and goodput. Shares change in percentage points (pp).
- **{{options.confidence}} CI** is the interval of the relative change, made to hold at any number of
  requests: a percentile's from both sides' order statistics (no assumption about the distribution),
  a mean's by Welch's t (absolute change) and Fieller's interval (relative change), a share's (success
  rate, goodput) from {{options.resamples}} bootstrap resamples of the requests (seed {{options.seed}}).
  An interval that includes 0% says the data cannot tell the direction.
- **p** is the two-sided Mann–Whitney U test of whether the metric's whole distribution shifted;
  every statistic of one metric shares it. Below α = {{options.alpha}} counts as significant.
- **improved / regressed**: the whole interval lies beyond the {{options.noise}} noise band on one
  side; for a mean or a share p < α too. A percentile's interval is its own test: the distribution
  test would miss a tail that moved while the bulk did not. **within noise**: a change is shown (the
  interval excludes none; for a mean, p < α), but the interval reaches into the band. **no
  significant change**: a percentile's interval includes no change, or a mean's p ≥ α. A mean whose
  interval clears the band while p does not is listed under Findings.
- **too few requests**: a percentile gets a verdict only when each side has enough requests for an
  interval from both sides' order statistics at {{options.confidence}} ({{options.too_few_rule}});
  means need 2.
- **†** marks a value without an interval that rests on few samples on that side: fewer than 10
  requests lie beyond it.
- **single measurement**: requests and tokens per second are one number per run, with no
  interval: only repeated runs show whether a difference is real.
- Settings: {{options.text}}. `servestat compare --json` gives every number at full precision.

_Generated by {{generator}}._
)tmpl";

// report.html.mustache
inline constexpr char builtin_template_2[] =
    R"tmpl(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{{generator}}">
<title>{{title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1b1b1b; line-height: 1.45; }
h1 { border-bottom: 2px solid #0072B2; padding-bottom: .3rem; }
h2 { margin-top: 2.5rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .8rem 0 1.4rem; font-size: .92rem; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .55rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td.text { text-align: left; max-width: 40rem; overflow-wrap: anywhere; }
thead th { background: #f2f5f8; }
.headline { font-size: 1.05rem; background: #f7f9fb; border-left: 4px solid #0072B2; padding: .6rem 1rem; }
.pass { color: #006d4f; font-weight: bold; }
.fail { color: #b3400c; font-weight: bold; }
figure { margin: 1.2rem 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
.meta td { text-align: left; }
ul.summary { font-size: 1.05rem; background: #f7f9fb; border-left: 4px solid #0072B2; padding: .6rem 1rem .6rem 2rem; }
ul.summary li { margin: .3rem 0; }
details.run { margin: .8rem 0; border: 1px solid #d0d0d0; padding: .3rem .8rem; }
details.run > summary { cursor: pointer; font-weight: bold; }
table.kpi th:nth-child(-n+2), table.kpi td:nth-child(-n+2), table.kpi th:last-child { text-align: left; }
table.kpi td:first-child { white-space: nowrap; }
table.sweep td { white-space: nowrap; }
.ci { display: block; color: #555; font-size: .9em; }
</style>
</head>
<body>
<h1>{{title}}</h1>
<h2>Summary</h2>
<ul class="summary">
{{#summary}}
<li>{{text}}</li>
{{/summary}}
</ul>
{{#has_kpi}}
<table class="kpi">
<thead><tr><th></th><th>subset</th><th>requests</th><th>ok</th><th>req/s</th><th>output tok/s</th>{{#kpi_has_ttft}}<th>TTFT p50</th><th>TTFT p99</th>{{/kpi_has_ttft}}{{#kpi_has_e2e}}<th>e2e p50</th><th>e2e p99</th>{{/kpi_has_e2e}}{{#has_kpi_cost}}<th>$ / 1M out</th>{{/has_kpi_cost}}{{#has_kpi_cost_good}}<th>$ / 1M good out</th>{{/has_kpi_cost_good}}{{#has_kpi_energy}}<th>J / out tok</th>{{/has_kpi_energy}}{{#has_kpi_energy_good}}<th>J / good out tok</th>{{/has_kpi_energy_good}}{{#has_kpi_slo}}<th>SLO</th>{{/has_kpi_slo}}</tr></thead>
<tbody>
{{#kpi}}
<tr><td class="text">{{name}}</td><td class="text">{{subset}}</td><td>{{requests}}</td><td>{{ok}}</td><td>{{rps}}</td><td>{{output_tps}}</td>{{#kpi_has_ttft}}<td>{{ttft_p50}}{{#ttft_p50_ci}} <span class="ci">{{ttft_p50_ci}}</span>{{/ttft_p50_ci}}{{ttft_p50_mark}}{{ttft_p50_failed}}</td><td>{{ttft_p99}}{{#ttft_p99_ci}} <span class="ci">{{ttft_p99_ci}}</span>{{/ttft_p99_ci}}{{ttft_p99_mark}}{{ttft_p99_failed}}</td>{{/kpi_has_ttft}}{{#kpi_has_e2e}}<td>{{e2e_p50}}{{#e2e_p50_ci}} <span class="ci">{{e2e_p50_ci}}</span>{{/e2e_p50_ci}}{{e2e_p50_mark}}{{e2e_p50_failed}}</td><td>{{e2e_p99}}{{#e2e_p99_ci}} <span class="ci">{{e2e_p99_ci}}</span>{{/e2e_p99_ci}}{{e2e_p99_mark}}{{e2e_p99_failed}}</td>{{/kpi_has_e2e}}{{#has_kpi_cost}}<td>{{cost_output}}{{#cost_output_ci}} <span class="ci">{{cost_output_ci}}</span>{{/cost_output_ci}}</td>{{/has_kpi_cost}}{{#has_kpi_cost_good}}<td>{{cost_good_output}}{{#cost_good_output_ci}} <span class="ci">{{cost_good_output_ci}}</span>{{/cost_good_output_ci}}</td>{{/has_kpi_cost_good}}{{#has_kpi_energy}}<td>{{energy_output}}{{#energy_output_ci}} <span class="ci">{{energy_output_ci}}</span>{{/energy_output_ci}}</td>{{/has_kpi_energy}}{{#has_kpi_energy_good}}<td>{{energy_good_output}}{{#energy_good_output_ci}} <span class="ci">{{energy_good_output_ci}}</span>{{/energy_good_output_ci}}</td>{{/has_kpi_energy_good}}{{#has_kpi_slo}}<td class="text">{{slo}}</td>{{/has_kpi_slo}}</tr>
{{/kpi}}
</tbody>
</table>
{{#kpi_has_subsets}}<p class="note">Short and long rows count their successful requests; rates and ok % belong to the whole run.</p>{{/kpi_has_subsets}}
{{#kpi_interval_note}}<p class="note">{{kpi_interval_note}}</p>{{/kpi_interval_note}}
{{#kpi_failed_note}}<p class="note">{{kpi_failed_note}}</p>{{/kpi_failed_note}}
{{/has_kpi}}
{{#kpi_note}}
<p>{{kpi_note}}</p>
{{/kpi_note}}
{{#accounting}}
<p class="note">{{text}}</p>
{{/accounting}}
{{#digest_few_samples}}
<p class="note">{{few_samples_note}}</p>
{{/digest_few_samples}}
{{#how_read}}
<h2>How these runs were read</h2>
<ul class="how-read">
{{#lines}}
<li><strong>{{heading}}</strong>: {{text}}</li>
{{/lines}}
</ul>
{{/how_read}}
{{#has_sweep_overlays}}
<h2>Sweeps side by side</h2>
{{#sweep_overlays}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/sweep_overlays}}
{{/has_sweep_overlays}}
{{#many_runs}}
<h2>Runs compared</h2>
{{^runs_in_sweeps}}
<table>
<thead><tr><th>run</th><th>requests</th><th>success</th><th>req/s</th><th>output tok/s</th><th>e2e p50</th><th>e2e p90</th><th>e2e p99</th><th>ttft p50</th><th>ttft p99</th></tr></thead>
<tbody>
{{#comparison}}
<tr><td>{{label}}</td><td>{{requests}}</td><td>{{success_rate}}</td><td>{{rps}}</td><td>{{output_tps}}</td><td>{{e2e_p50}}{{e2e_p50_mark}}</td><td>{{e2e_p90}}{{e2e_p90_mark}}</td><td>{{e2e_p99}}{{e2e_p99_mark}}</td><td>{{ttft_p50}}{{ttft_p50_mark}}</td><td>{{ttft_p99}}{{ttft_p99_mark}}</td></tr>
{{/comparison}}
</tbody>
</table>
{{#comparison_few_samples}}
<p class="note">{{few_samples_note}}</p>
{{/comparison_few_samples}}
{{/runs_in_sweeps}}
{{#runs_in_sweeps}}
<p>Every run belongs to a sweep below, whose table lists it by load level; here they are side by side.</p>
{{/runs_in_sweeps}}
{{#comparison_plots}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/comparison_plots}}
{{/many_runs}}
{{#has_groups}}
{{#group_view}}
<h2>Runs grouped by {{key}}</h2>
<p>{{description}} Per member: p95 and p99 of end-to-end latency over its successful requests, the median of each
request's output tokens / e2e (tokens/s as the client saw it, queueing and prefill included), and output tok/s over its
span where the log has a shared clock. Groups ranked by the median of their members' p95 (lower first).</p>
<table>
<thead><tr><th>rank</th><th>{{key}}</th><th>members</th><th>median p95 e2e</th><th>median p99 e2e</th><th>median tokens/s</th><th>output tok/s</th><th>p95 range</th><th>tokens/s range</th></tr></thead>
<tbody>
{{#rows}}
<tr><td>{{rank}}</td><td>{{name}}</td><td>{{members}}</td><td>{{p95}}</td><td>{{p99}}</td><td>{{tokens_per_s}}</td><td>{{output_tps}}</td><td>{{p95_spread}}</td><td>{{tokens_spread}}</td></tr>
{{/rows}}
</tbody>
</table>
{{#has_findings}}
<h3>Findings</h3>
<ul>
{{#findings}}
<li>{{text}}</li>
{{/findings}}
</ul>
{{/has_findings}}
{{#has_notes}}
<p>Notes:</p>
<ul>
{{#notes}}
<li>{{text}}</li>
{{/notes}}
</ul>
{{/has_notes}}
{{#plots}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/plots}}
{{/group_view}}
{{/has_groups}}
{{#sweeps}}
<h2>{{title}}</h2>
{{#sentence}}<p>{{sentence}}</p>{{/sentence}}
<table class="sweep">
<thead><tr><th>{{param}}</th>{{#columns}}<th>{{head}}</th>{{/columns}}</tr></thead>
<tbody>
{{#rows}}
<tr><td>{{load}}</td>{{#cells}}<td>{{value}}{{#ci}} <span class="ci">{{ci}}</span>{{/ci}}</td>{{/cells}}</tr>
{{/rows}}
</tbody>
</table>
{{#interval_note}}
<p class="note">{{interval_note}}</p>
{{/interval_note}}
{{#has_few_samples}}
<p class="note">{{few_samples_note}}</p>
{{/has_few_samples}}
{{#has_replicates}}
<p class="note">{{replicates}}</p>
{{/has_replicates}}
<p>Knees (Kneedle, S = 1):</p>
<ul>
{{#knees}}
<li>{{text}}</li>
{{/knees}}
</ul>
{{#has_capacity}}
<p>Largest load meeting each SLO:</p>
<ul>
{{#capacity}}
<li>{{text}}</li>
{{/capacity}}
</ul>
{{/has_capacity}}
{{#has_little}}
<p>{{little}}</p>
<table>
<thead><tr><th>{{param}}</th><th>req/s</th><th>mean e2e</th><th>in flight</th><th>of {{param}}</th><th></th></tr></thead>
<tbody>
{{#little_rows}}
<tr><td>{{load}}</td><td>{{rps}}</td><td>{{mean_e2e}}</td><td>{{in_flight}}</td><td>{{ratio}}</td><td class="text">{{verdict}}</td></tr>
{{/little_rows}}
</tbody>
</table>
{{/has_little}}
{{#has_findings}}
<h3>Findings</h3>
<ul>
{{#findings}}
<li>{{text}}</li>
{{/findings}}
</ul>
{{/has_findings}}
{{#plots}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/plots}}
{{/sweeps}}
{{#grids}}
<h2>{{title}}</h2>
<p>{{rows}} values of {{row_param}} × {{columns}} values of {{column_param}}; each heatmap prints its values in the cells.</p>
{{#has_sweet_spot}}
<p class="headline"><strong>{{sweet_spot}}</strong></p>
{{/has_sweet_spot}}
{{#plots}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/plots}}
{{/grids}}
{{^single_run}}
<h2>Per-run detail</h2>
{{#run_sections_left_out}}<p>The per-run sections and their charts are left out: {{runs}} runs are too many to read one by one (a report gives each run a section up to {{most}} runs). The tables and charts above show every run; report.json holds each run's statistics, and <code>servestat report LOG</code> on one log gives its section with every table and chart.</p>{{/run_sections_left_out}}{{^run_sections_left_out}}<p>Each run's tables and three of its charts, collapsed; open a run to read it.</p>{{/run_sections_left_out}}
{{/single_run}}
{{#runs}}
{{^single_run}}<details class="run"><summary>{{label}}{{#has_requests}}{{#headline}}: {{requests}} requests, {{success_rate}} ok{{#has_rates}}, {{rps}}{{/has_rates}}, e2e p99 {{e2e_p99}}{{e2e_p99_mark}}{{/headline}}{{/has_requests}}</summary>{{/single_run}}
{{#single_run}}<h2>Run {{label}}</h2>{{/single_run}}
<table class="meta">
<tbody>
<tr><th>source</th><td>{{source_path}} ({{source_format}})</td></tr>
<tr><th>model</th><td>{{model}}</td></tr>
<tr><th>workload</th><td>{{workload}}</td></tr>
<tr><th>started</th><td>{{started_at}}</td></tr>
{{#params}}
<tr><th>{{name}}</th><td>{{value}}</td></tr>
{{/params}}
</tbody>
</table>
{{#is_summary}}
<p>This file holds only the tool's own aggregates, no per-request records: the numbers below are the tool's, as it reported them.</p>
{{/is_summary}}
{{#is_arrivals}}
{{#arrivals}}
<p class="headline"><strong>Workload trace: {{count}} arrivals over {{span}} ({{rate}}), inter-arrival CoV {{gap_cov}}.</strong><br>
Prompt tokens {{prompt_tokens}}; output tokens {{output_tokens}}. Nothing was measured here: it is a workload to replay.</p>
{{/arrivals}}
{{/is_arrivals}}
{{#has_requests}}
{{#headline}}
<p class="headline"><strong>{{requests}} requests, {{success_rate}} succeeded</strong>{{#has_rates}} over {{duration}}{{#duration_reported}} (the tool's reported duration){{/duration_reported}}: {{rps}}, {{output_tps}} output, {{total_tps}} total{{#has_peak_concurrency}}, peak concurrency {{peak_concurrency}}{{/has_peak_concurrency}}{{/has_rates}}.<br>
End-to-end latency p50 {{e2e_p50}}{{e2e_p50_mark}}, p90 {{e2e_p90}}{{e2e_p90_mark}}, p99 {{e2e_p99}}{{e2e_p99_mark}}{{#has_ttft}}; time to first token p50 {{ttft_p50}}{{ttft_p50_mark}}, p90 {{ttft_p90}}{{ttft_p90_mark}}, p99 {{ttft_p99}}{{ttft_p99_mark}}{{/has_ttft}}.
{{^has_rates}}<br>(This log has per-request durations but no shared clock, so rates and concurrency cannot be derived.){{/has_rates}}</p>
{{/headline}}
{{/has_requests}}
{{#has_requests}}
<p class="steady-state"><strong>Steady state:</strong> {{steady_state_text}}</p>
{{/has_requests}}{{#has_connections}}
<p><strong>Connections:</strong> {{connections_text}}</p>
{{/has_connections}}{{#has_driver_cancelled}}
<p><strong>Cancelled on purpose:</strong> {{driver_cancelled_text}}</p>
{{/has_driver_cancelled}}
{{#has_notes}}
<p>Notes on this source:</p>
<ul>
{{#notes}}
<li>{{text}}</li>
{{/notes}}
</ul>
{{/has_notes}}
{{#has_skipped}}
<p>{{skipped_text}}.</p>
{{/has_skipped}}
{{#has_findings}}
<h3>Findings</h3>
<ol>
{{#findings}}
<li>{{text}}</li>
{{/findings}}
</ol>
{{/has_findings}}
{{#has_slo}}
<h3>Service-level objectives</h3>
<table>
<thead><tr><th>metric</th><th>subset</th><th>objective</th><th>verdict</th><th>measured</th></tr></thead>
<tbody>
{{#slo}}
<tr><td>{{metric}}</td><td>{{subset}}</td><td class="text">{{objective}}</td><td class="{{#pass}}pass{{/pass}}{{^pass}}fail{{/pass}}">{{verdict}}</td><td>{{actual}}</td></tr>
{{/slo}}
</tbody>
</table>
{{/has_slo}}{{#has_turns}}
<h3>Sessions turn by turn</h3>
<p><strong>Prefix cache:</strong> {{turns_text}}</p>
<table>
<thead><tr><th>turn</th><th>requests</th><th>ok</th><th>prompt tokens p50</th><th>cached</th><th>cacheable at most</th><th>TTFT p50</th><th>TTFT p90</th><th>e2e p50</th><th>e2e p90</th></tr></thead>
<tbody>
{{#turns}}
<tr><td>{{turn}}</td><td>{{requests}}</td><td>{{ok}}</td><td>{{prompt_p50}}</td><td>{{cached}}</td><td>{{bound}}</td><td>{{ttft_p50}}</td><td>{{ttft_p90}}</td><td>{{e2e_p50}}</td><td>{{e2e_p90}}</td></tr>
{{/turns}}
</tbody>
</table>
<p class="note">cached: the share of the turn's prompt tokens the server served from its prefix cache; cacheable at most: the share a cache could have held (the shared system prompt once another session had sent it, and each later turn's earlier conversation). Latencies are over successful turns.</p>
{{/has_turns}}
{{#has_requests}}
<h3>Latency by prompt length</h3>
{{#metric_tables}}
<table>
<caption>{{title}}</caption>
<thead><tr><th>subset</th><th>n</th><th>mean</th><th>std</th><th>CoV</th>{{#columns}}<th>{{name}}</th>{{/columns}}<th>max</th></tr></thead>
<tbody>
{{#rows}}
<tr><td>{{subset}}</td><td>{{n}}</td><td>{{mean}}</td><td>{{std}}</td><td>{{cov}}</td>{{#cells}}<td>{{value}}{{mark}}</td>{{/cells}}<td>{{max}}</td></tr>
{{/rows}}
</tbody>
</table>
{{/metric_tables}}
{{#has_few_samples}}
<p class="note">{{few_samples_note}}</p>
{{/has_few_samples}}
{{/has_requests}}
{{#has_reported}}
<h3>Reported by the tool</h3>
<table>
<thead><tr><th>value</th><th>as reported</th><th>unit</th></tr></thead>
<tbody>
{{#reported}}
<tr><td class="text">{{name}}</td><td>{{value}}</td><td class="text">{{unit}}</td></tr>
{{/reported}}
</tbody>
</table>
{{/has_reported}}
{{#has_breakdown}}
<h3>Waiting versus generating</h3>
<p>Waiting here is {{breakdown_waiting}}; each cell is that percentile of waiting, of latency, and their ratio.</p>
<table>
<tbody>
{{#breakdown}}
<tr><th>{{subset}} (n={{n}})</th>{{#cells}}<td>{{percentile}}: {{waiting}} of {{total}} ({{share}})</td>{{/cells}}<td>overall {{mean_share}}</td></tr>
{{/breakdown}}
</tbody>
</table>
{{/has_breakdown}}
{{#has_time_split}}
<h3>Where a request's time goes, by the server's clock</h3>
<p>Mean time per ok request the server reported its queue and prefill for, and each part's share: the network part is the client's time to the first token beyond the server's own.</p>
<table>
<thead><tr><th>subset</th><th>n</th>{{#time_split_client_wait}}<th>client wait</th>{{/time_split_client_wait}}<th>network and front end</th><th>server queue</th><th>{{time_split_prefill}}</th><th>decode</th><th>total</th></tr></thead>
<tbody>
{{#time_split}}
<tr><td>{{subset}}</td><td>{{n}}</td>{{#time_split_client_wait}}<td>{{client_wait}}</td>{{/time_split_client_wait}}<td>{{network}}</td><td>{{server_queue}}</td><td>{{prefill}}</td><td>{{decode}}</td><td>{{total}}</td></tr>
{{/time_split}}
</tbody>
</table>
{{/has_time_split}}
{{#has_errors}}
<h3>Errors</h3>
<table>
<thead><tr><th>kind</th><th>count</th><th>share</th><th>example</th></tr></thead>
<tbody>
{{#errors}}
<tr><td>{{kind}}</td><td>{{count}}</td><td>{{share}}</td><td class="text">{{example}}</td></tr>
{{/errors}}
</tbody>
</table>
{{/has_errors}}
{{#plots}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/plots}}
{{^single_run}}</details>{{/single_run}}
{{/runs}}
<h2>How to read this report</h2>
<ul>
<li><strong>p50 / p90 / p99</strong> are the latencies that 50%, 90% and 99% of successful requests stayed under (numpy's linear method). Failed requests are counted under Errors and never enter latencies.</li>
<li><strong>e2e</strong> runs from sending a request to its last byte; <strong>ttft</strong> to the first generated token; <strong>decode</strong> is the rest; <strong>tpot</strong> is decode time per output token after the first.</li>
<li><strong>Subsets</strong> split requests by prompt length: short ≤ {{stats.options.short_max}} tokens, long ≥ {{stats.options.long_min}} tokens, medium in between. A short p99 close to the long p99 means short requests wait behind long prefills.</li>
<li><strong>CoV</strong> (std / mean) above 20% is normal for mixed workloads; compare it within a subset.</li>
<li><strong>†</strong> marks a percentile that rests on few samples: fewer than 10 requests lie beyond it (a p99 needs 1,000 requests, a p90 100, a p50 20), so the few most extreme requests set it.</li>
<li><strong>Waiting versus generating</strong> shows how much of latency passes before output starts; a large share means requests queue while capacity is busy elsewhere.</li>
<li>Numbers come from {{run_count}} log(s) and are reproducible: <code>servestat stats --json</code> gives the same values with full precision.</li>{{#inputs}}
<li>{{text}}</li>{{/inputs}}
</ul>
<p><em>Generated by {{generator}}.</em></p>
</body>
</html>
)tmpl";

// report.md.mustache
inline constexpr char builtin_template_3[] =
    R"tmpl(# {{title}}

## Summary

{{#summary}}
- {{text}}
{{/summary}}
{{#has_kpi}}

| | subset | requests | ok | req/s | output tok/s |{{#kpi_has_ttft}} TTFT p50 | TTFT p99 |{{/kpi_has_ttft}}{{#kpi_has_e2e}} e2e p50 | e2e p99 |{{/kpi_has_e2e}}{{#has_kpi_cost}} $ / 1M out |{{/has_kpi_cost}}{{#has_kpi_cost_good}} $ / 1M good out |{{/has_kpi_cost_good}}{{#has_kpi_energy}} J / out tok |{{/has_kpi_energy}}{{#has_kpi_energy_good}} J / good out tok |{{/has_kpi_energy_good}}{{#has_kpi_slo}} SLO |{{/has_kpi_slo}}
|---|---|---:|---:|---:|---:|{{#kpi_has_ttft}}---:|---:|{{/kpi_has_ttft}}{{#kpi_has_e2e}}---:|---:|{{/kpi_has_e2e}}{{#has_kpi_cost}}---:|{{/has_kpi_cost}}{{#has_kpi_cost_good}}---:|{{/has_kpi_cost_good}}{{#has_kpi_energy}}---:|{{/has_kpi_energy}}{{#has_kpi_energy_good}}---:|{{/has_kpi_energy_good}}{{#has_kpi_slo}}---|{{/has_kpi_slo}}
{{#kpi}}
| {{name}} | {{subset}} | {{requests}} | {{ok}} | {{rps}} | {{output_tps}} |{{#kpi_has_ttft}} {{ttft_p50}}{{#ttft_p50_ci}} {{ttft_p50_ci}}{{/ttft_p50_ci}}{{ttft_p50_mark}}{{ttft_p50_failed}} | {{ttft_p99}}{{#ttft_p99_ci}} {{ttft_p99_ci}}{{/ttft_p99_ci}}{{ttft_p99_mark}}{{ttft_p99_failed}} |{{/kpi_has_ttft}}{{#kpi_has_e2e}} {{e2e_p50}}{{#e2e_p50_ci}} {{e2e_p50_ci}}{{/e2e_p50_ci}}{{e2e_p50_mark}}{{e2e_p50_failed}} | {{e2e_p99}}{{#e2e_p99_ci}} {{e2e_p99_ci}}{{/e2e_p99_ci}}{{e2e_p99_mark}}{{e2e_p99_failed}} |{{/kpi_has_e2e}}{{#has_kpi_cost}} {{cost_output}}{{#cost_output_ci}} {{cost_output_ci}}{{/cost_output_ci}} |{{/has_kpi_cost}}{{#has_kpi_cost_good}} {{cost_good_output}}{{#cost_good_output_ci}} {{cost_good_output_ci}}{{/cost_good_output_ci}} |{{/has_kpi_cost_good}}{{#has_kpi_energy}} {{energy_output}}{{#energy_output_ci}} {{energy_output_ci}}{{/energy_output_ci}} |{{/has_kpi_energy}}{{#has_kpi_energy_good}} {{energy_good_output}}{{#energy_good_output_ci}} {{energy_good_output_ci}}{{/energy_good_output_ci}} |{{/has_kpi_energy_good}}{{#has_kpi_slo}} {{slo}} |{{/has_kpi_slo}}
{{/kpi}}
{{#kpi_has_subsets}}

Short and long rows count their successful requests; rates and ok % belong to the whole run.
{{/kpi_has_subsets}}
{{#kpi_interval_note}}

{{kpi_interval_note}}
{{/kpi_interval_note}}
{{#kpi_failed_note}}

{{kpi_failed_note}}
{{/kpi_failed_note}}
{{/has_kpi}}
{{#kpi_note}}

{{kpi_note}}
{{/kpi_note}}
{{#accounting}}

{{text}}
{{/accounting}}
{{#digest_few_samples}}

{{few_samples_note}}
{{/digest_few_samples}}
{{#how_read}}

## How these runs were read

{{#lines}}
- **{{heading}}**: {{text}}
{{/lines}}
{{/how_read}}

{{#has_sweep_overlays}}
## Sweeps side by side

{{#sweep_overlays}}
![{{title}}]({{file}})

{{/sweep_overlays}}
{{/has_sweep_overlays}}
{{#many_runs}}
## Runs compared

{{^runs_in_sweeps}}
| run | requests | success | req/s | output tok/s | e2e p50 | e2e p90 | e2e p99 | ttft p50 | ttft p99 |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{{#comparison}}
| {{label}} | {{requests}} | {{success_rate}} | {{rps}} | {{output_tps}} | {{e2e_p50}}{{e2e_p50_mark}} | {{e2e_p90}}{{e2e_p90_mark}} | {{e2e_p99}}{{e2e_p99_mark}} | {{ttft_p50}}{{ttft_p50_mark}} | {{ttft_p99}}{{ttft_p99_mark}} |
{{/comparison}}
{{#comparison_few_samples}}

{{few_samples_note}}
{{/comparison_few_samples}}

{{/runs_in_sweeps}}
{{#runs_in_sweeps}}
Every run belongs to a sweep below, whose table lists it by load level; here they are side by side.

{{/runs_in_sweeps}}
{{#comparison_plots}}
![{{title}}]({{file}})

{{/comparison_plots}}
{{/many_runs}}
{{#has_groups}}
{{#group_view}}
## Runs grouped by {{key}}

{{description}}
Per member: p95 and p99 of end-to-end latency over its successful requests, the median of each
request's output tokens / e2e (tokens/s as the client saw it, queueing and prefill included), and
output tok/s over its span where the log has a shared clock. Groups ranked by the median of their
members' p95 (lower first).

| rank | {{key}} | members | median p95 e2e | median p99 e2e | median tokens/s | output tok/s | p95 range | tokens/s range |
|---:|---|---:|---:|---:|---:|---:|---:|---:|
{{#rows}}
| {{rank}} | {{name}} | {{members}} | {{p95}} | {{p99}} | {{tokens_per_s}} | {{output_tps}} | {{p95_spread}} | {{tokens_spread}} |
{{/rows}}
{{#has_findings}}

Findings:
{{#findings}}
- {{text}}
{{/findings}}
{{/has_findings}}
{{#has_notes}}

Notes:
{{#notes}}
- {{text}}
{{/notes}}
{{/has_notes}}

{{#plots}}
![{{title}}]({{file}})

{{/plots}}
{{/group_view}}
{{/has_groups}}
{{#sweeps}}
## {{title}}

{{#sentence}}
{{sentence}}

{{/sentence}}
| {{param}} |{{#columns}} {{head}} |{{/columns}}
|---:|{{#columns}}---:|{{/columns}}
{{#rows}}
| {{load}} |{{#cells}} {{value}}{{#ci}} {{ci}}{{/ci}} |{{/cells}}
{{/rows}}
{{#interval_note}}

{{interval_note}}
{{/interval_note}}
{{#has_few_samples}}

{{few_samples_note}}
{{/has_few_samples}}
{{#has_replicates}}

{{replicates}}
{{/has_replicates}}

Knees (Kneedle, S = 1):
{{#knees}}
- {{text}}
{{/knees}}
{{#has_capacity}}

Largest load meeting each SLO:
{{#capacity}}
- {{text}}
{{/capacity}}
{{/has_capacity}}
{{#has_little}}

{{little}}

| {{param}} | req/s | mean e2e | in flight | of {{param}} | |
|---:|---:|---:|---:|---:|---|
{{#little_rows}}
| {{load}} | {{rps}} | {{mean_e2e}} | {{in_flight}} | {{ratio}} | {{verdict}} |
{{/little_rows}}
{{/has_little}}
{{#has_findings}}

Findings:
{{#findings}}
- {{text}}
{{/findings}}
{{/has_findings}}

{{#plots}}
![{{title}}]({{file}})

{{/plots}}
{{/sweeps}}
{{#grids}}
## {{title}}

{{rows}} values of {{row_param}} × {{columns}} values of {{column_param}}; each heatmap prints its values in the cells.
{{#has_sweet_spot}}

**{{sweet_spot}}**
{{/has_sweet_spot}}

{{#plots}}
![{{title}}]({{file}})

{{/plots}}
{{/grids}}
{{#single_run}}
{{#runs}}
## Run {{label}}

| | |
|---|---|
| source | {{source_path}} ({{source_format}}) |
| model | {{model}} |
| workload | {{workload}} |
| started | {{started_at}} |
{{#params}}
| {{name}} | {{value}} |
{{/params}}

{{#is_summary}}
This file holds only the tool's own aggregates, no per-request records: the numbers below are the
tool's, as it reported them.

{{/is_summary}}
{{#is_arrivals}}
{{#arrivals}}
**Workload trace: {{count}} arrivals over {{span}} ({{rate}}), inter-arrival CoV {{gap_cov}}.**
Prompt tokens {{prompt_tokens}}; output tokens {{output_tokens}}. Nothing was measured here: it is a
workload to replay.

{{/arrivals}}
{{/is_arrivals}}
{{#has_requests}}
{{#headline}}
**{{requests}} requests, {{success_rate}} succeeded**{{#has_rates}} over {{duration}}{{#duration_reported}} (the tool's reported duration){{/duration_reported}}: {{rps}}, {{output_tps}} output, {{total_tps}} total{{#has_peak_concurrency}}, peak concurrency {{peak_concurrency}}{{/has_peak_concurrency}}{{/has_rates}}.
End-to-end latency p50 {{e2e_p50}}{{e2e_p50_mark}}, p90 {{e2e_p90}}{{e2e_p90_mark}}, p99 {{e2e_p99}}{{e2e_p99_mark}}{{#has_ttft}}; time to first token p50 {{ttft_p50}}{{ttft_p50_mark}}, p90 {{ttft_p90}}{{ttft_p90_mark}}, p99 {{ttft_p99}}{{ttft_p99_mark}}{{/has_ttft}}.
{{^has_rates}}
(This log has per-request durations but no shared clock, so rates and concurrency cannot be derived.)
{{/has_rates}}
{{/headline}}
{{/has_requests}}
{{#has_requests}}

**Steady state:** {{steady_state_text}}
{{/has_requests}}{{#has_connections}}

**Connections:** {{connections_text}}
{{/has_connections}}{{#has_driver_cancelled}}

**Cancelled on purpose:** {{driver_cancelled_text}}
{{/has_driver_cancelled}}
{{#has_notes}}

Notes on this source:
{{#notes}}
- {{text}}
{{/notes}}
{{/has_notes}}
{{#has_skipped}}

{{skipped_text}}.
{{/has_skipped}}

{{#has_findings}}
### Findings

{{#findings}}
{{index}}. {{text}}
{{/findings}}

{{/has_findings}}
{{#has_slo}}
### Service-level objectives

| metric | subset | objective | verdict | |
|---|---|---|---|---|
{{#slo}}
| {{metric}} | {{subset}} | {{objective}} | **{{verdict}}** | {{actual}} |
{{/slo}}

{{/has_slo}}{{#has_turns}}
### Sessions turn by turn

**Prefix cache:** {{turns_text}}

| turn | requests | ok | prompt tokens p50 | cached | cacheable at most | TTFT p50 | TTFT p90 | e2e p50 | e2e p90 |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{{#turns}}
| {{turn}} | {{requests}} | {{ok}} | {{prompt_p50}} | {{cached}} | {{bound}} | {{ttft_p50}} | {{ttft_p90}} | {{e2e_p50}} | {{e2e_p90}} |
{{/turns}}

cached: the share of the turn's prompt tokens the server served from its prefix cache; cacheable at
most: the share a cache could have held (the shared system prompt once another session had sent it,
and each later turn's earlier conversation). Latencies are over successful turns.

{{/has_turns}}
{{#has_requests}}
### Latency by prompt length

{{#metric_tables}}
**{{title}}**

| subset | n | mean | std | CoV |{{#columns}} {{name}} |{{/columns}} max |
|---|---:|---:|---:|---:|{{#columns}}---:|{{/columns}}---:|
{{#rows}}
| {{subset}} | {{n}} | {{mean}} | {{std}} | {{cov}} |{{#cells}} {{value}}{{mark}} |{{/cells}} {{max}} |
{{/rows}}

{{/metric_tables}}
{{/has_requests}}
{{#has_few_samples}}
{{few_samples_note}}

{{/has_few_samples}}
{{#has_reported}}
### Reported by the tool

| value | as reported | unit |
|---|---:|---|
{{#reported}}
| {{name}} | {{value}} | {{unit}} |
{{/reported}}

{{/has_reported}}
{{#has_breakdown}}
### Waiting versus generating

Waiting here is {{breakdown_waiting}}; each cell is that percentile of waiting, of latency, and their ratio.

| subset | n |{{#breakdown}}{{#first}}{{#cells}} {{percentile}} |{{/cells}}{{/first}}{{/breakdown}} overall |
|---|---:|{{#breakdown}}{{#first}}{{#cells}}---:|{{/cells}}{{/first}}{{/breakdown}}---:|
{{#breakdown}}
| {{subset}} | {{n}} |{{#cells}} {{waiting}} of {{total}} ({{share}}) |{{/cells}} {{mean_share}} |
{{/breakdown}}

{{/has_breakdown}}
{{#has_time_split}}
### Where a request's time goes, by the server's clock

Mean time per ok request the server reported its queue and prefill for, and each part's share: the
network part is the client's time to the first token beyond the server's own.

| subset | n |{{#time_split_client_wait}} client wait |{{/time_split_client_wait}} network and front end | server queue | {{time_split_prefill}} | decode | total |
|---|---:|{{#time_split_client_wait}}---:|{{/time_split_client_wait}}---:|---:|---:|---:|---:|
{{#time_split}}
| {{subset}} | {{n}} |{{#time_split_client_wait}} {{client_wait}} |{{/time_split_client_wait}} {{network}} | {{server_queue}} | {{prefill}} | {{decode}} | {{total}} |
{{/time_split}}

{{/has_time_split}}
{{#has_errors}}
### Errors

| kind | count | share | example |
|---|---:|---:|---|
{{#errors}}
| {{kind}} | {{count}} | {{share}} | {{example}} |
{{/errors}}

{{/has_errors}}
{{#plots}}
![{{title}}]({{file}})

{{/plots}}
{{/runs}}
{{/single_run}}
{{^single_run}}
## Per-run detail

{{#run_sections_left_out}}The per-run sections and their charts are left out: {{runs}} runs are too many to read one by
one (a report gives each run a section up to {{most}} runs). The tables and charts above show every
run; report.json holds each run's statistics, and `servestat report LOG` on one log gives its
section with every table and chart.
{{/run_sections_left_out}}{{^run_sections_left_out}}Each run in brief, in the order of the tables above; `servestat report` on one log gives its full
section with every table and chart.
{{/run_sections_left_out}}

{{#runs}}
### {{label}}

{{source_path}} ({{source_format}}){{#has_params}}:{{#params}} {{name}}={{value}}{{/params}}{{/has_params}}.
{{#is_summary}}
Only the tool's own aggregates, no per-request records.
{{/is_summary}}
{{#has_requests}}
{{#headline}}
**{{requests}} requests, {{success_rate}} succeeded**{{#has_rates}}: {{rps}}, {{output_tps}} output{{/has_rates}}.
{{/headline}}
{{/has_requests}}
{{#has_steady_state}}
Steady state: {{steady_state_text}}
{{/has_steady_state}}{{#has_connections}}
Connections: {{connections_text}}
{{/has_connections}}{{#has_driver_cancelled}}
Cancelled on purpose: {{driver_cancelled_text}}
{{/has_driver_cancelled}}{{#has_turns}}
Prefix cache: {{turns_text}}
{{/has_turns}}
{{#has_notes}}
{{#notes}}
- {{text}}
{{/notes}}
{{/has_notes}}
{{#has_skipped}}
{{skipped_text}}.
{{/has_skipped}}
{{#has_requests}}

| subset | n | e2e p50 | e2e p90 | e2e p99 | TTFT p50 | TTFT p99 | TPOT p50 |
|---|---:|---:|---:|---:|---:|---:|---:|
{{#compact}}
| {{subset}} | {{n}} | {{e2e_p50}}{{e2e_p50_mark}} | {{e2e_p90}}{{e2e_p90_mark}} | {{e2e_p99}}{{e2e_p99_mark}} | {{ttft_p50}}{{ttft_p50_mark}} | {{ttft_p99}}{{ttft_p99_mark}} | {{tpot_p50}}{{tpot_p50_mark}} |
{{/compact}}
{{#has_few_samples}}

{{few_samples_note}}
{{/has_few_samples}}
{{/has_requests}}
{{#has_slo}}

Service-level objectives:{{#slo}} {{metric}} {{subset}} **{{verdict}}** ({{actual}});{{/slo}}
{{/has_slo}}
{{#has_findings}}

Findings:
{{#findings}}
- {{text}}
{{/findings}}
{{/has_findings}}
{{#has_errors}}

Errors:{{#errors}} {{kind}} {{count}} ({{share}});{{/errors}}
{{/has_errors}}

{{/runs}}
{{/single_run}}
## How to read this report

- **p50 / p90 / p99** are the latencies that 50%, 90% and 99% of successful requests stayed under
  (numpy's linear method). Failed requests are counted under Errors and never enter latencies.
- **e2e** runs from sending a request to its last byte; **ttft** to the first generated token;
  **decode** is the rest; **tpot** is decode time per output token after the first.
- **Subsets** split requests by prompt length: short ≤ {{stats.options.short_max}} tokens,
  long ≥ {{stats.options.long_min}} tokens, medium in between. A short p99 close to the long p99
  means short requests wait behind long prefills.
- **CoV** (std / mean) above 20% is normal for mixed workloads; compare it within a subset.
- **†** marks a percentile that rests on few samples: fewer than 10 requests lie beyond it (a p99
  needs 1,000 requests, a p90 100, a p50 20), so the few most extreme requests set it.
- **Waiting versus generating** shows how much of latency passes before output starts; a large
  share means requests queue while capacity is busy elsewhere.
- Numbers come from {{run_count}} log(s) and are reproducible: `servestat stats --json` gives the
  same values with full precision.{{#inputs}}
- {{text}}{{/inputs}}

_Generated by {{generator}}._
)tmpl";

// trend.html.mustache
inline constexpr char builtin_template_4[] =
    R"tmpl(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{{generator}}">
<title>{{title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1b1b1b; line-height: 1.45; }
h1 { border-bottom: 2px solid #0072B2; padding-bottom: .3rem; }
h2 { margin-top: 2.5rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .8rem 0 .6rem; font-size: .92rem; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .55rem; text-align: right; }
th:first-child, td:first-child, th:nth-child(2), td:nth-child(2) { text-align: left; }
thead th { background: #f2f5f8; }
.change { color: #555; font-size: .85rem; }
.regressed { color: #b3400c; font-weight: bold; }
.improved { color: #006d4f; font-weight: bold; }
.legend { font-size: .88rem; color: #444; }
figure { margin: 1.2rem 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
ul.summary { font-size: 1.05rem; background: #f7f9fb; border-left: 4px solid #0072B2; padding: .6rem 1rem .6rem 2rem; }
ul.summary li { margin: .3rem 0; }
td.text { text-align: left; }
table.kpi th:nth-child(-n+2), table.kpi td:nth-child(-n+2), table.kpi th:last-child { text-align: left; }
table.kpi td:first-child { white-space: nowrap; }
.ci { display: block; color: #555; font-size: .9em; }
</style>
</head>
<body>
<h1>{{title}}</h1>
<h2>Summary</h2>
<ul class="summary">
{{#summary}}
<li>{{text}}</li>
{{/summary}}
</ul>
<table class="kpi">
<thead><tr><th></th><th>subset</th><th>requests</th><th>ok</th><th>req/s</th><th>output tok/s</th><th>TTFT p50</th><th>TTFT p99</th><th>e2e p50</th><th>e2e p99</th>{{#has_kpi_cost}}<th>$ / 1M out</th>{{/has_kpi_cost}}{{#has_kpi_cost_good}}<th>$ / 1M good out</th>{{/has_kpi_cost_good}}{{#has_kpi_energy}}<th>J / out tok</th>{{/has_kpi_energy}}{{#has_kpi_energy_good}}<th>J / good out tok</th>{{/has_kpi_energy_good}}{{#has_kpi_slo}}<th>SLO</th>{{/has_kpi_slo}}</tr></thead>
<tbody>
{{#kpi}}
<tr><td class="text">{{name}}</td><td class="text">{{subset}}</td><td>{{requests}}</td><td>{{ok}}</td><td>{{rps}}</td><td>{{output_tps}}</td><td>{{ttft_p50}}{{#ttft_p50_ci}} <span class="ci">{{ttft_p50_ci}}</span>{{/ttft_p50_ci}}</td><td>{{ttft_p99}}{{#ttft_p99_ci}} <span class="ci">{{ttft_p99_ci}}</span>{{/ttft_p99_ci}}</td><td>{{e2e_p50}}{{#e2e_p50_ci}} <span class="ci">{{e2e_p50_ci}}</span>{{/e2e_p50_ci}}</td><td>{{e2e_p99}}{{#e2e_p99_ci}} <span class="ci">{{e2e_p99_ci}}</span>{{/e2e_p99_ci}}</td>{{#has_kpi_cost}}<td>{{cost_output}}{{#cost_output_ci}} <span class="ci">{{cost_output_ci}}</span>{{/cost_output_ci}}</td>{{/has_kpi_cost}}{{#has_kpi_cost_good}}<td>{{cost_good_output}}{{#cost_good_output_ci}} <span class="ci">{{cost_good_output_ci}}</span>{{/cost_good_output_ci}}</td>{{/has_kpi_cost_good}}{{#has_kpi_energy}}<td>{{energy_output}}{{#energy_output_ci}} <span class="ci">{{energy_output_ci}}</span>{{/energy_output_ci}}</td>{{/has_kpi_energy}}{{#has_kpi_energy_good}}<td>{{energy_good_output}}{{#energy_good_output_ci}} <span class="ci">{{energy_good_output_ci}}</span>{{/energy_good_output_ci}}</td>{{/has_kpi_energy_good}}{{#has_kpi_slo}}<td class="text">{{slo}}</td>{{/has_kpi_slo}}</tr>
{{/kpi}}
</tbody>
</table>
<p class="note">Short and long rows count their successful requests; rates and ok % belong to the whole run.</p>
{{#kpi_interval_note}}<p class="note">{{kpi_interval_note}}</p>{{/kpi_interval_note}}
<h2>Runs</h2>
<p>{{run_count}} runs, oldest first{{^dated}} (in the order given: some runs have no start date){{/dated}}. Each latency shows its value and, below it, its change against the previous run.</p>
<table>
<thead><tr><th>date</th><th>run</th><th>requests</th><th>success</th><th>req/s</th><th>e2e p50</th><th>e2e p99</th><th>ttft p50</th><th>ttft p99</th>{{#has_cost}}<th>{{#cost_per_good}}$ / 1M good out{{/cost_per_good}}{{^cost_per_good}}$ / 1M out{{/cost_per_good}}</th>{{/has_cost}}{{#has_energy}}<th>{{#energy_per_good}}J / good out tok{{/energy_per_good}}{{^energy_per_good}}J / out tok{{/energy_per_good}}</th>{{/has_energy}}</tr></thead>
<tbody>
{{#rows}}
<tr><td>{{date}}</td><td>{{label}}</td><td>{{requests}}</td><td>{{success}}</td>{{#rps}}<td>{{value}}{{#vs_previous}}<br><span class="change {{class}}">{{text}}</span>{{/vs_previous}}</td>{{/rps}}{{#e2e_p50}}<td>{{value}}{{#vs_previous}}<br><span class="change {{class}}">{{text}}</span>{{/vs_previous}}</td>{{/e2e_p50}}{{#e2e_p99}}<td>{{value}}{{#vs_previous}}<br><span class="change {{class}}">{{text}}</span>{{/vs_previous}}</td>{{/e2e_p99}}{{#ttft_p50}}<td>{{value}}{{#vs_previous}}<br><span class="change {{class}}">{{text}}</span>{{/vs_previous}}</td>{{/ttft_p50}}{{#ttft_p99}}<td>{{value}}{{#vs_previous}}<br><span class="change {{class}}">{{text}}</span>{{/vs_previous}}</td>{{/ttft_p99}}{{#has_cost}}<td>{{cost}}</td>{{/has_cost}}{{#has_energy}}<td>{{energy}}</td>{{/has_energy}}</tr>
{{/rows}}
</tbody>
</table>
<p class="legend"><span class="regressed">▲</span> regressed, <span class="improved">▼</span> improved: marked only where the change's {{confidence}} interval lies wholly beyond ±{{noise}} (for a mean, Mann–Whitney p &lt; {{alpha}} too); an unmarked change is not shown to be real (which is not the same as shown to be noise). req/s is one measurement per run: its change has no interval and is never marked.</p>
<h2>Against the first run ({{first_label}})</h2>
<table>
<thead><tr><th>date</th><th>run</th><th>req/s</th><th>e2e p50</th><th>e2e p99</th><th>ttft p50</th><th>ttft p99</th></tr></thead>
<tbody>
{{#rows}}
<tr><td>{{date}}</td><td>{{label}}{{#first}} (baseline){{/first}}</td>{{#rps}}<td>{{#vs_first}}<span class="{{class}}">{{text}}</span>{{/vs_first}}{{^vs_first}}–{{/vs_first}}</td>{{/rps}}{{#e2e_p50}}<td>{{#vs_first}}<span class="{{class}}">{{text}}</span>{{/vs_first}}{{^vs_first}}–{{/vs_first}}</td>{{/e2e_p50}}{{#e2e_p99}}<td>{{#vs_first}}<span class="{{class}}">{{text}}</span>{{/vs_first}}{{^vs_first}}–{{/vs_first}}</td>{{/e2e_p99}}{{#ttft_p50}}<td>{{#vs_first}}<span class="{{class}}">{{text}}</span>{{/vs_first}}{{^vs_first}}–{{/vs_first}}</td>{{/ttft_p50}}{{#ttft_p99}}<td>{{#vs_first}}<span class="{{class}}">{{text}}</span>{{/vs_first}}{{^vs_first}}–{{/vs_first}}</td>{{/ttft_p99}}</tr>
{{/rows}}
</tbody>
</table>
{{#has_time_split}}<h2>Where a request's time goes, by the server's clock</h2>
<p>Per run and subset, the mean time per ok request the server reported its queue and prefill for, and each part's share.</p>
<table>
<thead><tr><th>date</th><th>run</th><th>subset</th><th>n</th>{{#time_split_client_wait}}<th>client wait</th>{{/time_split_client_wait}}<th>network and front end</th><th>server queue</th><th>{{time_split_prefill}}</th><th>decode</th><th>total</th></tr></thead>
<tbody>
{{#time_split}}
<tr><td>{{date}}</td><td>{{label}}</td><td>{{subset}}</td><td>{{n}}</td>{{#time_split_client_wait}}<td>{{client_wait}}</td>{{/time_split_client_wait}}<td>{{network}}</td><td>{{server_queue}}</td><td>{{prefill}}</td><td>{{decode}}</td><td>{{total}}</td></tr>
{{/time_split}}
</tbody>
</table>{{/has_time_split}}
<h2>Findings</h2>
<ul>
{{#findings}}
<li>{{text}}</li>
{{/findings}}
</ul>
{{#has_plots}}
<h2>Over time</h2>
{{#plots}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/plots}}
{{/has_plots}}
{{#has_notes}}
<h2>Notes</h2>
<ul>
{{#notes}}
<li>{{text}}</li>
{{/notes}}
</ul>
{{/has_notes}}
<h2>How to read this</h2>
<ul>
<li><strong>Order</strong>: runs are ordered by their start date (<code>started_at</code>, compared in UTC whatever its time zone); dates are shown in UTC. When some run has no date, all runs keep the order they were given in.</li>
<li><strong>Against the previous run</strong> says what changed since last time; <strong>against the first run</strong> shows the drift since the baseline. Changes are relative: after / before − 1.</li>
<li><strong>▲ / ▼ only when significant</strong>: the {{confidence}} interval of the change (order statistics for percentiles, Welch's t for means) lies entirely beyond the ±{{noise}} noise band, and for a mean the Mann–Whitney U test on the whole latency distribution gives p &lt; {{alpha}} too. Otherwise the change is not significant or within noise, and it is not marked however large it looks.</li>
<li><strong>Tail percentiles need requests</strong>: with too few requests per run (about 300 for a p99 at 95%) a percentile's change is not judged at all.</li>
<li><strong>req/s</strong> is one measurement per run, so its change has no interval and is never marked; in a closed-loop test it mostly mirrors latency.</li>
<li>Every value, interval, p-value and verdict is in <code>trend.json</code>; the same logs and seed give the same report.</li>
</ul>
<p><em>Generated by {{generator}}.</em></p>
</body>
</html>
)tmpl";

// trend.md.mustache
inline constexpr char builtin_template_5[] =
    R"tmpl(# {{title}}

## Summary

{{#summary}}
- {{text}}
{{/summary}}

| | subset | requests | ok | req/s | output tok/s | TTFT p50 | TTFT p99 | e2e p50 | e2e p99 |{{#has_kpi_cost}} $ / 1M out |{{/has_kpi_cost}}{{#has_kpi_cost_good}} $ / 1M good out |{{/has_kpi_cost_good}}{{#has_kpi_energy}} J / out tok |{{/has_kpi_energy}}{{#has_kpi_energy_good}} J / good out tok |{{/has_kpi_energy_good}}{{#has_kpi_slo}} SLO |{{/has_kpi_slo}}
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|{{#has_kpi_cost}}---:|{{/has_kpi_cost}}{{#has_kpi_cost_good}}---:|{{/has_kpi_cost_good}}{{#has_kpi_energy}}---:|{{/has_kpi_energy}}{{#has_kpi_energy_good}}---:|{{/has_kpi_energy_good}}{{#has_kpi_slo}}---|{{/has_kpi_slo}}
{{#kpi}}
| {{name}} | {{subset}} | {{requests}} | {{ok}} | {{rps}} | {{output_tps}} | {{ttft_p50}}{{#ttft_p50_ci}} {{ttft_p50_ci}}{{/ttft_p50_ci}} | {{ttft_p99}}{{#ttft_p99_ci}} {{ttft_p99_ci}}{{/ttft_p99_ci}} | {{e2e_p50}}{{#e2e_p50_ci}} {{e2e_p50_ci}}{{/e2e_p50_ci}} | {{e2e_p99}}{{#e2e_p99_ci}} {{e2e_p99_ci}}{{/e2e_p99_ci}} |{{#has_kpi_cost}} {{cost_output}}{{#cost_output_ci}} {{cost_output_ci}}{{/cost_output_ci}} |{{/has_kpi_cost}}{{#has_kpi_cost_good}} {{cost_good_output}}{{#cost_good_output_ci}} {{cost_good_output_ci}}{{/cost_good_output_ci}} |{{/has_kpi_cost_good}}{{#has_kpi_energy}} {{energy_output}}{{#energy_output_ci}} {{energy_output_ci}}{{/energy_output_ci}} |{{/has_kpi_energy}}{{#has_kpi_energy_good}} {{energy_good_output}}{{#energy_good_output_ci}} {{energy_good_output_ci}}{{/energy_good_output_ci}} |{{/has_kpi_energy_good}}{{#has_kpi_slo}} {{slo}} |{{/has_kpi_slo}}
{{/kpi}}

Short and long rows count their successful requests; rates and ok % belong to the whole run.
{{#kpi_interval_note}}

{{kpi_interval_note}}
{{/kpi_interval_note}}

## Runs

{{run_count}} runs, oldest first{{^dated}} (in the order given: some runs have no start date){{/dated}}. Each latency shows its value and, in brackets, its change against the previous run.

| date | run | requests | success | req/s | e2e p50 | e2e p99 | ttft p50 | ttft p99 |{{#has_cost}} {{#cost_per_good}}$ / 1M good out{{/cost_per_good}}{{^cost_per_good}}$ / 1M out{{/cost_per_good}} |{{/has_cost}}{{#has_energy}} {{#energy_per_good}}J / good out tok{{/energy_per_good}}{{^energy_per_good}}J / out tok{{/energy_per_good}} |{{/has_energy}}
|---|---|---:|---:|---:|---:|---:|---:|---:|{{#has_cost}}---:|{{/has_cost}}{{#has_energy}}---:|{{/has_energy}}
{{#rows}}
| {{date}} | {{label}} | {{requests}} | {{success}} |{{#rps}} {{value}}{{#vs_previous}} ({{text}}){{/vs_previous}}{{/rps}} |{{#e2e_p50}} {{value}}{{#vs_previous}} ({{text}}){{/vs_previous}}{{/e2e_p50}} |{{#e2e_p99}} {{value}}{{#vs_previous}} ({{text}}){{/vs_previous}}{{/e2e_p99}} |{{#ttft_p50}} {{value}}{{#vs_previous}} ({{text}}){{/vs_previous}}{{/ttft_p50}} |{{#ttft_p99}} {{value}}{{#vs_previous}} ({{text}}){{/vs_previous}}{{/ttft_p99}} |{{#has_cost}} {{cost}} |{{/has_cost}}{{#has_energy}} {{energy}} |{{/has_energy}}
{{/rows}}

▲ regressed, ▼ improved: marked only where the change's {{confidence}} interval lies wholly beyond
±{{noise}} (for a mean, Mann–Whitney p < {{alpha}} too); an unmarked change is not shown to be real (which is not the same as shown to be noise). req/s is one
measurement per run: its change has no interval and is never marked.

## Against the first run ({{first_label}})

| date | run | req/s | e2e p50 | e2e p99 | ttft p50 | ttft p99 |
|---|---|---:|---:|---:|---:|---:|
{{#rows}}
| {{date}} | {{label}}{{#first}} (baseline){{/first}} |{{#rps}} {{#vs_first}}{{text}}{{/vs_first}}{{^vs_first}}–{{/vs_first}}{{/rps}} |{{#e2e_p50}} {{#vs_first}}{{text}}{{/vs_first}}{{^vs_first}}–{{/vs_first}}{{/e2e_p50}} |{{#e2e_p99}} {{#vs_first}}{{text}}{{/vs_first}}{{^vs_first}}–{{/vs_first}}{{/e2e_p99}} |{{#ttft_p50}} {{#vs_first}}{{text}}{{/vs_first}}{{^vs_first}}–{{/vs_first}}{{/ttft_p50}} |{{#ttft_p99}} {{#vs_first}}{{text}}{{/vs_first}}{{^vs_first}}–{{/vs_first}}{{/ttft_p99}} |
{{/rows}}
{{#has_time_split}}

## Where a request's time goes, by the server's clock

Per run and subset, the mean time per ok request the server reported its queue and prefill for,
and each part's share.

| date | run | subset | n |{{#time_split_client_wait}} client wait |{{/time_split_client_wait}} network and front end | server queue | {{time_split_prefill}} | decode | total |
|---|---|---|---:|{{#time_split_client_wait}}---:|{{/time_split_client_wait}}---:|---:|---:|---:|---:|
{{#time_split}}
| {{date}} | {{label}} | {{subset}} | {{n}} |{{#time_split_client_wait}} {{client_wait}} |{{/time_split_client_wait}} {{network}} | {{server_queue}} | {{prefill}} | {{decode}} | {{total}} |
{{/time_split}}

{{/has_time_split}}
## Findings

{{#findings}}
- {{text}}
{{/findings}}

{{#has_plots}}
## Over time

{{#plots}}
![{{title}}]({{file}})

{{/plots}}
{{/has_plots}}{{#has_notes}}
## Notes

{{#notes}}
- {{text}}
{{/notes}}

{{/has_notes}}
## How to read this

- **Order**: runs are ordered by their start date (`started_at`, compared in UTC whatever its time zone);
  dates are shown in UTC. When some run has no date, all runs keep the order they were given in.
- **Against the previous run** says what changed since last time; **against the first run** shows the
  drift since the baseline. Changes are relative: after / before − 1.
- **▲ / ▼ only when significant**: the {{confidence}} interval of the change (order statistics for
  percentiles, Welch's t for means) lies entirely beyond the ±{{noise}} noise band, and for a mean the
  Mann–Whitney U test on the whole latency distribution gives p < {{alpha}} too. Otherwise the change is not significant or
  within noise, and it is not marked however large it looks.
- **Tail percentiles need requests**: with too few requests per run (about 300 for a p99 at 95%) a
  percentile's change is not judged at all.
- **req/s** is one measurement per run, so its change has no interval and is never marked; in a
  closed-loop test it mostly mirrors latency.
- Every value, interval, p-value and verdict is in `trend.json`; the same logs and seed give the same report.

_Generated by {{generator}}._
)tmpl";

// tune.html.mustache
inline constexpr char builtin_template_6[] =
    R"tmpl(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1b1b1b; line-height: 1.45; }
h1 { border-bottom: 2px solid #0072B2; padding-bottom: .3rem; }
h2 { margin-top: 2.5rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .8rem 0 1.4rem; font-size: .92rem; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .55rem; text-align: right; vertical-align: top; }
th:first-child, td:first-child, th.text { text-align: left; }
td.text { text-align: left; max-width: 40rem; overflow-wrap: anywhere; }
thead th { background: #f2f5f8; }
.answer { font-size: 1.05rem; background: #f7f9fb; border-left: 4px solid #0072B2; padding: .6rem 1rem; }
.answer p { margin: .4rem 0; }
td.best { font-weight: bold; }
td.number, td.status { white-space: nowrap; }
td.infeasible { color: #9c2a0e; }
details { margin: .6rem 0; }
summary { cursor: pointer; font-weight: bold; }
pre { background: #f5f5f5; border: 1px solid #ddd; padding: .5rem; overflow-x: auto; font-size: .85rem; white-space: pre-wrap; }
figure { margin: 1.2rem 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
.note { color: #444; }
</style>
</head>
<body>
<h1>{{title}}</h1>
<h2>Recommendation</h2>
<div class="answer">
{{#answer}}
<p>{{#parts}}{{#bold}}<strong>{{text}}</strong>{{/bold}}{{^bold}}{{text}}{{/bold}}{{/parts}}</p>
{{/answer}}
</div>
<p>{{slo_line}}</p>
<p>{{search_line}}</p>
{{#has_prompt_costs}}
{{#prompt_costs}}
<h2>What short and long prompts pay</h2>
<p>{{note}}</p>
<table>
<thead><tr><th>role</th><th class="text">configuration</th><th>short n</th><th>short TTFT p95</th><th>short e2e p95</th><th>long n</th><th>long TTFT p95</th><th>long e2e p95</th></tr></thead>
<tbody>
{{#rows}}
<tr><td>{{role}}</td><td class="text">{{configuration}}</td><td>{{short_n}}</td><td>{{short_ttft}}</td><td>{{short_e2e}}</td><td>{{long_n}}</td><td>{{long_ttft}}</td><td>{{long_e2e}}</td></tr>
{{/rows}}
</tbody>
</table>
{{#has_sentence}}<p>{{sentence}}</p>{{/has_sentence}}
{{/prompt_costs}}
{{/has_prompt_costs}}
<h2>The objective over the space</h2>
{{#space_plots}}
<figure>{{{svg}}}<figcaption>{{title}}{{#caption}}. {{caption}}{{/caption}}</figcaption></figure>
{{/space_plots}}
<p class="note">Each measured configuration's {{objective_label}} with its {{confidence}} CI, its runs combined; ✗ infeasible; an empty cell was not measured.{{#has_space_note}} {{space_note}}{{/has_space_note}}</p>
{{#space_table}}
<table>
<thead><tr>{{#header}}<th>{{text}}</th>{{/header}}</tr></thead>
<tbody>
{{#rows}}
<tr><th>{{name}}</th>{{#cells}}<td class="number{{#bold}} best{{/bold}}">{{text}}</td>{{/cells}}</tr>
{{/rows}}
</tbody>
</table>
{{/space_table}}
{{#has_curves}}
<h2>The leaders' curves</h2>
<p>{{leaders_caption}}</p>
{{#curve_plots}}
<figure>{{{svg}}}<figcaption>{{title}}</figcaption></figure>
{{/curve_plots}}
{{/has_curves}}
<h2>Every configuration measured</h2>
<p>{{measured_count}} configurations, the best first, then kept, dropped and infeasible ones.</p>
<table>
<thead><tr><th>configuration</th><th>status</th><th>runs</th><th>{{objective_label}} (CI)</th><th class="text">reason</th></tr></thead>
<tbody>
{{#configurations}}
<tr><td class="text">{{configuration}}{{#start}} (start){{/start}}</td><td class="status {{status}}">{{status}}</td><td>{{runs}}</td><td class="number">{{value}}</td><td class="text">{{reason}}{{#logs}}<details><summary>The end of its server log ({{file}})</summary><pre>{{tail}}</pre></details>{{/logs}}</td></tr>
{{/configurations}}
</tbody>
</table>
{{#has_decisions}}
<h2>How the search went</h2>
<details>
<summary>{{decision_count}} decisions, in order</summary>
<table>
<thead><tr><th>#</th><th class="text">configuration</th><th class="text">step</th><th class="text">reason</th></tr></thead>
<tbody>
{{#decisions}}
<tr><td>{{order}}</td><td class="text">{{configuration}}</td><td class="text">{{step}}</td><td class="text">{{reason}}</td></tr>
{{/decisions}}
</tbody>
</table>
</details>
{{/has_decisions}}
<h2>How to read this</h2>
<ul>
{{#notes}}
<li><strong>{{heading}}</strong>: {{text}}</li>
{{/notes}}
</ul>
</body>
</html>
)tmpl";

// tune.md.mustache
inline constexpr char builtin_template_7[] =
    R"tmpl(# {{title}}

## Recommendation

{{#answer}}
{{#parts}}{{#bold}}**{{text}}**{{/bold}}{{^bold}}{{text}}{{/bold}}{{/parts}}

{{/answer}}
{{slo_line}}

{{search_line}}

{{#has_prompt_costs}}
{{#prompt_costs}}
## What short and long prompts pay

{{note}}

| role | configuration | short n | short TTFT p95 | short e2e p95 | long n | long TTFT p95 | long e2e p95 |
|---|---|---:|---:|---:|---:|---:|---:|
{{#rows}}
| {{role}} | {{configuration}} | {{short_n}} | {{short_ttft}} | {{short_e2e}} | {{long_n}} | {{long_ttft}} | {{long_e2e}} |
{{/rows}}
{{#has_sentence}}

{{sentence}}
{{/has_sentence}}

{{/prompt_costs}}
{{/has_prompt_costs}}
## The objective over the space

{{#space_plots}}
![{{title}}]({{file}})

{{/space_plots}}
Each measured configuration's {{objective_label}} with its {{confidence}} CI, its runs combined; ✗ infeasible; an empty cell was not measured.{{#has_space_note}} {{space_note}}{{/has_space_note}}

{{#space_table}}
|{{#header}} {{text}} |{{/header}}
|{{#header}}---|{{/header}}
{{#rows}}
| {{name}} |{{#cells}} {{#bold}}**{{text}}**{{/bold}}{{^bold}}{{text}}{{/bold}} |{{/cells}}
{{/rows}}
{{/space_table}}

{{#has_curves}}
## The leaders' curves

{{leaders_caption}}

{{#curve_plots}}
![{{title}}]({{file}})

{{/curve_plots}}
{{/has_curves}}
## Every configuration measured

{{measured_count}} configurations, the best first, then kept, dropped and infeasible ones.

| configuration | status | runs | {{objective_label}} (CI) | reason |
|---|---|---:|---:|---|
{{#configurations}}
| {{configuration}}{{#start}} (start){{/start}} | {{status}} | {{runs}} | {{value}} | {{reason}} |
{{/configurations}}

{{#has_infeasible_logs}}
### Why the infeasible ones failed

{{#infeasible_logs}}
**{{configuration}}**: {{why}}. The end of its server log ({{file}}):

{{{fence}}}
{{{tail}}}
{{{fence}}}

{{/infeasible_logs}}
{{/has_infeasible_logs}}
{{#has_decisions}}
## How the search went

{{#decisions}}
{{order}}. **{{configuration}}** ({{step}}): {{reason}}
{{/decisions}}

{{/has_decisions}}
## How to read this

{{#notes}}
- **{{heading}}**: {{text}}
{{/notes}}
)tmpl";

} // namespace detail

// Sorted by name.
inline constexpr std::array<builtin_template, 8> builtin_templates{{
    builtin_template{"compare.html", {detail::builtin_template_0, sizeof(detail::builtin_template_0) - 1}},
    builtin_template{"compare.md", {detail::builtin_template_1, sizeof(detail::builtin_template_1) - 1}},
    builtin_template{"report.html", {detail::builtin_template_2, sizeof(detail::builtin_template_2) - 1}},
    builtin_template{"report.md", {detail::builtin_template_3, sizeof(detail::builtin_template_3) - 1}},
    builtin_template{"trend.html", {detail::builtin_template_4, sizeof(detail::builtin_template_4) - 1}},
    builtin_template{"trend.md", {detail::builtin_template_5, sizeof(detail::builtin_template_5) - 1}},
    builtin_template{"tune.html", {detail::builtin_template_6, sizeof(detail::builtin_template_6) - 1}},
    builtin_template{"tune.md", {detail::builtin_template_7, sizeof(detail::builtin_template_7) - 1}},
}};

// The built-in template called `name`, or nullptr.
constexpr const builtin_template* find_builtin_template(std::string_view name) noexcept {
    for (const auto& t : builtin_templates)
        if (t.name == name) return &t;
    return nullptr;
}

} // namespace servestat
