// Reader for GenAI-Perf's per-request file, artifacts/<run>/profile_export.json, which
// perf_analyzer writes (src/profile_data_exporter.cc) and GenAI-Perf computes its metrics from:
//   {"experiments":[{"experiment":{"mode":"concurrency"|"request_rate","value":N},
//                    "requests":[{"timestamp": epoch ns, "sequence_id"?,
//                                 "request_inputs":{"payload":"<the request's JSON, as a string>"},
//                                 "response_timestamps":[epoch ns, ...],
//                                 "response_outputs":[{"response":"data: {...}\n\n"}, ...]}],
//                    "window_boundaries":[ns, ...]}],
//    "version":"...", "service_kind":"openai"|"triton", "endpoint":"v1/chat/completions"}
// One run per experiment. Responses are raw server-sent events (or, unstreamed, one whole JSON
// body); each is parsed to tell content from role-only chunks, usage chunks and [DONE], because
// servestat's ttft and end count only responses that carry content (as GenAI-Perf does after it
// drops empty responses). Token counts come only from the server's usage block: GenAI-Perf counts
// tokens with its own tokenizer, which a reader cannot repeat, so without usage they are absent.
// Failed requests appear as a response whose body is an error object (an HTTP error answered as
// JSON, or an SSE "event: error"), or as a request with no response at all.
#pragma once

#include <algorithm>   // std::min_element, std::all_of
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run
#include "servestat/core/iso_time.hpp"      // iso_utc
#include "servestat/ingest/csv.hpp"           // quote_cell
#include "servestat/ingest/failure_text.hpp"  // classify_failure_text
#include "servestat/ingest/genai_perf_summary.hpp" // genai_summary_beside, read_genai_summary_file, ...
#include "servestat/ingest/json_document.hpp" // read_json_documents, json_place, json_require, ...
#include "servestat/ingest/nvidia_export.hpp" // nvidia_epoch_ns, nvidia_run_label, nvidia_member
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view genai_perf_name = "genai-perf";

// What one response says once its events are parsed.
struct genai_response {
    bool content = false;    // generated text (answer or reasoning) or a tool call
    bool whole_body = false; // one JSON body instead of events: the request was not streamed
    std::optional<std::int32_t> prompt_tokens, completion_tokens;
    std::optional<std::string> error;
    std::optional<std::int32_t> error_status;
};

inline std::string_view genai_trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

inline bool genai_nonempty_string(const nlohmann::json* v) {
    return v && v->is_string() && !v->get_ref<const std::string&>().empty();
}

// An OpenAI delta (streamed) or message (whole): reasoning and tool calls are generated tokens too.
inline bool genai_message_has_content(const nlohmann::json& message) {
    for (const std::string_view key : {"content", "reasoning_content", "reasoning"})
        if (genai_nonempty_string(json_member(message, key))) return true;
    const auto* tools = json_member(message, "tool_calls");
    return tools && tools->is_array() && !tools->empty();
}

// OpenAI: {"error":{"message","type","code"}}; vLLM: {"object":"error","message","type","code"}.
inline void read_genai_error_body(const nlohmann::json& body, genai_response& out) {
    const auto* inner = json_member(body, "error");
    const nlohmann::json& error = inner && inner->is_object() ? *inner : body;
    if (const auto* message = json_member(error, "message"); message && message->is_string())
        out.error = message->get<std::string>();
    else if (inner && inner->is_string())
        out.error = inner->get<std::string>();
    else
        out.error = body.dump();
    if (const auto* code = json_member(error, "code"); code && code->is_number_integer()) {
        const auto status = code->get<std::int64_t>();
        if (status >= 100 && status <= 599) out.error_status = static_cast<std::int32_t>(status);
    }
}

inline bool genai_is_error_body(const nlohmann::json& body) {
    const auto* error = json_member(body, "error");
    const auto* object = json_member(body, "object");
    return (error && !error->is_null()) || (object && object->is_string() && object->get_ref<const std::string&>() == "error");
}

