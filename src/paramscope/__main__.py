"""Command line: ``python -m paramscope count|presets ...``.

Every error a user can cause exits with status 2 and one line on stderr saying what is wrong and where.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import cli_costs, presets
from .io.config_json import MAX_CONFIG_BYTES, read_json_text
from .params import summarize
from .spec import Spec, short


class UserError(Exception):
    """A problem with what the user asked for: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, status 2, no usage dump
        raise UserError(message)


def load_spec(name: str | None, hf_config: str | None) -> tuple[Spec, str, tuple[str, ...]]:
    """The spec named by a preset or a config.json path, its label and the config keys it ignored."""
    if bool(name) == bool(hf_config):
        raise UserError("give a preset NAME or --hf-config FILE (one of them)")
    if name:
        try:
            return presets.load(name), name, ()
        except ValueError as exc:
            raise UserError(str(exc)) from None
    path = Path(hf_config or "")
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise UserError(f"{path}: the file is {size:,} bytes; the limit is {MAX_CONFIG_BYTES:,}")
        data = path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, not a config.json file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        result = read_json_text(data)
    except ValueError as exc:
        raise UserError(f"{path}: {exc}") from None
    return result.spec, str(path), result.ignored


def _spec_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="a preset name (see `python -m paramscope presets`)")
    p.add_argument("--hf-config", metavar="FILE", help="a Hugging Face config.json")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def cmd_count(args: argparse.Namespace) -> int:
    spec, label, ignored = load_spec(args.name, args.hf_config)
    s = summarize(spec)
    comps = [n for n in s.tree.walk() if n.path]
    if args.json:
        out = {
            "model": label,
            "model_type": spec.model_type,
            "total": s.total,
            "embedding": s.embedding,
            "non_embedding": s.non_embedding,
            "active_per_token": s.active,
            "components": [
                {
                    "path": n.path,
                    "params": n.count,
                    "formula": n.full_formula,
                    "shape": n.shape,
                    "repeat": n.repeat,
                    "note": n.note,
                    "leaf": not n.children,
                }
                for n in comps
            ],
            "ignored_keys": list(ignored),
        }
        print(json.dumps(out, indent=1))
        return 0
    width = max([len(n.path) + 2 * (n.depth() - 1) for n in comps] + [20])
    print(f"{label}  ({spec.model_type}, {spec.architecture})")
    print(f"{'component':<{width}}  {'params':>17}  {'share':>7}  formula")
    for n in comps:
        indent = "  " * (n.depth() - 1)
        share = f"{100 * n.count / s.total:6.2f}%" if s.total else "      -"
        print(
            f"{indent + n.path:<{width}}  {n.count:>17,}  {share}  {n.full_formula}"
            + (f"  [{n.note}]" if n.note else "")
        )
    print(f"{'total':<{width}}  {s.total:>17,}  {short(s.total):>7}")
    print(f"{'embedding':<{width}}  {s.embedding:>17,}  (token, position and token-type tables + untied LM head)")
    print(f"{'non-embedding':<{width}}  {s.non_embedding:>17,}")
    if spec.is_moe:
        print(f"{'active per token':<{width}}  {s.active:>17,}")
    if ignored:
        print(f"keys not used for counting: {', '.join(ignored)}")
    return 0


def cmd_presets(args: argparse.Namespace) -> int:
    if args.json:
        out = []
        for name in presets.names():
            p = presets.get(name)
            out.append(
                {
                    "name": name,
                    "title": p.title,
                    "family": p.family,
                    "expected_total": p.expected_total,
                    "source": p.source,
                }
            )
        print(json.dumps(out, indent=1))
        return 0
    for name in presets.names():
        p = presets.get(name)
        print(f"{name:<28} {p.family:<18} {short(p.expected_total):>8}  {p.title}")
    return 0


def _costs_args(add: Callable[[argparse.ArgumentParser], None]) -> Callable[[argparse.ArgumentParser], None]:
    def both(p: argparse.ArgumentParser) -> None:
        _spec_args(p)
        add(p)

    return both


def cmd_memory(args: argparse.Namespace) -> int:
    spec, label, ignored = load_spec(args.name, args.hf_config)
    return cli_costs.run_memory(spec, label, ignored, args)


def cmd_flops(args: argparse.Namespace) -> int:
    spec, label, ignored = load_spec(args.name, args.hf_config)
    return cli_costs.run_flops(spec, label, ignored, args)


COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "count": ("exact parameter breakdown", _spec_args, cmd_count),
    "memory": ("memory per GPU for inference or training", _costs_args(cli_costs.memory_args), cmd_memory),
    "flops": ("FLOPs per token, training compute and time", _costs_args(cli_costs.flops_args), cmd_flops),
    "presets": ("list the preset names", lambda p: p.add_argument("--json", action="store_true"), cmd_presets),
}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m paramscope", description="Exact transformer parameter counts, memory and FLOPs.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (help_text, add_args, func) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        add_args(p)
        p.set_defaults(func=func)
    return parser


def _error(exc: Exception) -> None:
    """One line on stderr, whatever the message holds (control characters are shown escaped)."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(exc))
    print(f"paramscope: error: {text[:2000]}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except UserError as exc:
        _error(exc)
        return 2
    except ValueError as exc:  # a spec the engine rejects
        _error(exc)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
