// Tests for servestat/load/metrics_sampler.hpp: --power-url's URL as it is parsed, and the samplers
// of the server's /metrics and of a power endpoint against a loopback exporter: which path each asks
// for, the file and the run.end key each writes, the closing scrape a finished run takes (at or after
// the moment it finished: energy needs a sample past the last request's end) and an abandoned one
// does not. Nothing is timed beyond that order of events: the interval is long enough that no
// scrape but the first and the closing one is due.
#include "servestat/load/metrics_sampler.hpp"

#include <atomic>      // std::atomic
#include <chrono>      // std::chrono
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <mutex>       // std::mutex, std::lock_guard
#include <string>      // std::string
#include <string_view> // std::string_view
#include <thread>      // std::thread, std::this_thread::sleep_for
#include <vector>      // std::vector

#include <arpa/inet.h>  // htonl, ntohs
#include <netinet/in.h> // sockaddr_in
#include <sys/socket.h> // ::socket, ::bind, ::listen, ::accept, ::recv, ::send, ::shutdown
#include <unistd.h>     // ::close

#include <catch2/catch.hpp>  // TEST_CASE, CHECK, REQUIRE, CHECK_THROWS_WITH, Catch::Matchers
#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/core/errors.hpp"             // usage_error
#include "servestat/ingest/metrics_timeline.hpp" // read_metrics_timeline
#include "temp_file.hpp"                         // temp_folder

namespace test_load_metrics_sampler { // the unity build compiles several test files as one

namespace {

namespace fs = std::filesystem;
using servestat::load::metrics_sampler;
using servestat::load::parse_scrape_url;
using servestat::test::temp_folder;
using seconds = std::chrono::duration<double>;

// A Prometheus endpoint on 127.0.0.1 that answers every request with `body`, one request per
// connection, and keeps the paths it was asked for.
class exporter {
public:
    explicit exporter(std::string body) : body_(std::move(body)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(listener_ >= 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&address), size) == 0);
        REQUIRE(::listen(listener_, 16) == 0);
        REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
        port_ = std::to_string(ntohs(address.sin_port));
        thread_ = std::thread([this] { serve(); });
    }
    ~exporter() {
        ::shutdown(listener_, SHUT_RDWR); // wakes accept()
        thread_.join();
        ::close(listener_);
    }
    exporter(const exporter&) = delete;
    exporter& operator=(const exporter&) = delete;

    const std::string& port() const { return port_; }
    std::string url(std::string_view path) const { return fmt::format("http://127.0.0.1:{}{}", port_, path); }
    std::size_t answered() const { return answered_; }
    std::vector<std::string> paths() const {
        std::lock_guard lock(mutex_);
        return paths_;
    }

    // Until `n` requests were answered (the sampler's thread is its own).
    void wait_for(std::size_t n) const {
        for (int i = 0; i < 1000 && answered_ < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        REQUIRE(answered_ >= n);
    }

private:
    void serve() {
        for (;;) {
            const int fd = ::accept(listener_, nullptr, nullptr);
            if (fd < 0) return;
            if (auto path = read_path(fd); !path.empty()) {
                const auto reply = fmt::format("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n"
                                               "Connection: close\r\n\r\n{}",
                                               body_.size(), body_);
                (void)::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
                {
                    std::lock_guard lock(mutex_);
                    paths_.push_back(std::move(path));
                }
                ++answered_;
            }
            ::close(fd);
        }
    }

    // The request line's path, once the head is in; empty when the client went first.
    static std::string read_path(int fd) {
        std::string head;
        char buffer[4096];
        while (head.find("\r\n\r\n") == std::string::npos) {
            const auto n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0) return {};
            head.append(buffer, static_cast<std::size_t>(n));
        }
        const auto start = head.find(' ') + 1;
        return head.substr(start, head.find(' ', start) - start);
    }

    std::string body_;
    int listener_ = -1;
    std::string port_;
    std::thread thread_;
    std::atomic<std::size_t> answered_{0};
    mutable std::mutex mutex_;
    std::vector<std::string> paths_;
};

// Two GPUs as NVIDIA's DCGM exporter shows them: power in W, energy since boot in mJ.
constexpr std::string_view dcgm_text = "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
                                       "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
                                       "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\"} 250.5\n"
                                       "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-b\"} 249.5\n"
                                       "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
                                       "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-a\"} 1000\n"
                                       "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"1\",UUID=\"GPU-b\"} 2000\n";

constexpr std::string_view vllm_text = "# TYPE vllm:num_requests_running gauge\n"
                                       "vllm:num_requests_running 3\n"
                                       "# TYPE vllm:num_requests_waiting gauge\n"
                                       "vllm:num_requests_waiting 1\n";

servestat::load::sampled_endpoint power_at(const std::string& url, const fs::path& log) {
    return servestat::load::power_endpoint(parse_scrape_url(url, "--power-url"), log);
}

} // namespace