// `path` names the response string; fields inside its JSON are appended to it.
inline void read_genai_body(const nlohmann::json& body, bool error_event, const json_place& place, const std::string& path,
                            genai_response& out) {
    if (!body.is_object()) place.fail(path, std::string("expected a JSON object in the response, got ") + body.type_name());
    if (error_event || genai_is_error_body(body)) {
        read_genai_error_body(body, out);
        return;
    }
    if (genai_nonempty_string(json_member(body, "text_output"))) out.content = true; // Triton's generate endpoint
    if (const auto* choices = json_member(body, "choices"); choices && choices->is_array() && !choices->empty()) {
        const auto& choice = (*choices)[0];
        for (const std::string_view key : {"delta", "message"})
            if (const auto* m = json_member(choice, key); m && m->is_object() && genai_message_has_content(*m))
                out.content = true;
        if (genai_nonempty_string(json_member(choice, "text"))) out.content = true; // completions endpoint
    }
    if (const auto* usage = nvidia_member(body, "usage")) {
        const std::string usage_path = json_path(path, "usage");
        json_object(*usage, place, usage_path);
        if (const auto n = json_optional_count(json_member(*usage, "prompt_tokens"), place, json_path(usage_path, "prompt_tokens")))
            out.prompt_tokens = n;
        if (const auto n = json_optional_count(json_member(*usage, "completion_tokens"), place,
                                               json_path(usage_path, "completion_tokens")))
            out.completion_tokens = n;
    }
}

inline void dispatch_genai_event(std::string_view data, bool error_event, const json_place& place, const std::string& path,
                                 genai_response& out) {
    data = genai_trim(data);
    if ((data.empty() && !error_event) || data == "[DONE]") return;
    const auto body = parse_embedded_json(data);
    if (body.is_discarded()) {
        if (error_event) {
            out.error = std::string(data);
            return;
        }
        place.fail(path, "malformed JSON in a server-sent event: " + quote_cell(data));
    }
    read_genai_body(body, error_event, place, path, out);
}

inline bool genai_starts_sse_field(std::string_view text) {
    text = genai_trim(text);
    for (const std::string_view field : {"data:", "event:", "id:", "retry:", ":"})
        if (text.starts_with(field)) return true;
    return false;
}

// One response: a whole JSON body, or server-sent events ("data:" lines, "event: error", comments).
inline genai_response parse_genai_response(std::string_view text, const json_place& place, const std::string& path) {
    genai_response out;
    const std::string_view trimmed = genai_trim(text);
    if (trimmed.empty()) return out;
    if (trimmed.front() == '{') {
        out.whole_body = true;
        const auto body = parse_embedded_json(trimmed);
        if (body.is_discarded()) place.fail(path, "malformed JSON response: " + quote_cell(trimmed));
        read_genai_body(body, false, place, path, out);
        return out;
    }
    // Neither JSON nor events: a plain-text error page ("Internal Server Error") fails the request.
    if (!genai_starts_sse_field(trimmed)) {
        out.error = std::string(trimmed.substr(0, 500));
        return out;
    }
    std::string data;
    bool error_event = false;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (line.empty()) { // an event ends at a blank line
            dispatch_genai_event(data, error_event, place, path, out);
            data.clear();
            error_event = false;
            continue;
        }
        if (line.front() == ':') continue; // comment
        const auto colon = line.find(':');
        const std::string_view field = line.substr(0, colon);
        std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
        if (value.starts_with(' ')) value.remove_prefix(1);
        if (field == "data") {
            if (!data.empty()) data.push_back('\n');
            data.append(value);
        } else if (field == "event") {
            error_event = value == "error";
        } else if (field != "id" && field != "retry") {
            place.fail(path, "not a server-sent event line: " + quote_cell(line));
        }
    }
    dispatch_genai_event(data, error_event, place, path, out);
    return out;
}

