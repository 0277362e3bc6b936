"""Greedy text generation: logits of the last position -> most likely id -> append."""

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
