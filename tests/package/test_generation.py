import torch

from gptcourse import GPTModel, generate_text_simple


class LastTokenEcho(torch.nn.Module):
    """A stand-in model whose next token is (last token + 1): it records every input it sees."""

    def __init__(self, vocab_size=10):
        super().__init__()
        self.vocab_size = vocab_size
        self.seen = []

    def forward(self, idx):
        self.seen.append(idx.clone())
        logits = torch.zeros(*idx.shape, self.vocab_size)
        logits.scatter_(2, ((idx + 1) % self.vocab_size).unsqueeze(-1), 1.0)
        logits[:, :-1] = 0  # only the last position may decide
        logits[:, :-1, 0] = 100.0
        return logits


def test_greedy_takes_the_last_position_and_appends():
    model = LastTokenEcho()
    out = generate_text_simple(model, torch.tensor([[3, 4]]), max_new_tokens=3, context_size=10)
    assert out.tolist() == [[3, 4, 5, 6, 7]]


def test_context_is_cropped_to_context_size():
    model = LastTokenEcho()
    generate_text_simple(model, torch.tensor([[1, 2, 3, 4, 5]]), max_new_tokens=2, context_size=3)
    assert [s.tolist() for s in model.seen] == [[[3, 4, 5]], [[4, 5, 6]]]


def test_batches_generate_row_by_row():
    model = LastTokenEcho()
    out = generate_text_simple(model, torch.tensor([[1, 2], [7, 8]]), max_new_tokens=2, context_size=4)
    assert out.tolist() == [[1, 2, 3, 4], [7, 8, 9, 0]]
    assert out.dtype == torch.long


def test_generation_builds_no_autograd_graph_through_the_model(tiny_config):
    model = GPTModel(tiny_config).eval()
    logits_seen = []
    model.out_head.register_forward_hook(lambda module, args, output: logits_seen.append(output))
    # the same model outside generation records a graph: the check below can fail
    model(torch.tensor([[1, 2]]))
    assert logits_seen.pop().grad_fn is not None
    out = generate_text_simple(model, torch.tensor([[1, 2]]), max_new_tokens=2, context_size=8)
    assert len(logits_seen) == 2
    assert all(logits.grad_fn is None and not logits.requires_grad for logits in logits_seen)
    assert out.grad_fn is None and not out.requires_grad


def test_prompt_longer_than_the_model_context_still_generates(tiny_config):
    torch.manual_seed(1)
    model = GPTModel(tiny_config).eval()
    prompt = torch.arange(12).unsqueeze(0)  # 12 > context_length 8
    out = generate_text_simple(model, prompt, max_new_tokens=3, context_size=tiny_config["context_length"])
    assert out.shape == (1, 15)
    assert torch.equal(out[:, :12], prompt)