// perf_analyzer passes on what curl delivered, which may cut one event across two responses:
// like GenAI-Perf, the piece before the next "data:" is glued to the response before it (whose
// timestamp the whole event then keeps).
inline void genai_join_split_events(std::vector<std::string>& texts) {
    for (std::size_t i = texts.size(); i-- > 1;) {
        const std::string_view text = texts[i];
        // A whole JSON body after a stream is the server's error, not the rest of an event.
        if (genai_trim(text).empty() || genai_starts_sse_field(text) || genai_trim(text).starts_with('{')) continue;
        if (texts[i - 1].find("data:") == std::string::npos) continue; // not a stream: the parser will judge it
        const auto next_event = text.find("data:");
        if (next_event == std::string_view::npos) {
            texts[i - 1] += texts[i];
            texts[i].clear();
        } else {
            texts[i - 1].append(text.substr(0, next_event));
            texts[i] = std::string(text.substr(next_event));
        }
    }
}

// One request before the experiment's clock is known (times stay epoch ns).
struct genai_request {
    request_record record;
    std::int64_t start_ns = 0;
    std::optional<std::int64_t> first_ns, end_ns;
    bool streamed = true;
    bool no_response = false, no_content = false;
};

// What the requests tell about their run.
struct genai_run_facts {
    std::string model;
    std::optional<bool> stream;
};

// The payload is the request as sent: it gives the model, max_tokens and whether it streamed.
// Payloads that are not JSON (Triton's tensors) give nothing.
inline void read_genai_payload(const nlohmann::json& inputs, const json_place& place, const std::string& path,
                               request_record& r, genai_run_facts& facts) {
    const auto* payload = nvidia_member(inputs, "payload");
    if (!payload) return;
    const std::string payload_path = json_path(path, "payload");
    const auto body = parse_embedded_json(json_string(*payload, place, payload_path));
    if (body.is_discarded() || !body.is_object()) return;
    if (const auto* model = json_member(body, "model"); facts.model.empty() && model && model->is_string())
        facts.model = model->get<std::string>();
    for (const std::string_view key : {"max_completion_tokens", "max_tokens"})
        if (const auto* max = nvidia_member(body, key)) {
            r.max_tokens = json_count(*max, place, json_path(payload_path, key));
            break;
        }
    if (const auto* stream = json_member(body, "stream"); stream && stream->is_boolean() && !facts.stream)
        facts.stream = stream->get<bool>();
}

inline std::vector<std::int64_t> read_genai_timestamps(const nlohmann::json& stamps, std::int64_t start_ns,
                                                       const json_place& place, const std::string& path) {
    std::vector<std::int64_t> times;
    times.reserve(stamps.size());
    for (std::size_t k = 0; k < stamps.size(); ++k) {
        const std::string at = json_path(path, k);
        const std::int64_t t = nvidia_epoch_ns(stamps[k], place, at);
        if (t < start_ns) place.fail(at, "earlier than the request's timestamp");
        if (!times.empty() && t < times.back()) place.fail(at, "earlier than the response before it");
        times.push_back(t);
    }
    return times;
}

inline std::vector<genai_response> read_genai_responses(const nlohmann::json& outputs, const json_place& place,
                                                        const std::string& path) {
    std::vector<std::string> texts(outputs.size());
    std::vector<bool> triton_text(outputs.size(), false);
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const std::string at = json_path(path, k);
        const auto& output = json_object(outputs[k], place, at);
        if (const auto* response = nvidia_member(output, "response"))
            texts[k] = json_string(*response, place, json_path(at, "response"));
        else if (const auto* text = nvidia_member(output, "text_output"))
            triton_text[k] = !json_string(*text, place, json_path(at, "text_output")).empty();
    }
    genai_join_split_events(texts);
    std::vector<genai_response> responses;
    responses.reserve(texts.size());
    for (std::size_t k = 0; k < texts.size(); ++k) {
        responses.push_back(parse_genai_response(texts[k], place, json_path(json_path(path, k), "response")));
        if (triton_text[k]) responses.back().content = true;
    }
    return responses;
}

