"""Loops that once came out jitted (as fori_loops, or with a Python ``if`` left in one) and raised at run time:
each migrated function runs under real JAX against NumPy, or is shown left un-jitted with NPJ303."""

from __future__ import annotations

import textwrap

import jax
import numpy as np
import pytest

from tests.test_real_code_regressions import migrated_pair, record


def _codes(result, name):
    function = record(result, name)
    return {d.code for d in result.diagnostics if function.line <= d.line <= function.end_line}


def test_a_suffix_times_an_element_in_a_sum_keeps_the_loop():
    """np.sum(x[i + 1:] * x[i]) with a total starting as 0.0 (its first step peeled): the tokens computed while
    the loop was being decided, before its index was traced, were remembered, so the suffix's bound looked
    static and the fori body met a traced slice bound ("Slice entries must be static integers")."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def potential_energy(x):
            total = 0.0
            for i in range(len(x)):
                total += np.sum(x[i + 1:] * x[i])
            return total

        def masked_energy(x):
            total = 0.0
            for i in range(len(x)):
                total += np.sum(x[i + 1:] * 2.0)
            return total
        """
    )
    assert not record(result, "potential_energy").jit and "NPJ303" in _codes(result, "potential_energy")
    assert record(result, "masked_energy").jit  # every factor a suffix (or a literal): masked, as before
    for x in (np.arange(5.0), np.array([1.5, -2.0, np.inf]), np.array([3.0]), np.zeros(0)):
        np.testing.assert_array_equal(np.asarray(migrated.potential_energy(x)), original.potential_energy(x))
        np.testing.assert_allclose(np.asarray(migrated.masked_energy(x)), original.masked_energy(x))


def test_an_if_on_the_index_that_binds_a_new_name_keeps_the_loop():
    """`if t > 0 and t % every == 0:` binding `new` in its branch stayed a Python `if` inside the fori body
    (TracerBoolConversionError): the test's tokens had been computed before `t` was traced."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def rebalance(prices, w, every):
            n_t = prices.shape[0]
            holdings = w / prices[0]
            turnover = 0.0
            for t in range(n_t):
                value = holdings @ prices[t]
                if t > 0 and t % every == 0:
                    new = value * w / prices[t]
                    turnover += np.abs(new - holdings).sum()
                    holdings = new
            return holdings, turnover
        """
    )
    assert not record(result, "rebalance").jit and "NPJ303" in _codes(result, "rebalance")
    rng = np.random.default_rng(0)
    w = np.array([0.5, 0.3, 0.2])
    for n_t, every in ((12, 3), (1, 2), (7, 1)):
        prices = 1.0 + rng.random((n_t, 3))
        got, want = migrated.rebalance(prices, w, every), original.rebalance(prices, w, every)
        for g, o in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), o)


PROJECT = """
import numpy as np

def project_all(hist, g):
    out = np.zeros(len(hist))
    for i in range(len(hist)):
        out[i] = np.dot(hist[i], g)
    return out

def two_loop(g, s_hist, y_hist):
    q = g.copy()
    m = len(s_hist)
    alphas = np.zeros(m)
    for i in range(m - 1, -1, -1):
        alphas[i] = 1.0 / np.dot(y_hist[i], y_hist[i])  # y_hist indexed first, the loop as long as s_hist
        alphas[i] *= np.dot(s_hist[i], q) / np.dot(y_hist[i], s_hist[i])
        q -= alphas[i] * y_hist[i]
    return q, alphas

def stacked(hist, g):
    out = np.zeros(hist.shape[0])
    for i in range(len(hist)):
        out[i] = np.dot(hist[i], g)
    return out

def first_ten(hist, g):
    out = np.zeros(10)
    for i in range(10):
        out[i] = np.dot(hist[i], g)
    return out

def first_n(hist, g, n):
    out = np.zeros(n)
    for i in range(n):
        out[i] = hist[i] @ g
    return out
"""


def test_a_parameter_used_only_like_a_list_keeps_its_loop_unrolled():
    """`hist[i]` in a loop over range(len(hist)), hist used nowhere as an array: a caller's list of arrays
    (an L-BFGS history) under jit is a list of tracers, which a fori_loop's traced index cannot index
    (TracerIntegerConversionError). The loop stays a Python loop, which jit unrolls: exact for a list or an
    array, when the loop is as long as the list; another trip count is NPJ303."""
    result, original, migrated = migrated_pair(PROJECT)
    source = result.output.decode()
    for name in ("project_all", "two_loop"):
        assert record(result, name).jit and "NPJ305" not in _codes(result, name), name
    assert "jax.lax.fori_loop(0, len(hist), _loop_body, out)" in source  # `stacked`: hist.shape, an array
    for name in ("first_ten", "first_n"):  # as many steps as the code says, not as the list has: NPJ303
        assert not record(result, name).jit and "NPJ303" in _codes(result, name), name
    rng = np.random.default_rng(1)
    g = rng.random(3)
    with jax.enable_x64(True):  # NumPy's float64 throughout: the results must agree to the last bit or so
        for hist, v in (([rng.random(3) for _ in range(4)], g), (rng.random((5, 3)), g), ([], g),
                        ([rng.random(3).astype(np.float32)], g), ([1.0, 2.5], 0.5), (np.arange(4.0), np.float32(3.0))):
            got, want = migrated.project_all(hist, v), original.project_all(hist, v)
            assert np.asarray(got).dtype == want.dtype
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-15)  # XLA's dot may round its last bit differently
        for s_hist in ([rng.random(3) for _ in range(3)], rng.random((2, 3)), []):
            y_hist = [s + 0.5 for s in s_hist]
            for got, want in zip(migrated.two_loop(g, s_hist, y_hist), original.two_loop(g, s_hist, y_hist)):
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)  # XLA's dot: last-bit differences
        hist = rng.random((12, 3))
        np.testing.assert_allclose(np.asarray(migrated.stacked(hist, g)), original.stacked(hist, g))
        np.testing.assert_allclose(np.asarray(migrated.first_ten(list(hist), g)), original.first_ten(list(hist), g))
        np.testing.assert_allclose(np.asarray(migrated.first_n(list(hist), g, 4)), original.first_n(list(hist), g, 4))


