// Tests for servestat/load/sweep_plan.hpp: the dimensions of `--sweep` and `--grid`, their
// combinations and names, the server command template, the sweep manifest that `--resume` reads,
// and the server process restarted per configuration (a real /bin/sh in a process group of its own).
// Expected values are worked out by hand from the header's documented behaviour.
#include "servestat/load/sweep_plan.hpp"

#include <cerrno>      // errno, ESRCH
#include <chrono>      // std::chrono
#include <csignal>     // ::kill, SIGTERM
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <iterator>    // std::istreambuf_iterator
#include <string>      // std::string
#include <string_view> // std::string_view
#include <thread>      // std::this_thread::sleep_for
#include <vector>      // std::vector

#include <signal.h> // ::sigaction, sigemptyset
#include <unistd.h> // ::getpid, ::_exit

#include <catch2/catch.hpp>  // TEST_CASE, SECTION, REQUIRE, CHECK, CHECK_THROWS_AS
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "temp_file.hpp" // test::temp_file

namespace test_load_sweep_plan { // the unity build compiles several test files as one: each keeps its names

namespace {

using json = nlohmann::ordered_json;
using servestat::input_error;
using servestat::usage_error;
using servestat::load::changed_settings;
using servestat::load::combinations;
using servestat::load::configuration_name;
using servestat::load::dimension;
using servestat::load::manifest;
using servestat::load::manifest_point;
using servestat::load::parameter_value;
using servestat::load::parse_dimension;
using servestat::load::read_manifest;
using servestat::load::server_process;
using servestat::load::substitute;
using servestat::load::tail_lines;
using servestat::load::write_manifest;
using servestat::test::temp_file;

std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Checks that parse_dimension(text) fails with a usage_error naming the option and the text.
void require_dimension_error(std::string_view text, std::string_view option = "--sweep") {
    INFO("text: " << text);
    try {
        (void)parse_dimension(text, option);
        FAIL("no error");
    } catch (const usage_error& e) {
        CHECK_THAT(e.what(), Catch::Contains(std::string(option)));
        CHECK_THAT(e.what(), Catch::Contains(std::string(text)));
    }
}

// Waits (bounded) for a condition that a child process brings about; false when it never did.
template <class Condition>
bool eventually(Condition done, double seconds = 10) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

// Gone, or a zombie waiting for whoever adopted it to reap it: either way it runs no more.
bool process_ended(pid_t pid) {
    if (::kill(pid, 0) != 0) return errno == ESRCH;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')'); // "pid (comm) S ...": comm may hold spaces
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

// The pid a command wrote to `file`, once it has written it.
pid_t pid_written_to(const std::filesystem::path& file) {
    std::string text;
    REQUIRE(eventually([&] {
        text = read_text(file);
        return !text.empty() && text.back() == '\n';
    }));
    return static_cast<pid_t>(std::stol(text));
}

} // namespace

// ---------------------------------------------------------------------------------------------
// dimensions

TEST_CASE("parameter values: JSON numbers and booleans keep their type, the rest are strings") {
    const auto integer = parameter_value("16");
    CHECK(integer.is_number_integer());
    CHECK(integer == 16);
    const auto negative = parameter_value("-3");
    CHECK(negative.is_number_integer());
    CHECK(negative == -3);
    const auto fraction = parameter_value("0.5");
    CHECK(fraction.is_number_float());
    CHECK(fraction == 0.5);
    const auto yes = parameter_value("true");
    CHECK(yes.is_boolean());
    CHECK(yes == true);
    const auto no = parameter_value("false");
    CHECK(no.is_boolean());
    CHECK(no == false);
    for (const char* text : {"abc", "[1]", "{}", "null", "Qwen/Qwen2.5-3B-Instruct", "16abc", "1,2"}) {
        INFO(text);
        const auto v = parameter_value(text);
        CHECK(v.is_string());
        CHECK(v == text);
    }
}

TEST_CASE("parse_dimension splits key=v1,v2,...") {
    SECTION("numbers") {
        const auto d = parse_dimension("concurrency=1,2,4", "--sweep");
        CHECK(d.key == "concurrency");
        REQUIRE(d.values.size() == 3);
        CHECK(d.values[0] == 1);
        CHECK(d.values[1] == 2);
        CHECK(d.values[2] == 4);
        for (const auto& v : d.values) CHECK(v.is_number_integer());
    }
    SECTION("one value") {
        const auto d = parse_dimension("rate=0.5", "--sweep");
        CHECK(d.key == "rate");
        REQUIRE(d.values.size() == 1);
        CHECK(d.values[0].is_number_float());
        CHECK(d.values[0] == 0.5);
    }
    SECTION("mixed types") {
        const auto d = parse_dimension("x=16,true,abc", "--grid");
        CHECK(d.key == "x");
        REQUIRE(d.values.size() == 3);
        CHECK(d.values[0] == 16);
        CHECK(d.values[1] == true);
        CHECK(d.values[2] == "abc");
    }
}

TEST_CASE("parse_dimension rejects malformed dimensions naming the option") {
    require_dimension_error("concurrency");        // no '='
    require_dimension_error("=1,2");               // empty key
    require_dimension_error("concurrency=");       // no values
    require_dimension_error("a=1,,2");             // an empty value
    require_dimension_error("a=1,2,");             // trailing comma
    require_dimension_error("a=,1");               // leading comma
    require_dimension_error("max_num_seqs", "--grid");
    require_dimension_error("max_num_seqs=16,,32", "--grid");
}

TEST_CASE("combinations: every combination, the first dimension varying slowest") {
    SECTION("no dimensions: one empty configuration") {
        const auto c = combinations({});
        REQUIRE(c.size() == 1);
        CHECK(c[0] == json::object());
    }
    SECTION("one dimension") {
        const auto c = combinations({parse_dimension("concurrency=1,2,4", "--sweep")});
        REQUIRE(c.size() == 3);
        CHECK(c[0] == json{{"concurrency", 1}});
        CHECK(c[1] == json{{"concurrency", 2}});
        CHECK(c[2] == json{{"concurrency", 4}});
    }
    SECTION("two dimensions") {
        const auto c = combinations({parse_dimension("a=1,2", "--grid"), parse_dimension("b=x,y,z", "--grid")});
        const std::vector<json> expected = {
            {{"a", 1}, {"b", "x"}}, {{"a", 1}, {"b", "y"}}, {{"a", 1}, {"b", "z"}},
            {{"a", 2}, {"b", "x"}}, {{"a", 2}, {"b", "y"}}, {{"a", 2}, {"b", "z"}},
        };
        CHECK(c == expected);
        // Keys keep the dimensions' order, which the configuration names rely on.
        CHECK(configuration_name(c[0]) == "a1-bx");
        CHECK(configuration_name(c[5]) == "a2-bz");
    }
    SECTION("three dimensions: the sizes multiply") {
        const auto c = combinations({parse_dimension("a=1,2", "--grid"), parse_dimension("b=x,y,z", "--grid"),
                                     parse_dimension("c=true,false", "--grid")});
        REQUIRE(c.size() == 12);
        CHECK(c[0] == json{{"a", 1}, {"b", "x"}, {"c", true}});
        CHECK(c[1] == json{{"a", 1}, {"b", "x"}, {"c", false}});
        CHECK(c[2] == json{{"a", 1}, {"b", "y"}, {"c", true}});
        CHECK(c[11] == json{{"a", 2}, {"b", "z"}, {"c", false}});
    }
}

TEST_CASE("configuration names are file-name safe") {
    CHECK(configuration_name(json{{"max_num_seqs", 16}, {"chunked", false}}) == "max_num_seqs16-chunkedfalse");
    CHECK(configuration_name(json{{"model", "a b/c"}}) == "modela_b_c");
    CHECK(configuration_name(json{{"rate", 0.5}}) == "rate0.5");
    CHECK(configuration_name(json{{"k", "x:y*z?\"<>|\\"}}) == "kx_y_z______");
    CHECK(configuration_name(json{{"a b", "c/d"}}) == "a_bc_d");
}

TEST_CASE("substitute fills the server command's placeholders") {
    const json config{{"max_num_seqs", 16}, {"chunked", false}, {"model", "Qwen/Qwen2.5-3B-Instruct"}};
    CHECK(substitute("vllm serve {model} --max-num-seqs {max_num_seqs} --enable-chunked-prefill={chunked}", config) ==
          "vllm serve Qwen/Qwen2.5-3B-Instruct --max-num-seqs 16 --enable-chunked-prefill=false");
    CHECK(substitute("{max_num_seqs}{max_num_seqs}", config) == "1616");
    CHECK(substitute("servestat simulate --port 8001", config) == "servestat simulate --port 8001");
    CHECK(substitute("", config) == "");
    try {
        (void)substitute("vllm serve M --max-num-seqs {max_num_seq}", config);
        FAIL("no error for an unknown placeholder");
    } catch (const usage_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("{max_num_seq}"));
    }
    CHECK_THROWS_AS(substitute("serve {max_num_seqs}", json::object()), usage_error);
}