TEST_CASE("--power-url: host, port and the path as given; no path is /metrics; a bad one names the flag",
          "[load][metrics_sampler]") {
    const auto dcgm = parse_scrape_url("http://gpu-node:9400/metrics", "--power-url");
    CHECK(dcgm.where.host == "gpu-node");
    CHECK(dcgm.where.port == "9400");
    CHECK(!dcgm.where.tls);
    CHECK(dcgm.where.prefix.empty());
    CHECK(dcgm.path == "/metrics");
    // https on its default port; a path that ends in /v1 or carries a query is no OpenAI base URL: kept.
    const auto proxied = parse_scrape_url("https://proxy.example/gpu/v1?node=3", "--power-url");
    CHECK(proxied.where.tls);
    CHECK(proxied.where.port == "443");
    CHECK(proxied.path == "/gpu/v1?node=3");
    CHECK(parse_scrape_url("http://gpu-node:9400", "--power-url").path == "/metrics");
    for (const auto* bad : {"gpu-node:9400/metrics", "ftp://gpu-node/metrics", "http://gpu-node:dcgm/metrics",
                            "http:///metrics", "http://:9400/metrics"})
        CHECK_THROWS_WITH(parse_scrape_url(bad, "--power-url"),
                          Catch::Matchers::StartsWith(fmt::format("--power-url {}: expected http[s]://HOST[:PORT]/PATH", bad)));
    CHECK_THROWS_AS(parse_scrape_url("gpu-node", "--power-url"), servestat::usage_error);
}

TEST_CASE("the power sampler: its path, X.power-timeline.jsonl, run.end.power_timeline, and a closing scrape "
          "at or after the run's end",
          "[load][metrics_sampler]") {
    const temp_folder dir;
    const exporter dcgm{std::string(dcgm_text)};
    const auto log = dir.path / "run.jsonl";
    const auto url = dcgm.url("/metrics");
    nlohmann::ordered_json end;
    double finished_at = 0;
    std::string progress, summary;
    {
        metrics_sampler sampler(power_at(url, log), {}, 30.0); // no tick is due but the first at t = 0
        const auto start = servestat::load::steady::now();
        sampler.started(start);
        dcgm.wait_for(1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        finished_at = seconds(servestat::load::steady::now() - start).count();
        sampler.finished(end);
        progress = sampler.progress();
        summary = sampler.summary();
    }
    CHECK(dcgm.paths() == std::vector<std::string>{"/metrics", "/metrics"});
    CHECK(end.dump() == R"({"power_timeline":{"file":"run.power-timeline.jsonl","interval":30.0,"scrapes":2,"failed":0}})");
    CHECK(progress.empty()); // the queue on the progress line is the server's, not the GPUs'
    CHECK(summary == fmt::format("power from {} sampled 2 times into run.power-timeline.jsonl", url));

    const auto file = dir.path / "run.power-timeline.jsonl";
    REQUIRE(fs::exists(file));
    CHECK(!fs::exists(dir.path / "run.metrics-timeline.jsonl"));
    const auto s = servestat::read_metrics_timeline(file); // the metrics timeline's format, read as strictly
    CHECK(s.url == url);
    CHECK(s.interval == 30.0);
    REQUIRE(s.t.size() == 2);
    CHECK(s.t[0] < finished_at);
    CHECK(s.t[1] >= finished_at - 1e-6); // the closing scrape, sent after finished(); times are to the µs
    CHECK(*s.find("DCGM_FI_DEV_POWER_USAGE") == std::vector<double>{500, 500});             // 250.5 + 249.5 W
    CHECK(*s.find("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") == std::vector<double>{3000, 3000}); // mJ, both GPUs
    CHECK(s.types.at("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") == "counter");
    CHECK(s.label_sets.at("DCGM_FI_DEV_POWER_USAGE") == std::vector<double>{2, 2}); // two GPUs
}

TEST_CASE("the server's /metrics sampler keeps its file, key, summary and progress line, and closes with a scrape too",
          "[load][metrics_sampler]") {
    const temp_folder dir;
    const exporter server{std::string(vllm_text)};
    const auto log = dir.path / "run.jsonl";
    nlohmann::ordered_json end;
    std::string progress, summary;
    {
        metrics_sampler sampler(servestat::load::endpoint{.host = "127.0.0.1", .port = server.port()}, {}, 30.0, log);
        sampler.started(servestat::load::steady::now());
        server.wait_for(1);
        sampler.finished(end);
        progress = sampler.progress(); // the last sample's, once every scrape is in
        summary = sampler.summary();
    }
    CHECK(server.paths() == std::vector<std::string>{"/metrics", "/metrics"});
    CHECK(end.dump() ==
          R"({"metrics_timeline":{"file":"run.metrics-timeline.jsonl","interval":30.0,"scrapes":2,"failed":0}})");
    CHECK(progress == "server 3 running, 1 waiting");
    CHECK(summary == "/metrics sampled 2 times into run.metrics-timeline.jsonl");
    const auto s = servestat::read_metrics_timeline(dir.path / "run.metrics-timeline.jsonl");
    CHECK(s.url == server.url("/metrics"));
    CHECK(s.t.size() == 2);
}

TEST_CASE("a sampler abandoned without finished() takes no closing scrape", "[load][metrics_sampler]") {
    const temp_folder dir;
    const exporter dcgm{std::string(dcgm_text)};
    {
        metrics_sampler sampler(power_at(dcgm.url("/metrics"), dir.path / "run.jsonl"), {}, 30.0);
        sampler.started(servestat::load::steady::now());
        dcgm.wait_for(1);
    } // the destructor stops the thread at once
    CHECK(dcgm.answered() == 1);
    CHECK(servestat::read_metrics_timeline(dir.path / "run.power-timeline.jsonl").t.size() == 1);
}

} // namespace test_load_metrics_sampler
