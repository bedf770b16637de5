// Small calls to the server around a run: /v1/models, /tokenize, /metrics and readiness.
#pragma once

#include <chrono>      // std::chrono
#include <cstdint>     // std::int32_t
#include <exception>   // std::exception_ptr, std::rethrow_exception
#include <functional>  // std::function
#include <limits>      // std::numeric_limits
#include <memory>      // std::make_shared
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <thread>      // std::this_thread::sleep_for
#include <utility>     // std::exchange (Boost 1.74's awaitable.hpp uses it without the include), std::move
#include <vector>      // std::vector

#include <boost/asio/co_spawn.hpp>   // boost::asio::co_spawn
#include <boost/asio/io_context.hpp> // boost::asio::io_context
#include <fmt/format.h>             // fmt::format
#include <nlohmann/json.hpp>         // nlohmann::json

#include "servestat/core/errors.hpp"        // error
#include "servestat/load/client.hpp"        // endpoint, tcp, http
#include "servestat/load/token_counter.hpp" // token_counter, chat_message

namespace servestat::load {

// The server could not be reached at all (refused, no route, a TLS handshake that failed), as
// opposed to one that answered wrongly.
class unreachable_error : public error {
public:
    using error::error;
};

struct http_reply {
    int status = 0;
    std::string body;
};

// Calls made one at a time around a run (not timed): one keep-alive connection on a private
// io_context, resolved once, so the hundreds of /tokenize calls of a workload's budget do not each
// open a connection. The run's options apply: its key, headers and TLS context. Throws
// boost::system::system_error when the server cannot be reached or does not answer within the timeout.
class blocking_client {
public:
    blocking_client(endpoint where, http_options options) : where_(std::move(where)), options_(std::move(options)) {}

    http_reply call(http::verb verb, std::string_view target, std::string body = {}, double timeout = 30) {
        http_reply reply;
        std::exception_ptr failure;
        net::co_spawn(io_, exchange(verb, std::string(target), std::move(body), timeout),
                      [&](std::exception_ptr e, http_reply r) {
                          failure = e;
                          reply = std::move(r);
                      });
        io_.restart();
        io_.run();
        if (failure) std::rethrow_exception(failure);
        return reply;
    }

private:
    net::awaitable<http_reply> exchange(http::verb verb, std::string target, std::string body, double timeout) {
        const auto deadline = steady::now() + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(timeout));
        if (!addresses_) {
            tcp::resolver resolver(io_);
            addresses_ = co_await resolver.async_resolve(where_.host, where_.port, net::use_awaitable);
        }
        // A kept connection the server closed meanwhile fails before the answer: once more, anew.
        for (int attempt = 0;; ++attempt) {
            const bool reused = stream_.has_value();
            try {
                co_return co_await exchange_on_connection(verb, target, body, deadline);
            } catch (const boost::system::system_error& e) {
                stream_.reset();
                buffer_.clear();
                if (!reused || attempt > 0 || e.code() == beast::error::timeout) throw;
            }
        }
    }

    net::awaitable<http_reply> exchange_on_connection(http::verb verb, const std::string& target, const std::string& body,
                                                      steady::time_point deadline) {
        if (!stream_) {
            stream_.emplace(io_.get_executor(), options_.tls.get());
            co_await stream_->open(*addresses_, where_.host, deadline);
        }
        stream_->lowest().expires_at(deadline);
        http::request<http::string_body> req{verb, where_.prefix + target, 11};
        req.set(http::field::host, where_.host);
        req.set(http::field::user_agent, "servestat-load/0.1");
        if (!options_.api_key.empty()) req.set(http::field::authorization, "Bearer " + options_.api_key);
        for (const auto& [name, value] : options_.headers) req.set(name, value);
        if (verb == http::verb::post) req.set(http::field::content_type, "application/json");
        req.keep_alive(true);
        req.body() = body;
        req.prepare_payload();
        co_await http::async_write(*stream_, req, net::use_awaitable);
        http::response_parser<http::string_body> parser;
        parser.body_limit(64 << 20);
        co_await http::async_read(*stream_, buffer_, parser, net::use_awaitable);
        if (!parser.keep_alive()) {
            stream_.reset();
            buffer_.clear();
        }
        co_return http_reply{static_cast<int>(parser.get().result_int()), std::move(parser.get().body())};
    }

    net::io_context io_;
    endpoint where_;
    http_options options_;
    std::optional<tcp::resolver::results_type> addresses_;
    std::optional<client_stream> stream_;
    beast::flat_buffer buffer_;
};

