// A confidence interval: the range [low, high] that holds the true value of a statistic with the
// stated confidence (a percentile's from order statistics, a mean's from Student's t, a change's
// from the bootstrap).
#pragma once

namespace servestat {

struct interval {
    double low = 0, high = 0;
    bool operator==(const interval&) const = default;
};

} // namespace servestat
