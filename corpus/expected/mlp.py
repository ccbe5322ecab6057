"""A tiny multi-layer perceptron, half-way through a port to JAX.

The activations were already moved to ``jax.numpy``; the rest is still NumPy.
Parameters are a list of ``(W, b)`` pairs.
"""

import functools
import jax
import jax.numpy as jnp


@jax.jit
def relu(x):
    return jnp.maximum(x, 0.0)


@jax.jit
def tanh(x):
    x = jnp.asarray(x)
    return jnp.tanh(x)


@functools.partial(jax.jit, static_argnums=(1,))
def softmax(logits, axis=-1):
    """Softmax along ``axis``, shifted by the max for stability."""
    logits = jnp.asarray(logits)
    shifted = logits - jnp.max(logits, axis=axis, keepdims=True)
    e = jnp.exp(shifted)
    return e / jnp.sum(e, axis=axis, keepdims=True)


@functools.partial(jax.jit, static_argnums=(1,))
def log_softmax(logits, axis=-1):
    shifted = logits - logits.max(axis=axis, keepdims=True)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axis, keepdims=True))


@jax.jit
def cross_entropy(logits, labels):
    """Mean negative log-likelihood of integer ``labels`` under ``logits``."""
    logp = log_softmax(logits)
    n = logits.shape[0]
    return -jnp.mean(logp[jnp.arange(n), labels])


@jax.jit
def accuracy(logits, labels):
    logits = jnp.asarray(logits)
    labels = jnp.asarray(labels)
    return jnp.mean(jnp.argmax(logits, axis=-1) == labels)


@jax.jit
def glorot_scale(fan_in, fan_out):
    # Standard deviation of Glorot-normal initialisation for a dense layer.
    return jnp.sqrt(2.0 / (fan_in + fan_out))


@jax.jit
def dense(params, x):
    x = jnp.asarray(x)
    W, b = params
    return jnp.dot(x, W) + b


class MLP:
    """Fully connected network with tanh hidden layers."""

    def __init__(self, layers):
        self.layers = layers

    @property
    def depth(self):
        return len(self.layers)

    @staticmethod
    def init_layer(W, b, scale=1.0):
        """A ``(W, b)`` pair with the weights rescaled."""
        return jnp.asarray(W) * scale, jnp.asarray(b)

    def forward(self, x):
        """Logits for a batch ``x`` of shape ``(batch, features)``."""
        for params in self.layers[:-1]:
            x = jnp.tanh(dense(params, x))
        return dense(self.layers[-1], x)

    def predict_proba(self, x):
        return softmax(self.forward(x))

    def loss(self, x, labels):
        return cross_entropy(self.forward(x), labels)

    def l2_penalty(self, weight_decay=1e-4):
        """Sum of squared weights (biases excluded), times ``weight_decay``."""
        return weight_decay * sum(jnp.sum(W ** 2) for W, _ in self.layers)