// ---------------------------------------------------------------------------------------------
// manifest

namespace {

manifest sample_manifest() {
    manifest m;
    m.settings = json{{"url", "http://127.0.0.1:8000"}, {"seed", 1}, {"rate", 2.5}, {"sweep", {"concurrency"}}};
    manifest_point done;
    done.label = "concurrency1";
    done.log = "concurrency1.jsonl";
    done.params = json{{"concurrency", 1}};
    done.status = "done";
    done.requests = 100;
    done.ok = 98;
    m.record(done);
    manifest_point failed;
    failed.label = "concurrency2";
    failed.log = "concurrency2.jsonl";
    failed.params = json{{"concurrency", 2}, {"model", "M"}};
    failed.status = "failed";
    failed.error = "the server did not answer /v1/models within 600 s";
    m.record(failed);
    return m;
}

void check_same_point(const manifest_point& a, const manifest_point& b) {
    CHECK(a.label == b.label);
    CHECK(a.log == b.log);
    CHECK(a.params == b.params);
    CHECK(a.status == b.status);
    CHECK(a.error == b.error);
    CHECK(a.requests == b.requests);
    CHECK(a.ok == b.ok);
}

// Checks that reading the manifest `content` fails with an input_error naming the manifest.
void require_manifest_error(const std::string& content) {
    INFO("manifest: " << content);
    temp_file f(content, "manifest.json");
    try {
        (void)read_manifest(f.dir());
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.file() == f.str());
        CHECK_THAT(e.what(), Catch::Contains(f.str()));
    }
}

} // namespace