// The request's outcome from its responses: an error body fails it; otherwise its content
// responses give the first token, the end and the chunk gaps.
inline void settle_genai_request(std::span<const std::int64_t> times, std::span<const genai_response> responses,
                                 genai_request& out) {
    request_record& r = out.record;
    for (const auto& response : responses)
        if (response.error) {
            r.error = *response.error;
            const failure_class failure = classify_failure_text(r.error, response.error_status);
            r.status = failure.status;
            r.http_status = failure.http_status;
            return;
        }
    if (times.empty()) {
        r.status = request_status::error;
        r.error = "no response received";
        out.no_response = true;
        return;
    }
    std::vector<std::int64_t> content;
    for (std::size_t k = 0; k < responses.size(); ++k) {
        if (responses[k].content) content.push_back(times[k]);
        if (responses[k].prompt_tokens) r.prompt_tokens = responses[k].prompt_tokens;
        if (responses[k].completion_tokens) r.output_tokens = responses[k].completion_tokens;
    }
    if (content.empty()) {
        r.status = request_status::error;
        r.error = "empty response: no response carried content";
        out.no_content = true;
        return;
    }
    r.status = request_status::ok;
    out.end_ns = content.back();
    out.streamed = !std::all_of(responses.begin(), responses.end(), [](const auto& x) { return x.whole_body; });
    if (!out.streamed) return; // the whole answer arrived at once: no first token of its own
    out.first_ns = content.front();
    for (std::size_t k = 1; k < content.size(); ++k) r.itl.push_back(nvidia_seconds_between(content[k], content[k - 1]));
}

inline void read_genai_request(const nlohmann::json& request, const json_place& place, const std::string& path,
                               genai_request& out, genai_run_facts& facts) {
    json_object(request, place, path);
    out = genai_request{};
    out.start_ns = nvidia_epoch_ns(json_require(request, "timestamp", place, path), place, json_path(path, "timestamp"));
    if (const auto* inputs = nvidia_member(request, "request_inputs")) {
        const std::string inputs_path = json_path(path, "request_inputs");
        read_genai_payload(json_object(*inputs, place, inputs_path), place, inputs_path, out.record, facts);
    }
    const std::string stamps_path = json_path(path, "response_timestamps");
    const std::string outputs_path = json_path(path, "response_outputs");
    const auto& stamps = json_array(json_require(request, "response_timestamps", place, path), place, stamps_path);
    const auto& outputs = json_array(json_require(request, "response_outputs", place, path), place, outputs_path);
    if (outputs.size() != stamps.size())
        place.fail(outputs_path, fmt::format("has {} entries but response_timestamps has {}", outputs.size(), stamps.size()));
    const auto times = read_genai_timestamps(stamps, out.start_ns, place, stamps_path);
    const auto responses = read_genai_responses(outputs, place, outputs_path);
    settle_genai_request(times, responses, out);
}

// concurrency N or request_rate R: the load the experiment ran at, and its label suffix.
inline std::string read_genai_load(const nlohmann::json& experiment, const json_place& place, const std::string& path,
                                   nlohmann::json& params) {
    const std::string e_path = json_path(path, "experiment");
    const auto& e = json_object(json_require(experiment, "experiment", place, path), place, e_path);
    const std::string mode_path = json_path(e_path, "mode");
    const std::string value_path = json_path(e_path, "value");
    const std::string& mode = json_string(json_require(e, "mode", place, e_path), place, mode_path);
    const auto& value = json_require(e, "value", place, e_path);
    if (mode == "concurrency") {
        const auto n = json_count(value, place, value_path);
        params["concurrency"] = n;
        return fmt::format("concurrency{}", n);
    }
    if (mode == "request_rate") {
        const double rate = json_number(value, place, value_path);
        if (rate < 0) place.fail(value_path, "negative request rate");
        params["request_rate"] = rate;
        return fmt::format("request_rate{}", rate);
    }
    place.fail(mode_path, "unknown mode '" + mode + "' (expected concurrency or request_rate)");
}

struct genai_file_facts {
    std::string label, version, endpoint;
    bool several_experiments = false;
};

