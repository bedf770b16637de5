// `servestat workload`: a request file in the notebook's JSONL format, mixed by ratio from bucketed
// prompts (or synthetic prompts of exact lengths), deterministic under a seed.
#pragma once

#include <algorithm>  // std::sort
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::uint64_t
#include <exception>  // std::exception
#include <fstream>    // std::ofstream
#include <functional> // std::function
#include <iostream>   // std::cout
#include <string>     // std::string
#include <vector>     // std::vector

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/core/errors.hpp>         // input_error, usage_error
#include <servestat/core/visible_controls.hpp> // write_terminal
#include <servestat/load/distribution.hpp>  // distribution
#include <servestat/load/session.hpp>       // make_sessions, session_json_line
#include <servestat/load/token_counter.hpp> // token_counter, heuristic_token_counter
#include <servestat/load/workload.hpp>      // mixes, buckets, synthetic prompts, write_workload
#include <servestat/stats/quantile.hpp>     // percentile_sorted

namespace servestat::cli {

struct workload_args {
    std::string preset; // --preset, or
    std::string mix;    // --mix short=0.7,medium=0.2,long=0.1
    std::size_t requests = 400; // the notebook's TOTAL_REQS_PER_FILE
    std::vector<std::string> prompt_files;
    std::vector<std::string> buckets; // NAME=MIN:MAX overrides
    std::int32_t max_tokens = 128;
    double temperature = 0.0;
    std::uint64_t seed = 999; // the notebook's SEED
    std::string output;       // empty: stdout
    // Token counts from the server's /tokenize when --url is given (the lead's HTTP client).
    std::string url, model, api_key;
    // Multi-turn sessions (load/session.hpp) instead of single requests.
    std::size_t sessions = 0;
    std::string turns = "3", think_time = "0", context_tokens = "0", turn_tokens = "uniform:8:24";
    std::int32_t shared_prefix_tokens = 0;
};

// Builds a counter on the server's /tokenize from --url (and --model, --api-key). Supplied by the
// part of the tool that has an HTTP client; it throws when the server cannot be used, and the
// command then falls back to the heuristic with a warning.
using token_counter_factory = std::function<load::token_counter(const workload_args&)>;

inline void add_workload_options(CLI::App& cmd, workload_args& a) {
    std::string presets;
    for (const auto& p : load::mix_presets()) presets.append(presets.empty() ? "" : ", ").append(p.name);
    auto* preset = cmd.add_option("--preset", a.preset, "The notebook's mixes: " + presets);
    auto* mix = cmd.add_option("--mix", a.mix, "Ratios per bucket, e.g. short=0.7,medium=0.2,long=0.1 (long left out "
                                               "takes the rest)");
    preset->excludes(mix);
    cmd.add_option("-n,--requests", a.requests, "Requests in the file")->check(CLI::PositiveNumber)->capture_default_str();
    cmd.add_option("--sessions", a.sessions, "Write this many multi-turn sessions instead of single requests "
                                             "(the options below; --max-tokens per turn)")
        ->check(CLI::PositiveNumber);
    cmd.add_option("--turns", a.turns, "Sessions: turns per session, a number or a distribution (uniform:2:5, "
                                       "exponential:MEAN, normal:MEAN:SD)")
        ->capture_default_str();
    cmd.add_option("--think-time", a.think_time, "Sessions: seconds the user waits after a reply before the next turn")
        ->capture_default_str();
    cmd.add_option("--shared-prefix-tokens", a.shared_prefix_tokens, "Sessions: tokens of one system prompt every "
                                                                     "session shares")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd.add_option("--context-tokens", a.context_tokens, "Sessions: tokens of each session's own context, before its "
                                                         "first message")
        ->capture_default_str();
    cmd.add_option("--turn-tokens", a.turn_tokens, "Sessions: tokens of each user message")->capture_default_str();
    cmd.add_option("--prompts", a.prompt_files,
                   "Prompt files to bucket by token count: *.txt (one prompt per line), a JSON array of strings, or "
                   "JSONL of strings or objects with messages (first user message), prompt or text. A needed bucket "
                   "with no prompt in range is composed from the others like the notebook's long bucket. None: "
                   "synthetic filler prompts of exact lengths");
    cmd.add_option("--bucket", a.buckets, "Token range of a bucket, inclusive, by the text alone (no chat template): "
                                          "short=8:24, medium=128:256, long=2048:4096 by default");
    cmd.add_option("--max-tokens", a.max_tokens, "max_tokens of every request")->check(CLI::PositiveNumber)->capture_default_str();
    cmd.add_option("--temperature", a.temperature, "temperature of every request")->check(CLI::NonNegativeNumber)->capture_default_str();
    cmd.add_option("--seed", a.seed, "Seed of the sampling, the order and the synthetic text")->capture_default_str();
    cmd.add_option("-o,--output", a.output, "Output JSONL file (default: standard output)");
    cmd.add_option("--url", a.url, "Server to count tokens with (its /tokenize, e.g. vllm serve); without it, or when "
                                   "it cannot be reached, the simulator's heuristic (docs/simulator.md), exact against "
                                   "servestat simulate and an estimate for real models");
    cmd.add_option("--model", a.model, "Model name for /tokenize (default: the server's first)");
    cmd.add_option("--api-key", a.api_key, "Bearer token for --url");
}

namespace detail {

inline load::token_counter workload_counter(const workload_args& a, const token_counter_factory& server_counter) {
    if (a.url.empty()) return load::heuristic_token_counter();
    if (!server_counter) throw usage_error("--url: this build has no HTTP client to reach /tokenize");
    try {
        return server_counter(a);
    } catch (const std::exception& e) {
        write_terminal(stderr, fmt::format("servestat workload: warning: cannot count tokens with {}/tokenize ({}); using "
                                           "the heuristic, so bucket edges are estimates\n",
                                           a.url, e.what()));
        return load::heuristic_token_counter();
    }
}

inline std::string workload_bucket_line(std::size_t bucket, const load::mix_result& m, const load::token_range& range,
                                        std::size_t available, bool synthetic) {
    std::vector<double> tokens;
    for (const auto& p : m.prompts)
        if (p.bucket == bucket) tokens.push_back(p.tokens);
    std::string out = fmt::format("  {:<7} {:>6}", load::bucket_names[bucket], tokens.size());
    if (!tokens.empty()) {
        std::sort(tokens.begin(), tokens.end());
        out += fmt::format("  tokens min {:g} p50 {:g} max {:g}", tokens.front(), percentile_sorted(tokens, 50),
                           tokens.back());
    }
    out += fmt::format("  (range {}-{}, {})\n", range.min, range.max,
                       synthetic ? std::string("synthetic") : fmt::format("{} prompts to draw from", available));
    return out;
}

} // namespace detail

namespace detail {

template <class Write>
void write_output(const std::string& file, Write&& write) {
    if (file.empty()) {
        write(std::cout);
        std::cout.flush();
        return;
    }
    std::ofstream out(file, std::ios::binary);
    if (!out) throw input_error(file, 0, "", "cannot write the file");
    write(out);
    out.close();
    if (!out) throw input_error(file, 0, "", "writing failed");
}

inline int write_sessions(const workload_args& a, const load::token_counter& counter) {
    if (!a.preset.empty() || !a.mix.empty() || !a.prompt_files.empty())
        throw usage_error("--sessions writes synthetic conversations: not with --preset, --mix or --prompts");
    load::session_spec spec;
    spec.sessions = a.sessions;
    spec.turns = load::distribution::parse(a.turns, "--turns");
    spec.think_time = load::distribution::parse(a.think_time, "--think-time");
    spec.context_tokens = load::distribution::parse(a.context_tokens, "--context-tokens");
    spec.turn_tokens = load::distribution::parse(a.turn_tokens, "--turn-tokens");
    spec.shared_prefix_tokens = a.shared_prefix_tokens;
    spec.max_tokens = a.max_tokens;
    const auto sessions = load::make_sessions(spec, counter, a.seed);
    write_output(a.output, [&](std::ostream& out) {
        for (const auto& s : sessions) out << load::session_json_line(s) << '\n';
    });
    std::vector<double> turns;
    for (const auto& s : sessions) turns.push_back(static_cast<double>(s.turns.size()));
    std::sort(turns.begin(), turns.end());
    double total = 0;
    for (double t : turns) total += t;
    write_terminal(stderr, fmt::format("workload: {} sessions, {:g} turns (per session min {:g} p50 {:g} max {:g}), shared "
                                       "system prompt {} tokens, context {}, user messages {} tokens, think time {} s, "
                                       "seed {}, token counts: {}{}\n",
                                       sessions.size(), total, turns.front(), percentile_sorted(turns, 50), turns.back(),
                                       a.shared_prefix_tokens, a.context_tokens, a.turn_tokens, a.think_time, a.seed,
                                       counter.source, a.output.empty() ? "" : ", written to " + a.output));
    return 0;
}

} // namespace detail

// Writes the workload, and a summary on stderr. Throws usage_error and input_error.
inline int run_workload_command(const workload_args& a, const token_counter_factory& server_counter = {}) {
    if (a.sessions > 0) return detail::write_sessions(a, detail::workload_counter(a, server_counter));
    if (a.preset.empty() && a.mix.empty()) throw usage_error("give --preset NAME or --mix short=R,medium=R,long=R");
    if (a.preset.find('=') != std::string::npos) throw usage_error("--preset takes a name; give ratios with --mix");
    const load::mix_spec spec = a.preset.empty() ? load::parse_mix(a.mix) : load::resolve_mix(a.preset);
    load::bucket_ranges ranges = load::default_bucket_ranges;
    for (const auto& b : a.buckets) load::apply_bucket_override(ranges, b);
    load::validate(ranges);
    const auto counts = load::mix_counts(a.requests, spec);
    const load::token_counter counter = detail::workload_counter(a, server_counter);

    const bool synthetic = a.prompt_files.empty();
    load::prompt_buckets buckets;
    if (synthetic) {
        buckets = load::synthetic_buckets(counts, ranges, counter, a.seed);
    } else {
        std::vector<std::string> texts;
        for (const auto& file : a.prompt_files)
            for (auto& t : load::read_prompt_texts(file)) texts.push_back(std::move(t));
        buckets = load::bucket_prompts(std::move(texts), ranges, counter);
        for (std::size_t i = 0; i < load::bucket_count; ++i)
            if (counts[i] > 0 && buckets.buckets[i].empty())
                load::compose_bucket(buckets, i, counts[i], ranges[i], counter, a.seed);
    }
    std::array<std::size_t, load::bucket_count> available{};
    for (std::size_t i = 0; i < load::bucket_count; ++i) available[i] = buckets.buckets[i].size();
    const load::mix_result mixed = load::make_mix(a.requests, spec, buckets, a.seed);

    std::vector<load::workload_row> rows;
    rows.reserve(mixed.prompts.size());
    for (const auto& p : mixed.prompts) rows.push_back(load::chat_row(p.text, a.max_tokens, a.temperature));
    detail::write_output(a.output, [&](std::ostream& out) { load::write_workload(out, rows); });

    std::string summary = fmt::format("workload: {} requests, {}, seed {}, token counts: {}{}\n", rows.size(), spec.name,
                                      a.seed, counter.source, a.output.empty() ? "" : ", written to " + a.output);
    for (std::size_t i = 0; i < load::bucket_count; ++i)
        if (counts[i] > 0) summary += detail::workload_bucket_line(i, mixed, ranges[i], available[i], synthetic);
    if (!synthetic && !buckets.others.empty())
        summary += fmt::format("  {} prompt(s) in no bucket's range were left out\n", buckets.others.size());
    for (const auto& note : mixed.notes) summary += fmt::format("  note: {}\n", note);
    write_terminal(stderr, summary);
    return 0;
}

} // namespace servestat::cli