@pytest.mark.parametrize("use", ["np.sum(hist)", "hist.shape[0]", "hist * 2.0", "helper(hist)", "hist"])
def test_a_parameter_used_as_a_whole_still_becomes_a_fori_loop(use):
    """Any use of the parameter other than len(), one index or a `for` (a NumPy call on it, an attribute,
    arithmetic, passing it on, returning it) keeps the fori_loop conversion."""
    result, _, _ = migrated_pair(
        f"""
        import numpy as np

        def helper(a):
            return a

        def f(hist, g):
            out = np.zeros(len(hist))
            for i in range(len(hist)):
                out[i] = np.dot(hist[i], g)
            extra = {use}
            return out, extra
        """
    )
    assert "NPJ305" in _codes(result, "f")



def test_a_vector_indexed_only_for_numbers_still_becomes_a_fori_loop():
    """`b[i]` used only as a number (an SOR sweep's right-hand side, neighbour differences) is an element of a
    plain vector: the loop over it stays a fori_loop, not a loop jit would unroll over a long array."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def sweep(A, b, x):
            x = x.copy()
            for i in range(A.shape[0]):
                sigma = np.dot(A[i], x) - A[i, i] * x[i]
                x[i] = (b[i] - sigma) / A[i, i]
            return x

        def differences(x):
            d = np.zeros(len(x) - 1)
            for i in range(len(x) - 1):
                d[i] = np.exp(x[i + 1]) - x[i]
            return d
        """
    )
    for name in ("sweep", "differences"):
        assert record(result, name).jit and "NPJ305" in _codes(result, name), name
    A, b = np.eye(3) * 4.0 + 1.0, np.arange(3.0)
    np.testing.assert_allclose(np.asarray(migrated.sweep(A, b, np.zeros(3))), original.sweep(A, b, np.zeros(3)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(migrated.differences(np.arange(4.0))), original.differences(np.arange(4.0)),
                               rtol=1e-6)


def test_a_mask_from_all_or_any_used_as_an_index_blocks_jit():
    """hunt7's spatial.bin_points: `ok = np.all(..., axis=1); ij[ok, 0]` was jitted and raised
    NonConcreteBooleanIndexError (a boolean mask index has no static shape)."""
    from np2jax.engine import migrate_source

    source = (
        "import numpy as np\n\n\n"
        "def inside(x, r):\n    ok = np.all(np.abs(x) < r, axis=1)\n    return x[ok, 0] * 2\n\n\n"
        "def near(x, r):\n    return x[(np.abs(x) < r).any(axis=1)]\n"
    )
    result = migrate_source(source.encode(), "m.py")
    assert not any(r.jit for r in result.functions)
    assert sorted(d.line for d in result.diagnostics if d.code == "NPJ301") == [6, 10]


def test_an_out_argument_in_a_loop_body_is_carried():
    """hunt6's farthest_point_sampling: `np.minimum(dist, d, out=dist)` became `dist = jnp.minimum(...)` inside
    the fori_loop body, but `dist` was not carried (UnboundLocalError)."""
    from np2jax.engine import migrate_source

    source = (
        "import numpy as np\n\n\n"
        "def farthest_point_sampling(points, m):\n"
        "    n = len(points)\n"
        "    chosen = np.zeros(m, dtype=np.int64)\n"
        "    dist = np.full(n, np.inf)\n"
        "    idx = 0\n"
        "    for t in range(m):\n"
        "        chosen[t] = idx\n"
        "        d = np.sum((points - points[idx]) ** 2, axis=1)\n"
        "        np.minimum(dist, d, out=dist)\n"
        "        idx = int(np.argmax(dist))\n"
        "    return chosen\n"
    )
    result = migrate_source(source.encode(), "m.py")
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    points = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0], [1.0, 1.0], [5.0, 5.0]], dtype=np.float32)
    for m in (0, 1, 3, 5):
        np.testing.assert_array_equal(np.asarray(migrated["farthest_point_sampling"](points, m)),
                                      original["farthest_point_sampling"](points, m))


def test_a_conditional_choosing_between_tuples_is_not_a_cond():
    """hunt5's gp.grid_search: `best = (s, l, v)` beside `best = (-np.inf, None, None)` became a jax.lax.cond
    whose branches differ in structure (TypeError at trace time)."""
    from np2jax.engine import migrate_source

    source = (
        "import numpy as np\n\n\n"
        "def best_of(scores, names):\n"
        "    best = (-np.inf, None)\n"
        "    for i in range(3):\n"
        "        s = np.sum(scores[i])\n"
        "        if s > best[0]:\n"
        "            best = (s, names[i])\n"
        "    return best\n"
    )
    result = migrate_source(source.encode(), "m.py")
    assert "jax.lax.cond" not in result.output.decode()
    assert any(d.code == "NPJ301" and "tuple or list" in d.message for d in result.diagnostics)