TEST_CASE("manifest: record replaces a point of the same label and find looks it up") {
    auto m = sample_manifest();
    REQUIRE(m.points.size() == 2);
    REQUIRE(m.find("concurrency2"));
    CHECK(m.find("concurrency2")->status == "failed");
    CHECK(m.find("concurrency4") == nullptr);
    manifest_point again = m.points[1];
    again.status = "done";
    again.error.clear();
    again.requests = again.ok = 50;
    m.record(again);
    REQUIRE(m.points.size() == 2);
    CHECK(m.points[1].status == "done");
    CHECK(m.points[1].requests == 50);
}

TEST_CASE("manifest: written and read back unchanged") {
    temp_file dir("", "unused");
    const auto original = sample_manifest();
    write_manifest(dir.dir(), original);
    CHECK(std::filesystem::exists(dir.dir() / "manifest.json"));
    CHECK_FALSE(std::filesystem::exists(dir.dir() / "manifest.json.tmp"));
    const auto back = read_manifest(dir.dir());
    CHECK(back.settings == original.settings);
    REQUIRE(back.points.size() == 2);
    check_same_point(back.points[0], original.points[0]);
    check_same_point(back.points[1], original.points[1]);
    CHECK(to_json(back) == to_json(original));

    const auto j = json::parse(read_text(dir.dir() / "manifest.json"));
    CHECK(j["servestat"] == "load-manifest");
    CHECK(j["version"] == 1);
    CHECK_FALSE(j["points"][0].contains("error")); // only failed points carry one
    CHECK(j["points"][1]["error"] == "the server did not answer /v1/models within 600 s");

    SECTION("a second write replaces the first") {
        manifest smaller;
        smaller.settings = json{{"seed", 2}};
        write_manifest(dir.dir(), smaller);
        const auto again = read_manifest(dir.dir());
        CHECK(again.settings == json{{"seed", 2}});
        CHECK(again.points.empty());
    }
}

