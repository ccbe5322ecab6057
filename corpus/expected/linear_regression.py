"""Linear regression trained with plain gradient descent.

The training step is written out by hand: prediction, mean squared error, its
gradient and an SGD update.  ``onp`` is how older JAX examples spelled NumPy.
"""

import numpy as onp
import functools
import jax
import jax.numpy as jnp

LEARNING_RATE = 0.05
N_STEPS = 100


@functools.partial(jax.jit, static_argnums=(0,))
def init_params(n_features):
    """Zero weights and bias for ``n_features`` inputs."""
    w = jnp.zeros(n_features, dtype=onp.float32)
    b = onp.float32(0.0)
    return w, b


@jax.jit
def predict(w, b, X):
    w = jnp.asarray(w)
    b = jnp.asarray(b)
    X = jnp.asarray(X)
    return jnp.dot(X, w) + b


@jax.jit
def mse_loss(w, b, X, y):
    """Mean squared error of the linear model."""
    y = jnp.asarray(y)
    residual = predict(w, b, X) - y
    return jnp.mean(residual ** 2)


@jax.jit
def mse_grad(w, b, X, y):
    """Gradient of :func:`mse_loss` with respect to ``(w, b)``."""
    y = jnp.asarray(y)
    n = X.shape[0]
    residual = predict(w, b, X) - y
    grad_w = 2.0 / n * jnp.dot(X.T, residual)
    grad_b = 2.0 * jnp.mean(residual)
    return grad_w, grad_b


@jax.jit
def sgd_update(w, b, X, y, lr=LEARNING_RATE):
    """One step of gradient descent; returns the new parameters."""
    grad_w, grad_b = mse_grad(w, b, X, y)
    return w - lr * grad_w, b - lr * grad_b


@functools.partial(jax.jit, static_argnums=(2,))
def fit(X, y, n_steps=N_STEPS, lr=LEARNING_RATE):
    """Run ``n_steps`` of full-batch gradient descent from zero."""
    w, b = init_params(X.shape[1])
    def _loop_body(_, _carry):
        w, b = _carry
        w, b = sgd_update(w, b, X, y, lr)
        return w, b
    w, b = jax.lax.fori_loop(0, n_steps, _loop_body, (w, b))
    return w, b


def make_loss(X, y):
    """Close over the data so the loss is a function of the parameters only."""

    def loss(w, b):
        return mse_loss(w, b, X, y)

    return loss


@jax.jit
def r_squared(w, b, X, y):
    """Coefficient of determination of the fitted model."""
    y = jnp.asarray(y)
    ss_res = jnp.sum((y - predict(w, b, X)) ** 2)
    ss_tot = jnp.sum((y - jnp.mean(y * 1.0)) ** 2)
    return 1.0 - ss_res / ss_tot


if __name__ == "__main__":
    # Quick demo on synthetic data: y = 3 x0 - 2 x1 + 1 + noise.
    gen = onp.random.default_rng(0)
    X = gen.normal(size=(200, 2)).astype(onp.float32)
    y = X @ onp.array([3.0, -2.0], dtype=onp.float32) + 1.0 + 0.1 * gen.normal(size=200)
    w, b = fit(X, y)
    print("weights", onp.round(w, 3), "bias", round(float(b), 3))
    print("R^2", r_squared(w, b, X, y))
