"""A tiny multi-layer perceptron, half-way through a port to JAX.

The activations were already moved to ``jax.numpy``; the rest is still NumPy.
Parameters are a list of ``(W, b)`` pairs.
"""

import numpy as np
import jax.numpy as jnp


def relu(x):
    return jnp.maximum(x, 0.0)


def tanh(x):
    return np.tanh(x)


def softmax(logits, axis=-1):
    """Softmax along ``axis``, shifted by the max for stability."""
    shifted = logits - np.max(logits, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(logits, axis=-1):
    shifted = logits - logits.max(axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def cross_entropy(logits, labels):
    """Mean negative log-likelihood of integer ``labels`` under ``logits``."""
    logp = log_softmax(logits)
    n = logits.shape[0]
    return -np.mean(logp[np.arange(n), labels])


def accuracy(logits, labels):
    return jnp.mean(np.argmax(logits, axis=-1) == labels)


def glorot_scale(fan_in, fan_out):
    # Standard deviation of Glorot-normal initialisation for a dense layer.
    return np.sqrt(2.0 / (fan_in + fan_out))


def dense(params, x):
    W, b = params
    return np.dot(x, W) + b


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
        return np.asarray(W) * scale, np.asarray(b)

    def forward(self, x):
        """Logits for a batch ``x`` of shape ``(batch, features)``."""
        for params in self.layers[:-1]:
            x = np.tanh(dense(params, x))
        return dense(self.layers[-1], x)

    def predict_proba(self, x):
        return softmax(self.forward(x))

    def loss(self, x, labels):
        return cross_entropy(self.forward(x), labels)

    def l2_penalty(self, weight_decay=1e-4):
        """Sum of squared weights (biases excluded), times ``weight_decay``."""
        return weight_decay * sum(np.sum(W ** 2) for W, _ in self.layers)