TEST_CASE("read_manifest: a missing or bad manifest is an input error naming the file") {
    SECTION("no manifest") {
        temp_file dir("", "unused");
        const auto file = (dir.dir() / "manifest.json").string();
        try {
            (void)read_manifest(dir.dir());
            FAIL("no error");
        } catch (const input_error& e) {
            CHECK(e.file() == file);
            CHECK_THAT(e.what(), Catch::Contains(file));
        }
    }
    SECTION("not JSON") { require_manifest_error("{\"servestat\":"); }
    SECTION("not a manifest") {
        require_manifest_error(R"({"servestat":"log","version":1,"run":{}})");
        require_manifest_error(R"([1,2])");
        require_manifest_error(R"({"points":[]})");
    }
    SECTION("no points") { require_manifest_error(R"({"servestat":"load-manifest","version":1,"settings":{}})"); }
    SECTION("points that are not an array") {
        require_manifest_error(R"({"servestat":"load-manifest","version":1,"points":{}})");
    }
    SECTION("a point without a label or a status") {
        require_manifest_error(R"({"servestat":"load-manifest","version":1,"points":[{"status":"done"}]})");
        require_manifest_error(R"({"servestat":"load-manifest","version":1,"points":[{"label":"c1"}]})");
        require_manifest_error(R"({"servestat":"load-manifest","version":1,"points":[{"label":1,"status":"done"}]})");
        require_manifest_error(R"({"servestat":"load-manifest","version":1,"points":["c1"]})");
    }
}

TEST_CASE("read_manifest: wrongly typed fields are input errors too, not JSON library exceptions") {
    SECTION("servestat is not a string") { require_manifest_error(R"({"servestat":1,"points":[]})"); }
    SECTION("a point's log is not a string") {
        require_manifest_error(
            R"({"servestat":"load-manifest","version":1,"points":[{"label":"c1","status":"done","log":5}]})");
    }
    SECTION("a point's request count is not a number") {
        require_manifest_error(
            R"({"servestat":"load-manifest","version":1,"points":[{"label":"c1","status":"done","requests":"many"}]})");
    }
}

TEST_CASE("changed_settings lists changed, added and removed settings") {
    const json before{{"seed", 1}, {"rate", 2.5}, {"old", true}};
    const json now{{"seed", 2}, {"rate", 2.5}, {"new", "x"}};
    const std::vector<std::string> expected = {"seed: 1 -> 2", "new: (absent) -> \"x\"", "old: true -> (absent)"};
    CHECK(changed_settings(before, now) == expected);
    CHECK(changed_settings(before, before).empty());
    CHECK(changed_settings(json::object(), json::object()).empty());
    CHECK(changed_settings(json{{"sweep", {1, 2}}}, json{{"sweep", {1, 2, 4}}}) ==
          std::vector<std::string>{"sweep: [1,2] -> [1,2,4]"});
}

TEST_CASE("tail_lines keeps the last lines of a file") {
    SECTION("more lines than asked for") {
        temp_file f("first\nsecond\nthird\nfourth\nfifth\n", "server.log");
        const auto tail = tail_lines(f.path(), 2);
        CHECK(tail == "  | fourth\n  | fifth\n");
    }
    SECTION("fewer lines than asked for") {
        temp_file f("first\nsecond", "server.log"); // the last line unterminated
        CHECK(tail_lines(f.path(), 10) == "  | first\n  | second\n");
    }
    SECTION("an empty or missing file") {
        temp_file f("", "server.log");
        CHECK(tail_lines(f.path(), 5).empty());
        CHECK(tail_lines(f.dir() / "missing.log", 5).empty());
    }
}

// ---------------------------------------------------------------------------------------------
// server_process

TEST_CASE("server_process: a command that exits reports its status") {
    temp_file dir("", "unused");
    server_process p("exit 3", dir.dir() / "server.log");
    REQUIRE(eventually([&] { return !p.running(); }));
    CHECK(p.exit_status() == "exited with status 3");
    CHECK_FALSE(p.running());
    p.stop(1); // stopping an ended server changes nothing
    CHECK_FALSE(p.running());
    CHECK(p.exit_status() == "exited with status 3");
}