def test_inner_loop_bound_computed_from_outer_index_gets_no_python_guard():
    """0/1 knapsack (hunt10 01): `w = weights[i]` in a loop that becomes a fori_loop, then `range(capacity, w - 1, -1)`:
    the inner loop's `if w - 1 < capacity:` guard needed a Python bool of a traced value and raised."""
    from tests.runtime_helpers import migrate_and_exec

    source = textwrap.dedent("""\
        import numpy as np


        def knapsack(weights, values, capacity):
            best = np.zeros(capacity + 1)
            for i in range(len(weights)):
                w = weights[i]
                for c in range(capacity, w - 1, -1):
                    cand = best[c - w] + values[i]
                    if cand > best[c]:
                        best[c] = cand
            return best[capacity]
        """)
    result, original, new = migrate_and_exec(source)
    assert result.functions[0].jit and "if w - 1 < capacity" not in result.output.decode()
    for capacity in (5, 7, 1):
        args = (np.array([2, 3, 4, 5]), np.array([3.0, 4.0, 5.0, 6.0]), capacity)
        assert float(new["knapsack"](*args)) == original["knapsack"](*args)


def test_loop_over_a_parameters_samples_becomes_fori_loop_with_its_first_step_run_before():
    """Goertzel (hunt10 04): `for sample in x:` with state starting as Python floats stayed a Python loop in a
    jitted function: jit unrolled it len(x) times (8,000 samples had not compiled after 8 CPU-minutes). The
    samples are used as numbers, so `x` is a vector: the first step runs before a fori_loop, as for range loops."""
    from tests.runtime_helpers import migrate_and_exec

    source = textwrap.dedent("""\
        import numpy as np


        def goertzel(x, k):
            n = len(x)
            coeff = 2 * np.cos(2 * np.pi * k / n)
            s_prev = 0.0
            s_prev2 = 0.0
            for sample in x:
                s = sample + coeff * s_prev - s_prev2
                s_prev2 = s_prev
                s_prev = s
            return s_prev2 ** 2 + s_prev ** 2 - coeff * s_prev * s_prev2
        """)
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    # `x` may be a caller's list too (nothing says it is an array): the loop iterates jnp.asarray(x)
    # (s_prev2 takes what s_prev held a step earlier: two first steps, so that a 2-D x works too)
    assert result.functions[0].jit and "jax.lax.fori_loop(2, len(_seq), _loop_body, (s_prev2, s_prev))" in output, output
    assert "    x = jnp.asarray(x)\n" in output and "    _seq = x\n" in output and "        sample = _seq[0]\n" in output
    with jax.enable_x64(True):
        for n in (1, 2, 64, 3000):
            x = np.sin(np.arange(n) * 0.3)
            np.testing.assert_allclose(float(new["goertzel"](x, 5)), original["goertzel"](x, 5), rtol=1e-9)


def test_constructor_sized_by_a_carried_arrays_shape_keeps_the_loop_convertible():
    """`P = (np.eye(P.shape[0]) - K @ H) @ P` in a Kalman covariance loop (hunt10 06): `len(P)`/`P.shape[0]` of a
    carried array is static, but the loop was kept for it while the call moved to jnp, so a second pass converted
    the loop: NPJ202 "could not migrate this function to a fixed point", and the function stayed NumPy."""
    from tests.runtime_helpers import migrate_and_exec

    source = textwrap.dedent("""\
        import numpy as np


        def propagate(P0, n):
            P = P0.copy()
            for k in range(n):
                P = P + np.eye(len(P))
            return P


        def joseph_updates(P0, K, H, n):
            P = P0.copy()
            for k in range(n):
                P = (np.eye(P.shape[0]) - K @ H) @ P
            return P
        """)
    result, original, new = migrate_and_exec(source)
    assert all(f.jit for f in result.functions) and "NPJ202" not in {d.code for d in result.diagnostics}
    P0 = np.eye(3) * 2.0
    K, H = np.full((3, 2), 0.1), np.full((2, 3), 0.2)
    np.testing.assert_allclose(np.asarray(new["propagate"](P0, 4)), original["propagate"](P0, 4), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(new["joseph_updates"](P0, K, H, 5)), original["joseph_updates"](P0, K, H, 5), rtol=1e-5)


def test_loop_over_a_parameter_that_may_be_a_list_iterates_its_array():
    """Horner (hunt11 07): `for c in coeffs: y = y * x + c` became a fori_loop indexing `coeffs[_i]`, which raised
    for a caller's Python list (`poly_eval([1, 2], 2.0)`); it iterates `jnp.asarray(coeffs)` now."""
    from tests.runtime_helpers import migrate_and_exec

    source = textwrap.dedent("""\
        import numpy as np


        def poly_eval(coeffs, x):
            y = np.zeros_like(x, dtype=float)
            for c in coeffs:
                y = y * x + c
            return y
        """)
    result, original, new = migrate_and_exec(source)
    # (converted first, `coeffs = jnp.asarray(coeffs)`, so the loop reads it as it is: analysis/list_arguments.py)
    assert result.functions[0].jit and "coeffs = jnp.asarray(coeffs)" in result.output.decode()
    assert "_seq = coeffs" in result.output.decode()
    for args in [([1, 2], 2.0), ([1.0, 0.0, -2.0], np.array([0.0, 1.0, 2.0])), ((3,), 1.5), (np.array([1.0, 2.0]), 2.0)]:
        np.testing.assert_allclose(np.asarray(new["poly_eval"](*args)), original["poly_eval"](*args))


