// Tests for multi-turn sessions in the load driver: the session workload file (load/session.hpp),
// the distributions its options name (load/distribution.hpp) and the conversation that builds each
// turn's request from the replies so far (load/conversation.hpp).
#include "servestat/load/conversation.hpp"
#include "servestat/load/distribution.hpp"
#include "servestat/load/session.hpp"

#include <map>    // std::map
#include <string> // std::string
#include <vector> // std::vector

#include <catch2/catch.hpp>  // TEST_CASE, SECTION, REQUIRE, CHECK, CHECK_THROWS_WITH
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_load_session { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::input_error;
using servestat::usage_error;
using servestat::load::api_protocol;
using servestat::load::conversation;
using servestat::load::distribution;
using servestat::load::parse_sessions;
using servestat::load::request_result;
using servestat::load::session_request_options;

std::string error_of(const std::string& text) {
    try {
        parse_sessions(text, "s.jsonl");
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

request_result reply(std::string text, std::int32_t prompt, std::int32_t output, std::string id = {}) {
    request_result r;
    r.status = servestat::request_status::ok;
    r.reply = std::move(text);
    r.prompt_tokens = prompt;
    r.output_tokens = output;
    r.response_id = std::move(id);
    return r;
}

} // namespace

TEST_CASE("a session workload: one conversation per line, ids, system, context and turns", "[session]") {
    const auto sessions = parse_sessions(
        "\n"
        R"({"session":"a","system":"You are terse.","context":"Doc: X","turns":[{"user":"hi","max_tokens":8},{"user":"more","think_time":1.5}]})"
        "\n"
        R"({"turns":[{"user":"solo"}]})"
        "\r\n",
        "s.jsonl");
    REQUIRE(sessions.size() == 2);
    CHECK(sessions[0].id == "a");
    CHECK(sessions[0].system == "You are terse.");
    CHECK(sessions[0].context == "Doc: X");
    REQUIRE(sessions[0].turns.size() == 2);
    CHECK(sessions[0].turns[0].max_tokens == 8);
    CHECK(sessions[0].turns[1].think_time == 1.5);
    CHECK(sessions[0].line == 2);
    CHECK(sessions[1].id == "s2"); // the second session of the file
    CHECK(servestat::load::is_session_workload("\n{\"turns\":[]}"));
    CHECK_FALSE(servestat::load::is_session_workload(R"({"messages":[{"role":"user","content":"x"}]})"));
}

TEST_CASE("a bad session names the file, the line and the field", "[session]") {
    CHECK(error_of(R"({"turns":[]})") == "s.jsonl:1: field 'turns': must be a non-empty array of {\"user\": ...} objects");
    CHECK(error_of("{\"turns\":[{\"user\":\"a\"}]}\n{\"turns\":[{\"text\":\"b\"}]}") == "s.jsonl:2: field 'turns[0].user': missing");
    CHECK(error_of(R"({"turns":[{"user":"a"},{"user":"b","think_time":-1}]})") ==
          "s.jsonl:1: field 'turns[1].think_time': must be a number of seconds ≥ 0, got -1");
    CHECK(error_of(R"({"turns":[{"user":"a","max_tokens":0}]})").starts_with("s.jsonl:1: field 'turns[0].max_tokens': must be between 1"));
    CHECK(error_of("{\"session\":\"x\",\"turns\":[{\"user\":\"a\"}]}\n{\"session\":\"x\",\"turns\":[{\"user\":\"b\"}]}") ==
          "s.jsonl:2: field 'session': 'x' is used twice");
    CHECK(error_of(R"({"turns":[{"user":"a"}],"sytem":"typo"})") ==
          "s.jsonl:1: field 'sytem': unknown key of a session (session, system, context, turns)");
    CHECK(error_of("\n\n") == "s.jsonl: no sessions in the workload file");
}

TEST_CASE("distributions: a number, uniform, exponential and normal; bad ones are refused by name", "[session]") {
    servestat::detail::xoshiro256 rng(7);
    CHECK(distribution::parse("2.5", "--think-time").draw(rng) == 2.5);
    SECTION("uniform:2:5 as a count gives 2, 3, 4 and 5, and nothing else") {
        const auto d = distribution::parse("uniform:2:5", "--turns");
        std::map<int, int> seen;
        for (int i = 0; i < 4000; ++i) ++seen[d.draw_count(rng, 1)];
        REQUIRE(seen.size() == 4);
        CHECK(seen.begin()->first == 2);
        CHECK(seen.rbegin()->first == 5);
        for (const auto& [value, count] : seen) CHECK(count > 800); // 1000 each expected; 800 is > 6 SD below
        CHECK(d.mean() == 3.5);
    }
    SECTION("real draws stay within uniform's bounds; exponential's mean; normal never below 0") {
        const auto u = distribution::parse("uniform:0.5:2", "--cancel-after");
        const auto e = distribution::parse("exponential:2", "--think-time");
        const auto n = distribution::parse("normal:0.1:1", "--think-time");
        double sum = 0;
        for (int i = 0; i < 20000; ++i) {
            const double x = u.draw(rng);
            CHECK((x >= 0.5 && x <= 2));
            sum += e.draw(rng);
            CHECK(n.draw(rng) >= 0);
        }
        CHECK(sum / 20000 == Approx(2).epsilon(0.05)); // SD of the mean: 2/√20000 = 0.014
    }
    CHECK_THROWS_WITH(distribution::parse("uniform:5:2", "--turns"), "--turns uniform:5:2: HIGH is below LOW");
    CHECK_THROWS_WITH(distribution::parse("poisson:3", "--turns"),
                      "--turns poisson:3: expected a number, uniform:LOW:HIGH, exponential:MEAN or normal:MEAN:SD");
    CHECK_THROWS_WITH(distribution::parse("uniform:1", "--turns"), "--turns uniform:1: expected uniform:LOW:HIGH");
    CHECK_THROWS_WITH(distribution::parse("-1", "--think-time"), "--think-time -1: '-1' is not a number ≥ 0");
    CHECK_THROWS_AS(distribution::parse("", "--turns"), usage_error);
}

TEST_CASE("made-up sessions: one shared system prompt, exact token counts under the heuristic, same for a seed",
          "[session]") {
    const auto counter = servestat::load::heuristic_token_counter();
    servestat::load::session_spec spec;
    spec.sessions = 6;
    spec.turns = distribution::parse("uniform:2:4", "--turns");
    spec.shared_prefix_tokens = 200;
    spec.context_tokens = distribution::parse("50", "--context-tokens");
    spec.turn_tokens = distribution::parse("uniform:10:20", "--turn-tokens");
    spec.think_time = distribution::parse("1", "--think-time");
    spec.max_tokens = 32;
    const auto a = servestat::load::make_sessions(spec, counter, 3);
    const auto b = servestat::load::make_sessions(spec, counter, 3);
    REQUIRE(a.size() == 6);
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(servestat::load::session_json_line(a[i]) == servestat::load::session_json_line(b[i]));
        CHECK(a[i].system == a[0].system);
        CHECK(counter.text(a[i].system) == 200);
        CHECK(counter.text(a[i].context) == 50);
        CHECK((a[i].turns.size() >= 2 && a[i].turns.size() <= 4));
        CHECK(a[i].turns[0].think_time == 0); // the first turn starts the session
        for (std::size_t k = 0; k < a[i].turns.size(); ++k) {
            const auto n = counter.text(a[i].turns[k].user);
            CHECK((n >= 10 && n <= 20));
            CHECK(a[i].turns[k].max_tokens == 32);
            if (k > 0) CHECK(a[i].turns[k].think_time == 1);
        }
    }
    CHECK(a[0].context != a[1].context); // each session has its own
    // Written and read back, a session is the same.
    const auto line = servestat::load::session_json_line(a[2]);
    const auto again = parse_sessions(line, "x");
    CHECK(servestat::load::session_json_line(again[0]) == line);
}

TEST_CASE("a chat conversation resends the whole history with the server's replies", "[session]") {
    const auto s = parse_sessions(
        R"({"session":"a","system":"Be brief.","context":"Doc","turns":[{"user":"one","max_tokens":8},{"user":"two"},{"user":"three"}]})",
        "x")[0];
    const session_request_options options{.model = "m", .max_tokens = 64};
    conversation c(s, options);
    auto body = nlohmann::json::parse(c.next_request().body);
    CHECK(body["messages"] == nlohmann::json::parse(
                                  R"([{"role":"system","content":"Be brief."},{"role":"user","content":"Doc\n\none"}])"));
    CHECK(body["max_tokens"] == 8);
    CHECK(body["stream_options"]["include_usage"] == true);
    CHECK(c.next_request().target == "/v1/chat/completions");
    CHECK(c.next_request().keep_reply);
    REQUIRE(c.take_reply(reply("Reply one.", 30, 4)));
    CHECK(servestat::load::turn_text(s, 0) == "Doc\n\none");
    CHECK(servestat::load::turn_text(s, 1) == "two");
    CHECK(c.next_turn() == 2);
    body = nlohmann::json::parse(c.next_request().body);
    CHECK(body["messages"] == nlohmann::json::parse(
                                  R"([{"role":"system","content":"Be brief."},{"role":"user","content":"Doc\n\none"},)"
                                  R"({"role":"assistant","content":"Reply one."},{"role":"user","content":"two"}])"));
    CHECK(body["max_tokens"] == 64); // the turn does not say: the default
    REQUIRE(c.take_reply(reply("Reply two.", 50, 5)));
    CHECK_FALSE(c.next_request().keep_reply); // the last turn's reply goes nowhere
    request_result failed;
    failed.status = servestat::request_status::timeout;
    CHECK_FALSE(c.take_reply(failed));
    CHECK(c.done());
}

TEST_CASE("a Responses conversation sends the new text and the previous response's id", "[session]") {
    const auto s = parse_sessions(R"({"system":"Be brief.","turns":[{"user":"one"},{"user":"two"}]})", "x")[0];
    const session_request_options options{.model = "m", .protocol = api_protocol::responses, .max_tokens = 16};
    conversation c(s, options);
    auto request = c.next_request();
    CHECK(request.target == "/v1/responses");
    CHECK(request.protocol == api_protocol::responses);
    auto body = nlohmann::json::parse(request.body);
    CHECK(body["input"] == nlohmann::json::parse(R"([{"role":"system","content":"Be brief."},{"role":"user","content":"one"}])"));
    CHECK(body["max_output_tokens"] == 16);
    CHECK_FALSE(body.contains("stream_options"));
    CHECK_FALSE(body.contains("previous_response_id"));
    REQUIRE(c.take_reply(reply("R1", 20, 2, "resp_abc")));
    body = nlohmann::json::parse(c.next_request().body);
    CHECK(body["previous_response_id"] == "resp_abc");
    CHECK(body["input"] == nlohmann::json::parse(R"([{"role":"user","content":"two"}])"));
    SECTION("a server that gives no id gets the whole conversation instead") {
        conversation d(s, options);
        REQUIRE(d.take_reply(reply("R1", 20, 2)));
        body = nlohmann::json::parse(d.next_request().body);
        CHECK_FALSE(body.contains("previous_response_id"));
        CHECK(body["input"] == nlohmann::json::parse(R"([{"role":"system","content":"Be brief."},{"role":"user","content":"one"},)"
                                                     R"({"role":"assistant","content":"R1"},{"role":"user","content":"two"}])"));
    }
}

} // namespace test_load_session
