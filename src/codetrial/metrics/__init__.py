"""pass@k, intervals and paired comparisons."""

from codetrial.metrics.intervals import Estimate, bootstrap_mean, t_interval, wilson
from codetrial.metrics.passk import mean_pass_at_k, pass_at_k

__all__ = ["Estimate", "bootstrap_mean", "mean_pass_at_k", "pass_at_k", "t_interval", "wilson"]