def test_an_int_array_carry_a_step_makes_a_float_runs_its_first_step_first():
    """`for k in range(n): u = 0.5 * (np.roll(u, 1) + np.roll(u, -1))` on an int `u` (redteam9 L-02): NumPy's `u`
    is a float after the first step, and a fori_loop carrying the int `u` raised ("body_fun output and input must
    have identical types"). The first step now runs before the loop; a float `u` from np.asarray(.., float) does not
    need it."""
    from tests.runtime_helpers import migrate_and_exec

    source = textwrap.dedent("""\
        import numpy as np


        def relax(u, n):
            for k in range(n):
                u = 0.5 * (np.roll(u, 1) + np.roll(u, -1))
            return u


        def relax_float(u0, n):
            u = np.asarray(u0, dtype=float)
            for k in range(n):
                u = 0.5 * (np.roll(u, 1) + np.roll(u, -1))
            return u
        """)
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    assert all(r.jit for r in result.functions), output
    assert output.count("jax.lax.fori_loop(1, n, _loop_body, u)") == 1, output
    assert "jax.lax.fori_loop(0, n, _loop_body, u)" in output, output
    for name in ("relax", "relax_float"):
        for u, n in ((np.array([4, 0, 1, 7]), 3), (np.array([4, 0, 1, 7]), 0), (np.array([1.5, -2.0, 0.25]), 5)):
            want, got = original[name](u, n), np.asarray(new[name](u, n))
            assert got.dtype.kind == want.dtype.kind, (name, u, n, got.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_carry_holding_the_previous_steps_value_gets_as_many_first_steps_as_it_needs():
    """hunt12 L1: `s2 = s1` before `s1 = s`, both starting as 0.0, over the rows of a 2-D array: after one peeled
    step s2 was still the Python 0.0 while s1 had the row's shape, and fori_loop raised on the carry types.  Such a
    carry now gets one first step more than the name it copies (each only if the loop has it)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def goertzel_power(x, k):
            coeff = 2 * np.cos(2 * np.pi * k / len(x))
            s1 = 0.0
            s2 = 0.0
            for sample in x:
                s = sample + coeff * s1 - s2
                s2 = s1
                s1 = s
            return s1 ** 2 + s2 ** 2 - coeff * s1 * s2

        def biquad(x, b0, b1, b2, a1, a2):
            x1 = x2 = y1 = y2 = 0.0
            for n in range(x.shape[0]):
                y = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                x2 = x1
                x1 = x[n]
                y2 = y1
                y1 = y
            return y1, y2

        def backwards(x):
            a = 0.0
            b = 0.0
            c = 0.0
            for i in range(x.shape[0] - 1, -1, -1):
                c = b
                b = a
                a = x[i] * 0.5 + b
            return a, b, c
        """
    )
    output = result.output.decode()
    assert "its first 2 steps run before it" in " ".join(d.message for d in result.diagnostics)
    assert all(record(result, name).jit for name in ("goertzel_power", "biquad", "backwards"))
    rng = np.random.default_rng(0)
    for shape in [(16,), (16, 2), (1, 3), (2, 3), (3,), (5, 2)]:
        x = rng.standard_normal(shape)
        np.testing.assert_allclose(migrated.goertzel_power(x, 3), original.goertzel_power(x, 3), rtol=1e-4, atol=1e-5)
        for got, want in zip(migrated.biquad(x, 0.2, 0.3, 0.2, -0.5, 0.1), original.biquad(x, 0.2, 0.3, 0.2, -0.5, 0.1)):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    for n in range(0, 6):
        x = rng.standard_normal((n, 2))
        for got, want in zip(migrated.backwards(x), original.backwards(x)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert output.count("jax.lax.fori_loop(") == 3


def test_a_mask_read_in_a_loop_of_a_function_that_is_not_jitted_leaves_it_numpy():
    """pyentrp sample_entropy (real13 P1): not jitted (a boolean mask index), its loop ran eager jax.numpy on arrays
    of a new shape at every step, each compiling new kernels: 0.009 s became 160 s.  Left as NumPy, with a note."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def matches(x, tol):
            n = len(x)
            counts = np.zeros(3)
            for i in range(n - 2):
                search = np.arange(n - i - 2)
                for k in range(3):
                    hit = np.abs(x[i + 1:][search] - x[i + k]) < tol
                    counts[k] += np.sum(hit)
                    search = search[hit]
            return counts

        def masked_mean(x, mask):
            return np.mean(x[mask])
        """
    )
    output = result.output.decode()
    assert "    counts = np.zeros(3)\n" in output and "hit = np.abs(" in output
    assert any(d.code == "NPJ304" and "left as NumPy code" in d.message for d in result.diagnostics)
    assert "jnp.mean(x[mask])" in output  # no loop: migrated as before (eager, NPJ301)
    x = np.sin(np.arange(40.0))
    np.testing.assert_array_equal(migrated.matches(x, 0.3), original.matches(x, 0.3))


