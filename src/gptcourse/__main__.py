"""Command line: ``python -m gptcourse params gpt2-xl``, ``python -m gptcourse generate "Hello, I am"``
and ``python -m gptcourse inspect gpt2/model.safetensors``."""

import argparse
import sys
import time

from .model import GPT2_CONFIGS


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _params(args):
    from .counting import parameter_summary

    names = list(GPT2_CONFIGS) if args.model == "all" else [args.model]
    print(f"{'model':<12} {'total':>15} {'output head':>15} {'tied':>15} {'float32 MiB':>12}")
    for name in names:
        start = time.perf_counter()
        s = parameter_summary(name)
        ms = (time.perf_counter() - start) * 1000
        print(
            f"{name:<12} {s['total']:>15,} {s['output head']:>15,} {s['tied']:>15,} "
            f"{s['float32 MiB']:>12,.2f}   ({ms:.0f} ms on the meta device)"
        )


def _generate(args):
    import torch

    from .generation import generate_text_simple
    from .model import GPTModel
    from .tokenizer import get_tokenizer, text_to_token_ids, token_ids_to_text

    cfg = GPT2_CONFIGS[args.model]
    torch.manual_seed(args.seed)
    model = GPTModel(cfg)
    if args.tie:
        from .model import tie_weights

        tie_weights(model)
    model.eval()
    tokenizer = get_tokenizer()
    idx = text_to_token_ids(args.prompt, tokenizer)
    out = generate_text_simple(model, idx, args.max_new_tokens, cfg["context_length"])
    print(token_ids_to_text(out, tokenizer))
    if args.ids:
        print(out.squeeze(0).tolist())


def _inspect(args):
    from .checkpoints import CheckpointError
    from .doctor import format_report, inspect_checkpoint

    try:
        report = inspect_checkpoint(args.checkpoint, n_heads=args.heads)
    except CheckpointError as exc:
        print(f"python -m gptcourse inspect: {exc}", file=sys.stderr)
        return 1
    print(format_report(report))
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m gptcourse", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    model_names = list(GPT2_CONFIGS)

    p = sub.add_parser("params", help="parameter counts and float32 size, without allocating the model")
    p.add_argument("model", choices=[*model_names, "all"], metavar="MODEL",
                   help=f"one of {', '.join(model_names)}, or all")
    p.set_defaults(run=_params)

    g = sub.add_parser("generate", help="greedy generation from an untrained (randomly initialised) model")
    g.add_argument("prompt")
    g.add_argument("--max-new-tokens", type=_positive_int, default=6)
    g.add_argument("--seed", type=int, default=123)
    g.add_argument("--model", choices=model_names, default="gpt2-small", metavar="MODEL")
    g.add_argument("--tie", action="store_true", help="tie the output head to the token embedding")
    g.add_argument("--ids", action="store_true", help="also print the token ids")
    g.set_defaults(run=_generate)

    i = sub.add_parser("inspect", help="what a GPT-2 checkpoint holds: its configuration, counts, "
                       "output head, biases and KV cache, read from shapes where it can")
    i.add_argument("checkpoint", help="a safetensors or PyTorch file, or a folder from the hub")
    i.add_argument("--heads", type=_positive_int, default=None,
                   help="the number of heads, when no config.json is beside the file and "
                   "the width is none of GPT-2's")
    i.set_defaults(run=_inspect)
    return parser


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage and the one-line reason
        return exc.code
    return args.run(args) or 0


if __name__ == "__main__":
    sys.exit(main())