TEST_CASE("server_process: output and errors go to the log file") {
    temp_file dir("", "unused");
    const auto log = dir.dir() / "server.log";
    {
        std::ofstream(log) << "a previous server's log\n";
        server_process p("echo started on port 8000; echo warning >&2", log);
        REQUIRE(eventually([&] { return !p.running(); }));
        CHECK(p.exit_status() == "exited with status 0");
    }
    CHECK(read_text(log) == "started on port 8000\nwarning\n");
}

TEST_CASE("server_process: stop ends a running server with SIGTERM") {
    temp_file dir("", "unused");
    const auto log = dir.dir() / "server.log";
    server_process p("echo started; exec sleep 30", log);
    REQUIRE(eventually([&] { return read_text(log) == "started\n"; })); // the shell runs: past exec
    CHECK(p.running());
    p.stop(1);
    CHECK_FALSE(p.running());
    CHECK(p.exit_status() == "killed by signal 15");
}

namespace {

pid_t test_process_pid = 0;

// Stands in for a handler of the driver's (Asio's signal_set, Catch's): in the test process it does
// nothing; run anywhere else it marks the process by exiting with 99.
extern "C" void driver_sigterm_handler(int) {
    if (::getpid() != test_process_pid) ::_exit(99);
}

} // namespace

TEST_CASE("server_process: a server stopped as it starts never runs the driver's signal handlers") {
    // Between fork and exec the child is a copy of the driver, handlers included: a SIGTERM that
    // arrives then must end it as it ends the server, not run the driver's code in the server's place.
    test_process_pid = ::getpid();
    struct sigaction ours {}, previous{};
    ours.sa_handler = driver_sigterm_handler;
    sigemptyset(&ours.sa_mask);
    REQUIRE(::sigaction(SIGTERM, &ours, &previous) == 0);
    temp_file dir("", "unused");
    int wrong = 0;
    std::string first_wrong;
    for (int i = 0; i < 20; ++i) {
        server_process p("sleep 30", dir.dir() / "server.log");
        p.stop(1);
        if (p.exit_status() != "killed by signal 15" && wrong++ == 0) first_wrong = p.exit_status();
    }
    ::sigaction(SIGTERM, &previous, nullptr);
    INFO("first wrong status: " << first_wrong);
    CHECK(wrong == 0);
}

TEST_CASE("server_process: a server that ignores SIGTERM is killed after the grace") {
    temp_file dir("", "unused");
    const auto pid_file = dir.dir() / "pid";
    server_process p("trap '' TERM; sleep 30 & echo $! > '" + pid_file.string() + "'; wait",
                     dir.dir() / "server.log");
    const pid_t child = pid_written_to(pid_file);
    CHECK(p.running());
    p.stop(1);
    CHECK_FALSE(p.running());
    CHECK(p.exit_status() == "killed by signal 9");
    CHECK(eventually([&] { return process_ended(child); }));
}

TEST_CASE("server_process: stop ends the server's own children too") {
    temp_file dir("", "unused");
    const auto pid_file = dir.dir() / "pid";
    server_process p("sleep 30 & echo $! > '" + pid_file.string() + "'; wait", dir.dir() / "server.log");
    const pid_t child = pid_written_to(pid_file);
    REQUIRE(::kill(child, 0) == 0); // the child runs before the stop
    p.stop(1);
    CHECK_FALSE(p.running());
    CHECK(eventually([&] { return process_ended(child); }));
}

TEST_CASE("server_process: the destructor stops a running server") {
    temp_file dir("", "unused");
    const auto pid_file = dir.dir() / "pid";
    pid_t child = 0;
    {
        server_process p("sleep 30 & echo $! > '" + pid_file.string() + "'; wait", dir.dir() / "server.log");
        child = pid_written_to(pid_file);
    }
    CHECK(eventually([&] { return process_ended(child); }));
}

TEST_CASE("server_process: an unwritable log is an error naming it") {
    temp_file dir("", "unused");
    const auto log = dir.dir() / "no-such-directory" / "server.log";
    try {
        server_process p("sleep 30", log);
        FAIL("no error");
    } catch (const servestat::error& e) {
        CHECK_THAT(e.what(), Catch::Contains(log.string()));
    }
}

} // namespace test_load_sweep_plan