def test_a_carry_whose_shape_changes_each_step_keeps_its_python_loop():
    """hunt14 L1: `values = disc * (p * values[:-1] + (1 - p) * values[1:])` (a binomial tree's backward pass) and
    de Casteljau's `pts = (1 - t) * pts[:-1] + t * pts[1:]` lose one element per step: as fori_loops they raised
    "carry input and carry output must have equal types" on every call.  A slice read inside a subscript write
    (an explicit heat step) keeps the written array's shape: that loop still converts, and the function
    migrates in one pass (the `.at[]` write made it array code only on a second pass: NPJ202)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def american_put(spot, strike, rate, vol, tau, steps=50):
            dt = tau / steps
            u = np.exp(vol * np.sqrt(dt))
            d = 1.0 / u
            p = (np.exp(rate * dt) - d) / (u - d)
            disc = np.exp(-rate * dt)
            j = np.arange(steps + 1)
            prices = spot * u ** (steps - j) * d ** j
            values = np.maximum(strike - prices, 0.0)
            for n in range(steps - 1, -1, -1):
                prices = prices[:-1] * d
                values = disc * (p * values[:-1] + (1 - p) * values[1:])
                np.maximum(values, strike - prices, out=values)
            return values[0]

        def de_casteljau(ctrl, t):
            pts = np.asarray(ctrl, dtype=float)
            for r in range(1, len(pts)):
                pts = (1 - t) * pts[:-1] + t * pts[1:]
            return pts[0]

        def heat(u, r, n):
            for _ in range(n):
                new = u.copy()
                new[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
                u = new
            return u
        """
    )
    assert "NPJ202" not in {d.code for d in result.diagnostics}
    for name in ("american_put", "de_casteljau"):
        assert "fori_loop" not in result.output.decode().split(f"def {name}")[1].split("\ndef ")[0], name
    assert record(result, "heat").jit and "NPJ305" in _codes(result, "heat")
    want = original.american_put(100.0, 100.0, 0.05, 0.2, 1.0, steps=12)
    assert abs(float(migrated.american_put(100.0, 100.0, 0.05, 0.2, 1.0, steps=12)) - want) < 1e-3
    ctrl = np.array([0.0, 1.0, 3.0, 2.0], dtype=np.float32)
    np.testing.assert_allclose(np.asarray(migrated.de_casteljau(ctrl, 0.3)), original.de_casteljau(ctrl, 0.3), rtol=1e-5)
    u0 = np.sin(np.linspace(0.0, 3.0, 16)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(migrated.heat(u0, 0.25, 20)), original.heat(u0.copy(), 0.25, 20), rtol=1e-5, atol=1e-6)


def test_a_loop_of_an_unjitted_function_that_slices_with_a_changing_length_stays_numpy():
    """real14 P1 (pymannkendall's Sen's slope): `d[idx:idx + len(j)] = ...` with `j = np.arange(i + 1, n)` in a
    loop that cannot be jitted: eager jax.numpy compiles a kernel per new shape, 100 steps took 30 s.  The
    function is left as NumPy code (NPJ304); fixed-length windows (`x[i:i + 3]`) keep their migration."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def sens_estimator(x):
            idx = 0
            n = len(x)
            d = np.ones(int(n * (n - 1) / 2))
            for i in range(n - 1):
                j = np.arange(i + 1, n)
                d[idx:idx + len(j)] = (x[j] - x[i]) / (j - i)
                idx = idx + len(j)
            return d

        def windows(x, k):
            total = np.zeros(3)
            for i in range(len(x) - 2):
                if k > 0:
                    print(i)
                total = total + x[i:i + 3]
            return total
        """
    )
    assert record(result, "sens_estimator").status == "needs-review" and not record(result, "sens_estimator").jit
    assert any(d.code == "NPJ304" and "length changes with the step" in d.message for d in result.diagnostics)
    assert "def sens_estimator(x):\n    idx = 0\n    n = len(x)\n    d = np.ones(" in result.output.decode()
    assert "jnp.zeros(3)" in result.output.decode()
    x = np.random.default_rng(1).normal(size=12)
    np.testing.assert_array_equal(migrated.sens_estimator(x), original.sens_estimator(x))
    np.testing.assert_allclose(np.asarray(migrated.windows(x, 0)), original.windows(x, 0), rtol=1e-6)


def test_loops_over_a_parameters_elements_used_as_indices_or_compared_are_not_unrolled():
    """hunt18 L7: `for l in labels: if l >= 0: sizes[l] += 1` was jitted with the loop left for jax.jit to unroll
    (one cond and scatter per element: 33 s to compile for 1,000 labels). Elements compared or used as an index
    make the parameter an array: the loop becomes a fori_loop, a `zip` loop too (session 14 kept that one un-jitted
    with NPJ303 until fori_loop could read zipped sequences), in one pass (no NPJ202)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def cluster_sizes(labels, k):
            sizes = np.zeros(k, dtype=int)
            for l in labels:
                if l >= 0:
                    sizes[l] += 1
            return sizes

        def accumulate(idx, vals, n):
            out = np.zeros(n)
            for i, v in zip(idx, vals):
                out[i] += v
            return out
        """)
    output = result.output.decode()
    assert record(result, "cluster_sizes").jit and "jax.lax.fori_loop" in output, output
    assert record(result, "accumulate").jit and "min(len(_seq), len(_seq_2))" in output, output
    assert "NPJ202" not in {d.code for d in result.diagnostics}
    labels = np.array([0, 2, -1, 2, 1, 2, -1, 0])
    np.testing.assert_array_equal(np.asarray(migrated.cluster_sizes(labels, 3)), original.cluster_sizes(labels, 3))
    idx, vals = np.array([0, 2, 2, 1]), np.array([0.5, 1.0, 2.0, 4.0])
    np.testing.assert_allclose(np.asarray(migrated.accumulate(idx, vals, 3)), original.accumulate(idx, vals, 3))