// One call on a connection of its own.
inline http_reply http_call(const endpoint& where, http::verb verb, std::string_view target, std::string body = {},
                            const http_options& options = {}, double timeout = 30) {
    return blocking_client(where, options).call(verb, target, std::move(body), timeout);
}

// What /v1/models says about the model being served.
struct server_info {
    std::string model;
    std::optional<std::int32_t> max_model_len;
    nlohmann::json card; // the model's entry as the server sent it, for the log header
};

inline server_info read_models(const endpoint& where, const http_options& options, const std::string& wanted_model) {
    http_reply reply;
    try {
        reply = http_call(where, http::verb::get, "/v1/models", {}, options);
    } catch (const boost::system::system_error& e) {
        throw unreachable_error(fmt::format("{}/v1/models: {}", where.url(), e.what()));
    }
    if (reply.status != 200)
        throw error(fmt::format("{}/v1/models answered HTTP {}: {}", where.url(), reply.status, reply.body.substr(0, 300)));
    const auto j = nlohmann::json::parse(reply.body, nullptr, false);
    if (!j.is_object() || !j.contains("data") || !j["data"].is_array() || j["data"].empty())
        throw error(fmt::format("{}/v1/models: no model listed", where.url()));
    for (const auto& card : j["data"]) {
        if (!card.is_object()) continue; // the server's answer: checked, never value() that throws on a wrong type
        const auto id_it = card.find("id");
        const std::string id = id_it != card.end() && id_it->is_string() ? id_it->get<std::string>() : std::string();
        if (!wanted_model.empty() && id != wanted_model) continue;
        server_info out{id, std::nullopt, card};
        if (const auto len = card.find("max_model_len"); len != card.end() && len->is_number_integer() &&
                                                            *len > 0 && *len <= std::numeric_limits<std::int32_t>::max())
            out.max_model_len = len->get<std::int32_t>();
        return out;
    }
    throw error(fmt::format("{}/v1/models does not list the model '{}'", where.url(), wanted_model));
}

// Polls /v1/models until it answers 200 or `timeout` seconds pass (a starting vLLM loads weights
// for minutes); false on timeout.
inline bool wait_until_ready(const endpoint& where, const http_options& options, double timeout,
                             const std::function<bool()>& still_worth_waiting = {}) {
    const auto deadline = steady::now() + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(timeout));
    while (steady::now() < deadline) {
        try {
            if (http_call(where, http::verb::get, "/v1/models", {}, options, 2).status == 200) return true;
        } catch (const boost::system::system_error&) {
        }
        if (still_worth_waiting && !still_worth_waiting()) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return false;
}

// Token counts from the server's own tokenizer (vLLM's POST /tokenize), so budgets match what the
// server will count. Each count is one HTTP call; the budget's binary search makes ~12 per trimmed
// prompt, done before the run starts.
inline token_counter server_token_counter(const endpoint& where, const http_options& options, const std::string& model) {
    auto client = std::make_shared<blocking_client>(where, options); // shared by both callables
    auto count = [client, url = where.url()](const nlohmann::json& request) {
        const auto reply = client->call(http::verb::post, "/tokenize", request.dump());
        if (reply.status != 200)
            throw error(fmt::format("{}/tokenize answered HTTP {}: {}", url, reply.status, reply.body.substr(0, 300)));
        const auto j = nlohmann::json::parse(reply.body, nullptr, false);
        if (!j.is_object() || !j.contains("count") || !j["count"].is_number_integer())
            throw error(fmt::format("{}/tokenize: no count in the answer", url));
        return j["count"].get<std::int32_t>();
    };
    token_counter out;
    out.source = "server /tokenize";
    out.text = [count, model](std::string_view text) {
        return count({{"model", model}, {"prompt", std::string(text)}, {"add_special_tokens", false}});
    };
    out.chat = [count, model](const std::vector<chat_message>& messages) {
        auto list = nlohmann::json::array();
        for (const auto& m : messages) list.push_back({{"role", m.role}, {"content", m.content}});
        return count({{"model", model}, {"messages", list}, {"add_generation_prompt", true}});
    };
    return out;
}

// The server's Prometheus text, or nullopt when it has no /metrics.
inline std::optional<std::string> scrape_metrics(const endpoint& where, const http_options& options) {
    try {
        auto reply = http_call(where, http::verb::get, "/metrics", {}, options, 10);
        if (reply.status == 200) return std::move(reply.body);
    } catch (const boost::system::system_error&) {
    }
    return std::nullopt;
}

} // namespace servestat::load
