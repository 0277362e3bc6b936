"""Text generation: logits of the last position -> next id -> append.

``generate_text_simple`` chooses greedily (the most likely id); ``sample_next_token``
draws the next id at random instead, after temperature, top-k and top-p.
"""

import numbers

import torch


def generate_text_simple(model, idx, max_new_tokens, context_size):
    """Append ``max_new_tokens`` greedy ids to ``idx`` of shape [batch, num_tokens].

    Each step feeds at most the last ``context_size`` ids, takes the logits of
    the last position and appends their argmax. Runs without gradients; call
    ``model.eval()`` first to switch dropout off.
    """
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]  # [batch, <= context_size]
        with torch.no_grad():
            logits = model(idx_cond)  # [batch, num_tokens, vocab_size]
        logits = logits[:, -1, :]  # [batch, vocab_size]: the last position
        probas = torch.softmax(logits, dim=-1)
        idx_next = torch.argmax(probas, dim=-1, keepdim=True)  # [batch, 1]
        idx = torch.cat((idx, idx_next), dim=1)  # [batch, num_tokens + 1]
    return idx


def check_sampling_settings(temperature, top_k, top_p):
    """Raise ValueError, naming the setting, unless ``temperature`` > 0, ``top_k`` is None
    or an int of at least 1, and ``top_p`` is None or in (0, 1]."""
    if isinstance(temperature, bool) or not temperature > 0:
        raise ValueError(f"temperature must be positive, got {temperature!r} (for greedy "
                         "choice, which the reference book's generate means by "
                         "temperature=0.0, use top_k=1 or generate_text_simple)")
    if top_k is not None and (isinstance(top_k, bool)
                              or not isinstance(top_k, numbers.Integral) or top_k < 1):
        raise ValueError(f"top_k must be None or an int of at least 1, got {top_k!r}")
    if top_p is not None and (isinstance(top_p, bool) or not 0 < top_p <= 1):
        raise ValueError(f"top_p must be None or a number in (0, 1], got {top_p!r}")


def sample_next_token(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Draw one id per row of ``logits`` [batch, vocab_size]; return [batch, 1].

    In this order: divide the logits by ``temperature`` (below 1 sharpens, above 1
    flattens); keep only the ``top_k`` largest (ids tied with the k-th score are kept
    too, so more than k can remain; a k above the vocabulary keeps every id); keep
    only the smallest set of most likely ids whose probabilities add up to at least
    ``top_p`` (nucleus sampling, measured on the tempered probabilities); then draw
    from the softmax of what is left with ``torch.multinomial``. Pass a seeded
    ``torch.Generator`` to get the same draws every time. A setting out of range
    raises ValueError (``check_sampling_settings``).
    """
    check_sampling_settings(temperature, top_k, top_p)
    logits = logits / temperature
    if top_k is not None:
        k = min(top_k, logits.shape[-1])
        kth = torch.topk(logits, k, dim=-1).values[:, -1:]  # [batch, 1]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
        cumulative = torch.softmax(sorted_logits, dim=-1).cumsum(dim=-1)
        # drop an id once the ids before it already reach top_p (the first always stays)
        drop_sorted = (cumulative - torch.softmax(sorted_logits, dim=-1)) >= top_p
        drop = drop_sorted.scatter(-1, order, drop_sorted)  # back to vocabulary order
        logits = logits.masked_fill(drop, float("-inf"))
    probas = torch.softmax(logits, dim=-1)  # [batch, vocab_size]
    return torch.multinomial(probas, num_samples=1, generator=generator)  # [batch, 1]