def test_a_carry_copied_from_an_int_argument_and_divided_in_the_loop_runs_its_first_step_before():
    """hunt18 L1: `w = weights.copy()`, then `w = w * (1 + returns[t]); w /= w.sum()` in the loop: with int
    weights the fori_loop carry went int32 -> float32 (TypeError when tracing). The first step now runs before
    the fori_loop, so the carry starts with the dtype the later steps keep."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def rebalance(weights, returns):
            w = weights.copy()
            hist = np.zeros((returns.shape[0], w.shape[0]))
            for t in range(returns.shape[0]):
                w = w * (1 + returns[t])
                w /= w.sum()
                hist[t] = w
            return hist
        """)
    assert record(result, "rebalance").jit and "jax.lax.fori_loop(1," in result.output.decode()
    returns = np.array([[0.1, -0.1], [0.0, 0.2], [0.05, 0.05]])
    for weights in (np.array([1, 1]), np.array([0.3, 0.7])):
        np.testing.assert_allclose(np.asarray(migrated.rebalance(weights, returns)), original.rebalance(weights, returns),
                                   rtol=1e-5)


def test_zip_loops_over_arrays_become_fori_loops_and_scans_that_stop_at_the_shortest():
    """`for x, w in zip(xs, ws)`: each step reads `x = xs[i]`, `w = ws[i]` for min(len(xs), len(ws)) steps, as
    zip stops at the shortest; a zip loop that appends per step becomes jax.lax.scan. A zip of names whose
    elements are only stored in a dict stays Python."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def weighted(xs, ws):
            total = np.zeros(xs.shape[1])
            for x, w in zip(xs, ws):
                total += w * x
            return total

        def running(a, b):
            out = []
            s = np.zeros(a.shape[1])
            for u, v in zip(a, b):
                s = s + u * v
                out.append(s)
            return np.stack(out)

        def table(keys, vals):
            d = {}
            for k, v in zip(keys, vals):
                d[k] = v
            return d
        """)
    output = result.output.decode()
    assert record(result, "weighted").jit and record(result, "running").jit, output
    assert "NPJ305" in _codes(result, "weighted") and "NPJ307" in _codes(result, "running")
    assert not record(result, "table").jit and "for k, v in zip(keys, vals):" in output
    rng = np.random.default_rng(3)
    xs, ys = rng.normal(size=(12, 3)), rng.normal(size=(9, 3))
    ws = rng.normal(size=12)
    np.testing.assert_allclose(np.asarray(migrated.weighted(xs, ws)), original.weighted(xs, ws), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(migrated.weighted(xs, ws[:5])), original.weighted(xs, ws[:5]), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(migrated.weighted(xs, list(ws))), original.weighted(xs, list(ws)), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(migrated.running(xs, ys)), original.running(xs, ys), rtol=1e-5)
    assert migrated.table(["a", "b"], [1, 2]) == {"a": 1, "b": 2}


def test_a_boolean_array_made_to_be_filled_is_a_mask_and_a_slice_of_a_parameter_is_iterated_as_it():
    """hunt20 L1: `seen = np.zeros(n, dtype=bool)`, `frontier = seen.copy()`, `seen |= nxt`: a mask, so
    `adj[frontier].sum(axis=0)` in the while_loop body becomes a where= reduction (it was left a boolean index:
    NonConcreteBooleanIndexError on every call). hunt20 L3: `for x in r[1:]` of a parameter whose elements the
    body computes with was unrolled by jax.jit (6 s to compile for 2,000 elements): now a fori_loop."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def reachable(adj, src):
            seen = np.zeros(adj.shape[0], dtype=bool)
            seen[src] = True
            frontier = seen.copy()
            while frontier.any():
                nxt = (adj[frontier].sum(axis=0) > 0) & ~seen
                seen |= nxt
                frontier = nxt
            return seen

        def ewma_vol(r, lam=0.94):
            var = r[0] ** 2
            for x in r[1:]:
                var = lam * var + (1 - lam) * x * x
            return np.sqrt(var)
        """)
    output = result.output.decode()
    assert record(result, "reachable").jit and "where=jnp.reshape(frontier" in output, output
    assert record(result, "ewma_vol").jit and "jax.lax.fori_loop" in output, output
    rng = np.random.default_rng(4)
    for src in range(4):
        adj = (rng.random((7, 7)) < 0.25).astype(float)
        np.testing.assert_array_equal(np.asarray(migrated.reachable(adj, src)), original.reachable(adj, src))
    r = rng.normal(size=40) * 0.01
    np.testing.assert_allclose(np.asarray(migrated.ewma_vol(r)), original.ewma_vol(r), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(migrated.ewma_vol(list(r))), original.ewma_vol(list(r)), rtol=1e-5)