inline void add_genai_notes(std::span<const genai_request> requests, run_metadata& meta) {
    std::size_t ok = 0, no_output = 0, no_prompt = 0, whole = 0, no_response = 0, no_content = 0;
    for (const auto& r : requests) {
        no_response += r.no_response;
        no_content += r.no_content;
        if (r.record.status != request_status::ok) continue;
        ++ok;
        no_output += !r.record.output_tokens.has_value();
        no_prompt += !r.record.prompt_tokens.has_value();
        whole += !r.streamed;
    }
    meta.notes.emplace_back("ttft and the end of a request are its first and last response carrying content: "
                            "role-only and empty chunks, the usage chunk and [DONE] do not count (as in GenAI-Perf).");
    meta.notes.emplace_back("itl is the gap between consecutive content responses; GenAI-Perf's inter_token_latency "
                            "is per request (latency − ttft)/(output tokens − 1), servestat's tpot.");
    if (no_output > 0)
        meta.notes.push_back(fmt::format("{} of {} successful requests have no usage.completion_tokens: their output "
                                         "tokens are unavailable (GenAI-Perf counts them with its tokenizer; "
                                         "servestat does not estimate).",
                                         no_output, ok));
    if (no_prompt > 0)
        meta.notes.push_back(fmt::format("{} of {} successful requests have no usage.prompt_tokens: their prompt "
                                         "tokens are unavailable.",
                                         no_prompt, ok));
    if (whole > 0)
        meta.notes.push_back(fmt::format("{} requests were not streamed: their answer arrived whole, so ttft, "
                                         "decode, tpot and itl are unavailable for them.",
                                         whole));
    if (no_response + no_content > 0)
        meta.notes.push_back(fmt::format("{} requests got no response and {} no content: status error (GenAI-Perf "
                                         "leaves them out of its statistics).",
                                         no_response, no_content));
}

inline run read_genai_experiment(const nlohmann::json& experiment, const json_place& place, const std::string& path,
                                 const read_options& options, const genai_file_facts& file) {
    json_object(experiment, place, path);
    run out;
    out.skipped.unit = skipped_unit::record; // elements of the experiment's requests array, not lines
    const std::string load = read_genai_load(experiment, place, path, out.meta.params);
    const std::string requests_path = json_path(path, "requests");
    const auto& requests = json_array(json_require(experiment, "requests", place, path), place, requests_path);
    if (requests.empty()) place.fail(requests_path, "no requests");

    std::vector<genai_request> pending;
    pending.reserve(requests.size());
    genai_run_facts facts;
    genai_request one;
    for (std::size_t j = 0; j < requests.size(); ++j) {
        try {
            read_genai_request(requests[j], place, json_path(requests_path, j), one, facts);
            pending.push_back(std::move(one));
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
        }
    }

    out.meta.label = file.several_experiments ? std::string(file.label).append("-").append(load) : file.label;
    out.meta.tool = file.version.empty() ? std::string("genai-perf")
                                         : std::string("genai-perf (perf_analyzer ").append(file.version).append(")");
    out.meta.model = facts.model;
    if (!file.endpoint.empty()) out.meta.params["endpoint"] = file.endpoint;
    if (facts.stream) out.meta.params["streaming"] = *facts.stream;
    out.meta.kind = run_kind::requests;
    if (!pending.empty()) {
        const std::int64_t t0 = std::min_element(pending.begin(), pending.end(), [](const auto& a, const auto& b) {
                                    return a.start_ns < b.start_ns;
                                })->start_ns;
        out.meta.started_at = iso_utc(t0, 3);
        out.requests.reserve(pending.size());
        for (auto& p : pending) {
            p.record.t_sent = nvidia_seconds_between(p.start_ns, t0);
            if (p.first_ns) p.record.t_first = nvidia_seconds_between(*p.first_ns, t0);
            if (p.end_ns) p.record.t_end = nvidia_seconds_between(*p.end_ns, t0);
            out.requests.push_back(p.record);
        }
    }
    add_genai_notes(pending, out.meta);
    return out;
}

