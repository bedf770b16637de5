// Context budgeting (the notebook's Experiment 1.1): shrink max_tokens to what the context window
// leaves, and when even a minimum output does not fit, cut the middle out of the prompt.
#pragma once

#include <algorithm>   // std::min
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t
#include <functional>  // std::function
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp"         // error, usage_error
#include "servestat/load/token_counter.hpp" // chat_message, token_counter, token_pieces

namespace servestat::load {

// A request that cannot be made to fit the context window; the driver records it as a client-side
// failure instead of sending it.
class budget_error : public servestat::error {
public:
    explicit budget_error(const std::string& message) : servestat::error(message) {}
};

struct budget_options {
    std::int32_t max_model_len = 4096; // the server's context window (max_model_len of /v1/models)
    std::int32_t margin = 16;          // headroom left unused (the notebook's SAFETY_MARGIN)
    std::int32_t min_output_tokens = 32;
    double head_fraction = 0.35; // share of the kept prompt taken from its start; the rest from its end
};

struct budget_result {
    std::vector<chat_message> messages; // chat requests: the messages to send
    std::string prompt;                 // completions requests: the prompt to send
    std::int32_t max_tokens = 0;
    std::int32_t prompt_tokens = 0;          // as sent
    std::int32_t prompt_tokens_original = 0; // before trimming
    bool trimmed = false;
    std::size_t kept_pieces = 0;     // when trimmed: heuristic pieces (token_pieces) of the cut text kept
    std::size_t original_pieces = 0; // when trimmed: pieces it had
};

inline void validate(const budget_options& o) {
    if (o.max_model_len <= 0) throw usage_error(fmt::format("max_model_len must be positive, got {}", o.max_model_len));
    if (o.margin < 0) throw usage_error(fmt::format("the budget margin must be 0 or more, got {}", o.margin));
    if (o.min_output_tokens < 1)
        throw usage_error(fmt::format("the minimum output must be at least 1 token, got {}", o.min_output_tokens));
    if (!(o.head_fraction >= 0.0 && o.head_fraction <= 1.0))
        throw usage_error(fmt::format("the head fraction must be within [0, 1], got {}", o.head_fraction));
}

// The first int(keep * head_fraction) pieces and the last (keep - that) pieces of text, joined: the
// notebook's head_tail_trim_text_by_tokens on the heuristic's pieces. keep >= the number of pieces
// gives the text unchanged. keep = 0 gives "" (the notebook's ids[-0:] would keep everything).
inline std::string head_tail_trim(std::string_view text, const std::vector<std::string_view>& pieces,
                                  std::size_t keep, double head_fraction) {
    if (keep >= pieces.size()) return std::string(text);
    if (keep == 0) return {};
    // The product truncated like Python's int(); doubles round the same way in both languages.
    const auto head = static_cast<std::size_t>(static_cast<double>(keep) * head_fraction);
    const std::size_t tail = keep - head;
    const auto offset = [&](std::string_view piece) { return static_cast<std::size_t>(piece.data() - text.data()); };
    std::string out;
    if (head > 0) {
        const std::string_view last = pieces[head - 1];
        out.append(text.substr(0, offset(last) + last.size()));
    }
    if (tail > 0) out.append(text.substr(offset(pieces[pieces.size() - tail])));
    return out;
}

inline std::string head_tail_trim(std::string_view text, std::size_t keep, double head_fraction) {
    return head_tail_trim(text, token_pieces(text), keep, head_fraction);
}

namespace detail {

struct fitted_text {
    std::string text;
    std::int32_t tokens = 0;
    std::size_t kept = 0, pieces = 0;
};

// The largest keep whose head+tail cut of text has count(cut) <= limit, by binary search as the
// notebook does (one count per probe); nullopt when not even the empty text fits.
inline std::optional<fitted_text> largest_fitting_cut(std::string_view text, double head_fraction, std::int64_t limit,
                                                      const std::function<std::int32_t(std::string_view)>& count) {
    const auto pieces = token_pieces(text);
    std::int64_t lo = 0, hi = static_cast<std::int64_t>(pieces.size());
    std::optional<fitted_text> best;
    while (lo <= hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        std::string candidate = head_tail_trim(text, pieces, static_cast<std::size_t>(mid), head_fraction);
        const std::int32_t tokens = count(candidate);
        if (tokens <= limit) {
            best = fitted_text{std::move(candidate), tokens, static_cast<std::size_t>(mid), pieces.size()};
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

// A request that asks for fewer tokens than the minimum needs no more than it asks for; the
// notebook would trim every such request.
inline std::int32_t min_output(const budget_options& o, std::int32_t desired_max_tokens) {
    return std::min(o.min_output_tokens, desired_max_tokens);
}

// max_tokens = min(desired, max_model_len - margin - prompt_tokens), the notebook's first step.
inline std::int32_t output_room(const budget_options& o, std::int32_t desired_max_tokens, std::int32_t prompt_tokens) {
    const std::int64_t room = std::int64_t{o.max_model_len} - o.margin - prompt_tokens;
    return static_cast<std::int32_t>(std::min<std::int64_t>(desired_max_tokens, room));
}

inline void check_request(const budget_options& o, std::int32_t desired_max_tokens, std::string_view request) {
    validate(o);
    if (desired_max_tokens < 1)
        throw budget_error(fmt::format("{}: max_tokens must be at least 1, got {}", request, desired_max_tokens));
}

// The shared policy on the one text that may be cut; `count` counts the whole request with the
// given text in its place. When trimmed, the cut text is left in r.prompt for the caller to place.
inline budget_result apply_budget(std::string_view trimmable, std::int32_t desired_max_tokens, const budget_options& o,
                                  std::string_view request,
                                  const std::function<std::int32_t(std::string_view)>& count) {
    check_request(o, desired_max_tokens, request);
    budget_result r;
    r.prompt_tokens = r.prompt_tokens_original = count(trimmable);
    r.max_tokens = output_room(o, desired_max_tokens, r.prompt_tokens);
    const std::int32_t minimum = min_output(o, desired_max_tokens);
    if (r.max_tokens >= minimum) return r;

    const std::int64_t prompt_budget = std::int64_t{o.max_model_len} - o.margin - minimum;
    if (prompt_budget <= 0)
        throw budget_error(fmt::format("{}: the context window ({} tokens) leaves no room for a prompt after a margin of "
                                       "{} and {} output tokens",
                                       request, o.max_model_len, o.margin, minimum));
    auto fit = largest_fitting_cut(trimmable, o.head_fraction, prompt_budget, count);
    if (!fit)
        throw budget_error(fmt::format("{}: the prompt does not fit even after trimming: {} prompt tokens, {} allowed "
                                       "(max_model_len {} - margin {} - {} output tokens)",
                                       request, r.prompt_tokens_original, prompt_budget, o.max_model_len, o.margin,
                                       minimum));
    r.prompt_tokens = fit->tokens;
    r.trimmed = true;
    r.kept_pieces = fit->kept;
    r.original_pieces = fit->pieces;
    r.max_tokens = output_room(o, desired_max_tokens, r.prompt_tokens);
    r.prompt = std::move(fit->text);
    return r;
}

} // namespace detail

// Chat request: counts the whole conversation with counter.chat and, when needed, trims the content
// of the last user message. `request` names the request in errors (e.g. "workload.jsonl:12").
// Throws budget_error when nothing fits, usage_error on bad options.
inline budget_result budget_chat(std::vector<chat_message> messages, std::int32_t desired_max_tokens,
                                 const budget_options& options, const token_counter& counter, std::string_view request) {
    std::size_t user = messages.size();
    for (std::size_t i = messages.size(); i-- > 0;) {
        if (messages[i].role == "user") {
            user = i;
            break;
        }
    }
    if (user == messages.size()) { // nothing to trim: only the output can shrink
        detail::check_request(options, desired_max_tokens, request);
        budget_result r;
        r.prompt_tokens = r.prompt_tokens_original = counter.chat(messages);
        r.max_tokens = detail::output_room(options, desired_max_tokens, r.prompt_tokens);
        if (r.max_tokens < detail::min_output(options, desired_max_tokens))
            throw budget_error(fmt::format("{}: {} prompt tokens leave {} output tokens, fewer than {}, and there is no "
                                           "user message to trim",
                                           request, r.prompt_tokens, r.max_tokens,
                                           detail::min_output(options, desired_max_tokens)));
        r.messages = std::move(messages);
        return r;
    }
    // Every probe counts the conversation with the candidate content in place of the user's.
    std::vector<chat_message> probe = messages;
    const auto count = [&](std::string_view content) {
        probe[user].content.assign(content);
        return counter.chat(probe);
    };
    budget_result r = detail::apply_budget(messages[user].content, desired_max_tokens, options, request, count);
    if (r.trimmed) messages[user].content = std::move(r.prompt);
    r.prompt.clear();
    r.messages = std::move(messages);
    return r;
}

// Completions request: counts the prompt with counter.text.
inline budget_result budget_prompt(std::string prompt, std::int32_t desired_max_tokens, const budget_options& options,
                                   const token_counter& counter, std::string_view request) {
    budget_result r = detail::apply_budget(prompt, desired_max_tokens, options, request, counter.text);
    if (!r.trimmed) r.prompt = std::move(prompt);
    return r;
}

} // namespace servestat::load