def test_a_loop_over_elements_reduced_as_arrays_is_not_stacked_into_one_array():
    """hunt21-style regression of the parameter-element loops: `for g in grads: total += np.sum(g * g)` of a list of
    a network's gradients (arrays of different shapes) became `jnp.asarray(grads)` and a fori_loop, which cannot
    stack a ragged list (TypeError). Elements reduced, indexed, given attributes or matrix-multiplied are arrays:
    the loop stays as written (jax.jit unrolls it over the list)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def grad_norm(grads):
            total = 0.0
            for g in grads:
                total += np.sum(g * g)
            return np.sqrt(total)

        def weighted(ws, gs):
            total = 0.0
            for w, g in zip(ws, gs):
                total = total + np.sum(w * g)
            return total
        """)
    assert "jnp.asarray(grads)" not in result.output.decode() and "jnp.asarray(ws)" not in result.output.decode()
    # hunt22 L5: nor is it left to jax.jit to unroll (`for row in x: total += np.sum(row ** 2)`: 217 s to compile for
    # 3,000 rows): NPJ303, the function runs eagerly on lists and arrays alike
    assert not record(result, "grad_norm").jit and "NPJ303" in _codes(result, "grad_norm")
    assert not record(result, "weighted").jit
    grads = [np.ones((3, 2)), np.arange(4.0)]
    np.testing.assert_allclose(np.asarray(migrated.grad_norm(grads)), original.grad_norm(grads), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(migrated.weighted(grads, grads)), original.weighted(grads, grads), rtol=1e-6)


def test_a_zip_of_slices_of_one_parameter_reduced_as_arrays_is_not_left_to_jit_to_unroll():
    """hunt46 L4: `for a, b in zip(points[:-1], points[1:]): length += np.linalg.norm(b - a)` was jitted and
    unrolled per waypoint (15.6 s to compile 1,000 points); `for p in points[1:]` already got NPJ303. A zip of
    slices of a parameter is read as its elements too."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def path_length(points):
            length = 0.0
            for a, b in zip(points[:-1], points[1:]):
                length += np.linalg.norm(b - a)
            return length
        """)
    assert not record(result, "path_length").jit and "NPJ303" in _codes(result, "path_length")
    points = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 5.0]])
    np.testing.assert_allclose(np.asarray(migrated.path_length(points)), original.path_length(points), rtol=1e-6)


def test_a_zip_loop_in_a_module_with_a_star_import_keeps_its_python_loop():
    """hunt21 L8: `from numpy import *` binds `min` to np.min, so the fori_loop's trip count
    `min(len(xs), len(ys))` raised (AxisError). With a star import a zip of several sequences is not converted."""
    result, original, migrated = migrated_pair(
        """
        from numpy import *
        import numpy as np

        def zipped(xs, ws):
            total = np.zeros(xs.shape[1])
            for x, w in zip(xs, ws):
                total += w * x
            return total
        """)
    assert "min(len(" not in result.output.decode()
    xs, ws = np.arange(24.0).reshape(12, 2), np.linspace(0.0, 1.0, 12)
    np.testing.assert_allclose(np.asarray(migrated.zipped(xs, ws)), original.zipped(xs, ws), rtol=1e-5)


def test_windows_of_an_array_padded_by_half_the_loop_length_are_dynamic_slices():
    """hunt23 FP5: `padded = np.pad(img, k // 2)` then `padded[i:i + h]` for i in range(k): the window is inside
    because 2 * (k // 2) >= k - 1 (and k // 2 + (k - 1) // 2 == k - 1), so the loop is a fori_loop with dynamic
    slices, for odd and even k; a pad on one side only proves nothing and stays NPJ303."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def convolve2d(img, kernel):
            kh, kw = kernel.shape
            padded = np.pad(img, ((kh // 2, kh // 2), (kw // 2, kw // 2)))
            out = np.zeros(img.shape)
            for i in range(kh):
                for j in range(kw):
                    out += kernel[i, j] * padded[i:i + img.shape[0], j:j + img.shape[1]]
            return out

        def box1d(x, k):
            p = np.pad(x, k // 2, mode="edge")
            out = np.zeros(len(x))
            for i in range(k):
                out += p[i:i + len(x)]
            return out / k

        def box_same(x, k):
            p = np.pad(x, (k // 2, (k - 1) // 2))
            out = np.zeros(len(x))
            for i in range(k):
                out += p[i:i + len(x)]
            return out

        def short_pad(img, k):
            padded = np.pad(img, (k // 2, 0))
            out = np.zeros(img.shape)
            for i in range(k):
                out += padded[i:i + img.shape[0]]
            return out
        """
    )
    assert record(result, "convolve2d").jit and record(result, "box1d").jit and record(result, "box_same").jit
    assert not record(result, "short_pad").jit
    assert [d.line for d in result.diagnostics if d.code == "NPJ303"] == [30, 30]
    rng = np.random.default_rng(0)
    img = rng.random((7, 9))
    for shape in ((3, 3), (2, 4), (1, 1), (5, 2)):
        kernel = rng.random(shape)
        np.testing.assert_allclose(migrated.convolve2d(img, kernel), original.convolve2d(img, kernel), rtol=1e-5)
    x = rng.random(11)
    for k in range(1, 6):
        np.testing.assert_allclose(migrated.box1d(x, k), original.box1d(x, k), rtol=1e-5)
        np.testing.assert_allclose(migrated.box_same(x, k), original.box_same(x, k), rtol=1e-5)