// The aggregate GenAI-Perf wrote beside the file (<stem>_genai_perf.json, else .csv) holds its own
// statistics of the same run: its reported values, settings and model, and listed as merged so a
// folder read shows one run. A broken aggregate must not hide the requests, complete on their own.
inline void add_genai_summary_beside(const std::filesystem::path& file, const read_options& options, std::vector<run>& runs) {
    const auto summary = genai_summary_beside(file);
    if (!summary) return;
    const bool json = summary->extension() == ".json";
    auto csv = *summary;
    csv.replace_extension(".csv");
    for (auto& r : runs) {
        r.meta.source.merged.push_back(summary->string());
        if (json && genai_existing(csv)) r.meta.source.merged.push_back(csv.string());
    }
    const std::string name = summary->filename().string();
    if (runs.size() != 1) {
        for (auto& r : runs)
            r.meta.notes.push_back(fmt::format("{} is not used as reported values: it summarises all {} experiments "
                                               "together.", name, runs.size()));
        return;
    }
    run_metadata& meta = runs.front().meta;
    try {
        genai_summary_info info = json ? read_genai_summary_file(*summary) : read_genai_summary_csv_rows(*summary, options);
        meta.reported = std::move(info.reported);
        for (const auto& [key, value] : info.params.items()) {
            if (!meta.params.contains(key)) meta.params[key] = value;
            else if (meta.params[key] != value)
                meta.notes.push_back(fmt::format("{} says {} {}, the records {}: the records' value is kept.", name, key,
                                                 value.dump(), meta.params[key].dump()));
        }
        if (meta.model.empty()) meta.model = info.model;
        if (meta.workload.empty()) meta.workload = info.workload;
        meta.notes.push_back((json ? "Run parameters, model and reported values come from " : "Reported values come from ") +
                             name + " next to the records.");
        add_genai_summary_notes(info, meta.notes);
        for (auto& note : info.notes) meta.notes.push_back(std::move(note));
    } catch (const input_error& e) {
        meta.notes.push_back("Could not read " + name + " next to the records (" + e.what() + "): no reported values.");
    }
}

inline std::vector<run> read_genai_perf(const std::filesystem::path& file, const read_options& options) {
    const auto documents = read_json_documents(file);
    if (documents.size() != 1)
        throw input_error(file.string(), documents[1].place.line, "", "expected one JSON object, found several");
    const auto& [doc, place] = documents.front();
    if (!doc.is_object()) place.fail("", std::string("expected a JSON object, got ") + doc.type_name());
    const auto& experiments = json_array(json_require(doc, "experiments", place, ""), place, "experiments");
    if (experiments.empty()) place.fail("experiments", "no experiments");
    const std::string service_kind = nvidia_optional_string(doc, "service_kind", place, "").value_or("");
    if (!service_kind.empty() && service_kind != "openai" && service_kind != "triton")
        place.fail("service_kind", "unsupported service kind '" + service_kind + "' (servestat reads openai and triton)");
    const genai_file_facts facts{
        .label = nvidia_run_label(file, "profile_export"),
        .version = nvidia_optional_string(doc, "version", place, "").value_or(""),
        .endpoint = nvidia_optional_string(doc, "endpoint", place, "").value_or(""),
        .several_experiments = experiments.size() > 1,
    };
    std::vector<run> runs;
    for (std::size_t i = 0; i < experiments.size(); ++i) {
        runs.push_back(read_genai_experiment(experiments[i], place, json_path("experiments", i), options, facts));
        runs.back().meta.source = {file.string(), std::string(genai_perf_name)};
        // Python's NaN and Infinity, read by parse_json_documents, named in the notes.
        runs.back().meta.notes.insert(runs.back().meta.notes.end(), place.nonfinite_notes().begin(),
                                      place.nonfinite_notes().end());
    }
    add_genai_summary_beside(file, options, runs);
    return runs;
}

// {"experiments":[{"experiment":{"mode":... The first request's prompt may push
// "response_timestamps" past the sniffed head, so the request's own keys are a second signature.
inline int sniff_genai_perf(std::string_view head) {
    if (first_json_char(head) != '{' || head.find("\"experiments\"") == std::string_view::npos) return 0;
    if (head.find("\"response_timestamps\"") != std::string_view::npos) return 100;
    if (head.find("\"experiment\"") != std::string_view::npos && head.find("\"request_inputs\"") != std::string_view::npos)
        return 80;
    return 0;
}

} // namespace detail

inline constexpr log_format genai_perf_format{
    detail::genai_perf_name,
    "GenAI-Perf / perf_analyzer per-request export (profile_export.json: experiments, requests, responses)",
    &detail::sniff_genai_perf, &detail::read_genai_perf};

} // namespace servestat
