"""The GPT-2 model, top to bottom in one file.

The layout and names follow the reference book's ``GPTModel`` so that a reader
who follows the book sees the same modules, the same parameter names and, with
the same seed, the same numbers. Sub-modules are created in a fixed order
because PyTorch's default initialisation draws from the global random number
generator: change the order and every weight changes.
"""

import math

import torch
import torch.nn as nn

GPT_CONFIG_124M = {
    "vocab_size": 50257,     # GPT-2's BPE vocabulary: 50,000 merges + 256 bytes + <|endoftext|>
    "context_length": 1024,  # longest input the position embedding covers
    "emb_dim": 768,          # width of every token vector
    "n_heads": 12,           # attention heads per block
    "n_layers": 12,          # transformer blocks
    "drop_rate": 0.1,        # dropout probability
    "qkv_bias": False,       # biases on the query/key/value projections
}

GPT2_CONFIGS = {
    "gpt2-small": dict(GPT_CONFIG_124M),
    "gpt2-medium": {**GPT_CONFIG_124M, "emb_dim": 1024, "n_layers": 24, "n_heads": 16},
    "gpt2-large": {**GPT_CONFIG_124M, "emb_dim": 1280, "n_layers": 36, "n_heads": 20},
    "gpt2-xl": {**GPT_CONFIG_124M, "emb_dim": 1600, "n_layers": 48, "n_heads": 25},
}

_POSITIVE_INT_KEYS = ("vocab_size", "context_length", "emb_dim", "n_heads", "n_layers")


def validate_config(cfg):
    """Raise ``ValueError`` naming the offending key if ``cfg`` cannot build a model."""
    if not isinstance(cfg, dict):
        raise ValueError(f"config must be a dict, got {type(cfg).__name__}")
    for key in (*_POSITIVE_INT_KEYS, "drop_rate", "qkv_bias"):
        if key not in cfg:
            raise ValueError(f"config is missing the key {key!r}")
    for key in _POSITIVE_INT_KEYS:
        value = cfg[key]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"config[{key!r}] must be a positive int, got {value!r}")
    if cfg["emb_dim"] % cfg["n_heads"] != 0:
        raise ValueError(
            f"config['n_heads'] = {cfg['n_heads']} does not divide "
            f"config['emb_dim'] = {cfg['emb_dim']}"
        )
    rate = cfg["drop_rate"]
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        raise ValueError(f"config['drop_rate'] must be a number in [0, 1), got {rate!r}")
    if not isinstance(cfg["qkv_bias"], bool):
        raise ValueError(f"config['qkv_bias'] must be True or False, got {cfg['qkv_bias']!r}")


class MultiHeadAttention(nn.Module):
    """Causal self-attention with separate query, key and value projections."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        # 1 above the diagonal marks the future positions a token may not see
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, _ = x.shape
        keys = self.W_key(x)  # [batch, num_tokens, d_out]
        queries = self.W_query(x)
        values = self.W_value(x)

        # split the width into heads: [batch, num_tokens, d_out] -> [batch, n_heads, num_tokens, head_dim]
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

        attn_scores = queries @ keys.transpose(2, 3)  # [batch, n_heads, num_tokens, num_tokens]
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        context = (attn_weights @ values).transpose(1, 2)  # [batch, num_tokens, n_heads, head_dim]
        context = context.contiguous().view(b, num_tokens, self.d_out)  # [batch, num_tokens, d_out]
        return self.out_proj(context)


class LayerNorm(nn.Module):
    """Normalise each token vector to mean 0, variance 1, then scale and shift."""

    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return self.scale * (x - mean) / torch.sqrt(var + self.eps) + self.shift


class GELU(nn.Module):
    """GELU with the tanh approximation GPT-2 was trained with."""

    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


class FeedForward(nn.Module):
    """Two linear layers, 4x wider in the middle, with GELU between them."""

    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]),  # [batch, num_tokens, 4 * emb_dim]
            GELU(),
            nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]),  # [batch, num_tokens, emb_dim]
        )

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    """Pre-LayerNorm block: attention, then feed-forward, each with a shortcut."""

    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(
            d_in=cfg["emb_dim"],
            d_out=cfg["emb_dim"],
            context_length=cfg["context_length"],
            num_heads=cfg["n_heads"],
            dropout=cfg["drop_rate"],
            qkv_bias=cfg["qkv_bias"],
        )
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        x = x + self.drop_shortcut(self.att(self.norm1(x)))
        x = x + self.drop_shortcut(self.ff(self.norm2(x)))
        return x


class GPTModel(nn.Module):
    """GPT-2: token ids of shape [batch, num_tokens] in, logits of shape [batch, num_tokens, vocab_size] out.

    The output head is a separate matrix (untied), as in the reference book.
    ``tie_weights`` makes it share the token embedding instead.
    """

    def __init__(self, cfg):
        super().__init__()
        validate_config(cfg)
        self.cfg = dict(cfg)
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        _, seq_len = in_idx.shape
        if seq_len > self.cfg["context_length"]:
            raise ValueError(
                f"input has {seq_len} tokens but context_length is {self.cfg['context_length']}; "
                "crop it first (generate_text_simple does)"
            )
        tok_embeds = self.tok_emb(in_idx)  # [batch, num_tokens, emb_dim]
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))  # [num_tokens, emb_dim]
        x = self.drop_emb(tok_embeds + pos_embeds)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        return self.out_head(x)  # [batch, num_tokens, vocab_size]


def tie_weights(model):
    """Make the output head use the token embedding matrix itself (not a copy); return the model."""
    model.out_head.weight = model.tok_emb.weight  # weight tying
    return model
