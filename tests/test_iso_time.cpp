// Tests for servestat/core/iso_time.hpp. Expected texts from Python:
// datetime.fromtimestamp(s, timezone.utc).isoformat().
#include "servestat/core/iso_time.hpp"

#include <catch2/catch.hpp> // TEST_CASE, CHECK

namespace test_iso_time { // the unity build compiles several test files as one: each keeps its names

using servestat::detail::iso_utc;

TEST_CASE("Unix nanoseconds become ISO 8601 UTC, whole seconds by default") {
    CHECK(iso_utc(1703638574LL * 1000000000) == "2023-12-27T00:56:14Z");
    CHECK(iso_utc(0) == "1970-01-01T00:00:00Z");
    CHECK(iso_utc(951782400LL * 1000000000) == "2000-02-29T00:00:00Z"); // a leap day
}

TEST_CASE("the fraction is truncated to the digits asked for, trailing zeros dropped") {
    CHECK(iso_utc(1759522419154568925LL, 3) == "2025-10-03T20:13:39.154Z");
    CHECK(iso_utc(1759522419154568925LL, 9) == "2025-10-03T20:13:39.154568925Z");
    CHECK(iso_utc(1718031600250000000LL, 6) == "2024-06-10T15:00:00.25Z");
    CHECK(iso_utc(1718031600000000999LL, 6) == "2024-06-10T15:00:00Z");
}

TEST_CASE("times before 1970 count back from the epoch") {
    CHECK(iso_utc(-1LL * 1000000000) == "1969-12-31T23:59:59Z");
}

// Expected values from Python: datetime.fromisoformat(text) (UTC when no zone), .timestamp() in ns.
TEST_CASE("ISO 8601 dates and times parse back to Unix nanoseconds") {
    using servestat::detail::parse_iso_utc;
    CHECK(parse_iso_utc("2026-01-12T00:41:17Z") == 1768178477000000000LL);
    CHECK(parse_iso_utc("2026-01-12 00:41:17.5+02:00") == 1768171277500000000LL);
    CHECK(parse_iso_utc("2026-01-12T00:41") == 1768178460000000000LL);
    CHECK(parse_iso_utc("2026-01-12") == 1768176000000000000LL);
    CHECK(parse_iso_utc("2024-02-29T23:59:59.123456789-05:30") == 1709270999123456789LL);
    CHECK(parse_iso_utc(iso_utc(1759522419154568925LL, 9)) == 1759522419154568925LL);
}

TEST_CASE("text that is not an ISO 8601 date parses to nothing") {
    using servestat::detail::parse_iso_utc;
    for (const char* bad : {"", "yesterday", "2026-02-30", "2026-1-12", "2026-01-12T25:00", "2026-01-12T10:00Zx",
                            "2026-01-12T10:00:00.", "2026-01-12T10:00+2", "2026-13-01"})
        CHECK_FALSE(parse_iso_utc(bad).has_value());
}

} // namespace test_iso_time