def test_a_comprehension_as_long_as_an_array_is_not_unrolled_by_jit():
    """real33 L: `[np.sum(x[:i + 1]) for i in range(len(x))]` came out jitted with no diagnostic, and jax.jit
    unrolled it one copy per element (17 s to compile for 400 samples; the `for` loop form was NPJ303). A
    comprehension over an array's length (`len(x)`, `x.shape[0]`, a name bound to one) keeps the function
    un-jitted; one over a few steps or a count the caller gives still jits."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def prefix_sums(x):
            return np.array([np.sum(x[:i + 1]) for i in range(len(x))])

        def centred_prefix(x):
            n = x.shape[0]
            return np.array([np.mean(x[:i + 1]) - x[i] for i in range(n)])

        def shifted(x, n_shifts: int = 3):
            return np.stack([np.roll(x, k) for k in range(n_shifts)])

        def three(x):
            return np.stack([x * k for k in range(3)])
        """
    )
    for name in ("prefix_sums", "centred_prefix"):
        assert not record(result, name).jit and "NPJ303" in _codes(result, name), name
    assert record(result, "shifted").jit and record(result, "three").jit
    x = np.arange(1.0, 6.0)
    for name, args in (("prefix_sums", (x,)), ("centred_prefix", (x,)), ("shifted", (x, 2)), ("three", (x,))):
        np.testing.assert_allclose(np.asarray(getattr(migrated, name)(*args)), getattr(original, name)(*args), rtol=1e-6)


def test_a_loop_over_a_parameter_given_a_set_or_a_range_stays_a_python_loop():
    """hunt46 L6: `for i in idx` became a fori_loop over `jnp.asarray(idx)` in a jitted function, and the module's
    own calls `total_at(x, range(3))`, `total_at(x, {0, 2})` raised: jax.jit takes neither a range nor a set as an
    argument (and jnp.asarray no set). Such a loop is NPJ303 and the function runs un-jitted, as NumPy did."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def total_at(x, idx):
            s = np.zeros(x.shape[1])
            for i in idx:
                s = s + np.abs(x[i]) * 2.0
            return s

        def use(x):
            return total_at(x, range(3)) + total_at(x, {0, 2})
        """
    )
    assert not record(result, "total_at").jit and "NPJ303" in _codes(result, "total_at")
    x = np.arange(10.0).reshape(5, 2)
    np.testing.assert_allclose(np.asarray(migrated.use(x)), original.use(x))


def test_a_window_beside_its_whole_array_keeps_the_carrys_shape():
    """hunt57 L4b: Floyd–Warshall's `D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])` was reported as a carry that
    "may change shape (`D[k:k + 1, :]`)". Windows of one element per axis beside the whole `D` broadcast back to
    D's shape; what keeps the loop a Python loop is the slice at the traced index (not provably inside the array:
    `D` may have fewer columns than rows), which NPJ303 now names. A shrinking slice still counts as a shape change."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def floyd_warshall(D):
            n = D.shape[0]
            for k in range(n):
                D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])
            return D

        def shrink(x):
            for k in range(x.shape[0] - 1):
                x = np.maximum(x, x[1:] * 0.5)
            return x
        """
    )
    messages = [d.message for d in result.diagnostics if d.code == "NPJ303"]
    assert not any("`D` may change shape" in m for m in messages), messages
    assert any("slice bound uses `k`" in m for m in messages), messages
    assert any("`x` may change shape" in m for m in messages), messages
    W = np.random.default_rng(0).uniform(size=(6, 6))
    np.testing.assert_allclose(np.asarray(migrated.floyd_warshall(W)), original.floyd_warshall(W), rtol=1e-6)


def test_a_carry_a_helper_returns_in_float64_gets_its_dtype_from_a_first_step():
    """hunt59 L3: k-means with `centers = x[:k].copy()` of float32 data and `centers = update_centers(...)`, a
    function of the module returning float64 sums (`np.zeros((k, d))`): under x64 the fori_loop was given a float32
    carry and a float64 result ("carry input and carry output must have equal types"). The first step now runs
    before the loop, as for a carry an int array starts."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def update_centers(x, labels, k):
            c = np.zeros((k, x.shape[1]))
            for j in range(k):
                c[j] = x[labels == j].mean(0)
            return c

        def kmeans(x, k, iters):
            centers = x[:k].copy()
            for _ in range(iters):
                labels = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(-1).argmin(1)
                centers = update_centers(x, labels, k)
            return centers
        """
    )
    assert record(result, "kmeans").jit and "its first step run before it" in " ".join(
        d.message for d in result.diagnostics if d.code == "NPJ305"), result.diagnostics
    x = np.random.default_rng(0).normal(size=(20, 2)).astype(np.float32)
    for x64 in (True, False):
        with jax.enable_x64(x64):
            got, want = np.asarray(migrated.kmeans(x, 2, 3)), original.kmeans(x, 2, 3)
            assert got.dtype == (want.dtype if x64 else np.float32)
            np.testing.assert_allclose(got, want, rtol=1e-5)
