"""Command line: ``python -m paramscope count|presets ...``.

Every error a user can cause exits with status 2 and one line on stderr saying what is wrong and where.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from paramscope.engine.components import EMBEDDING_CONVENTION
from paramscope.engine.spec import Spec, percent, short
from paramscope.io import presets
from paramscope.io.config_json import MAX_CONFIG_BYTES, parse
from paramscope.model import INSTALL, Model

if TYPE_CHECKING:  # pragma: no cover - typing only
    from paramscope.io.hub import CheckpointReport


class UserError(Exception):
    """A problem with what the user asked for: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, status 2, no usage dump
        raise UserError(message)


def load_model(name: str | None, hf_config: str | None, revision: str = "main") -> tuple[Model, str, tuple[str, ...]]:
    """The model named by a preset, a Hub id (``ORG/NAME``: a preset name never holds a slash) or a config.json
    path; its label; the config keys the count did not use."""
    if bool(name) == bool(hf_config):
        raise UserError("give a preset NAME, a Hub id ORG/NAME or --hf-config FILE (one of them)")
    if revision != "main" and not (name and "/" in name):
        raise UserError("--revision: only for a Hub id ORG/NAME")
    if name and "/" in name:
        from paramscope.io import hub  # huggingface_hub is imported only for a Hub id

        model = hub.from_hub(name, revision)  # HubError: one line, exit 2
        label = name if revision == "main" else f"{name}@{revision}"
        return model, label, model.ignored
    if name:
        try:
            model = presets.model(name)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        return model, name, model.ignored
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
        model = Model.from_config(parse(data), origin="upload")
    except ValueError as exc:
        raise UserError(f"{path}: {exc}") from None
    return model, str(path), model.ignored


def load_spec(args: argparse.Namespace, command: str) -> tuple[Spec, str, tuple[str, ...]]:
    """The resolved spec for ``memory``, ``flops``, ``speed`` and ``fit``, which need the formulas: the model's own
    row, or a multimodal model's language model with the rest of the checkpoint as weights (``Model.cost_spec``)."""
    model, label, ignored = load_model(args.name, args.hf_config, args.revision)
    spec = model.cost_spec
    if spec is None and model.counted_by == "towers":
        from paramscope.families.wholes import NO_LANGUAGE_MODEL

        raise UserError(f"{command}: {model.model_type!r} has {NO_LANGUAGE_MODEL}; `count` gives its exact parameters")
    if spec is None:
        raise UserError(
            f"{command}: {model.model_type!r} is counted by transformers only (no family row, so no formulas for "
            "memory and FLOPs yet); `count` gives its exact parameters"
        )
    if not model.has_formulas:
        label += f" [{model.model_type}: its language model, the other towers ({spec.towers_params:,}) as weights]"
    stored, dtype = model.stored_format, getattr(args, "dtype", None)
    if stored and dtype and dtype != stored and getattr(args, "mode", "inference") == "inference":
        print(
            f"note: the checkpoint's quantization_config names {stored}; --dtype {stored} sizes it as stored",
            file=sys.stderr,
        )
    return spec, label, ignored


def _spec_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="a preset name (see `python -m paramscope presets`) or a Hub id ORG/NAME")
    p.add_argument("--hf-config", metavar="FILE", help="a Hugging Face config.json")
    p.add_argument("--revision", default="main", metavar="REV", help="branch, tag or commit of a Hub id (default main)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def _count_args(p: argparse.ArgumentParser) -> None:
    _spec_args(p)
    p.add_argument(
        "--no-checkpoint",
        action="store_true",
        help="for a Hub id: skip reading the safetensors headers (the checkpoint's own count)",
    )


def _checkpoint(model: Model) -> CheckpointReport | str:
    """The checkpoint's count beside ours, or why there is none (a Hub model only)."""
    from paramscope.io import hub

    cc = hub.checkpoint_tensors(model.hub_id, model.revision)
    return hub.NO_SAFETENSORS if cc is None else hub.model_checkpoint_report(cc, model)


def cmd_count(args: argparse.Namespace) -> int:
    model, label, ignored = load_model(args.name, args.hf_config, args.revision)
    s = model.summary
    comps = [n for n in s.tree.walk() if n.path]
    notes = model.notes
    checkpoint = _checkpoint(model) if model.hub_id and not args.no_checkpoint else None
    architecture = model.spec.architecture if model.has_formulas else model.meta.class_name
    if args.json:
        out = {
            "model": label,
            "model_type": model.model_type,
            "counted_by": model.counted_by,
            "total": s.total,
            "embedding": s.embedding,
            "non_embedding": s.non_embedding,
            "active_per_token": s.active,
            "active_per_token_without_input_embedding": s.active_without_input_embedding,
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
            "notes": list(notes),
        }
        if isinstance(checkpoint, str):
            out["checkpoint"] = {"note": checkpoint}
        elif checkpoint is not None:
            out["checkpoint"] = {
                "stored": checkpoint.stored,
                "by_dtype": checkpoint.by_dtype,
                "groups": checkpoint.groups,
                "files": checkpoint.files,
                "stored_less_extras": checkpoint.explained,
                "equals_total": checkpoint.exact,
                "explanation": list(checkpoint.lines),
            }
        print(json.dumps(out, indent=1))
        return 0
    width = max([len(n.path) + 2 * (n.depth() - 1) for n in comps] + [20])
    print(f"{label}  ({model.model_type}, {architecture})")
    for note in notes:
        print(f"note: {note}")
    formulas = model.counted_by != "transformers"
    print(f"{'component':<{width}}  {'params':>17}  {'share':>7}  {'formula' if formulas else 'shape'}")
    for n in comps:
        indent = "  " * (n.depth() - 1)
        share = f"{percent(100 * n.count / s.total):>7}" if s.total else "      -"
        how = n.full_formula if formulas else n.shape
        print(f"{indent + n.path:<{width}}  {n.count:>17,}  {share}  {how}" + (f"  [{n.note}]" if n.note else ""))
    print(f"{'total':<{width}}  {s.total:>17,}  {short(s.total):>7}")
    print(f"{'embedding':<{width}}  {s.embedding:>17,}  ({EMBEDDING_CONVENTION})")
    print(f"{'non-embedding':<{width}}  {s.non_embedding:>17,}")
    if formulas and (spec := model.cost_spec) is not None and spec.is_moe:
        print(f"{'active per token':<{width}}  {s.active:>17,}")
        print(f"{'  less input tables':<{width}}  {s.active_without_input_embedding:>17,}  (as some model cards count)")
    if ignored:
        print(f"keys not used for counting: {', '.join(ignored)}")
    if isinstance(checkpoint, str):
        print(f"checkpoint: {checkpoint}")
    elif checkpoint is not None:
        print("checkpoint (safetensors headers only, no weights read):")
        for line in checkpoint.lines:
            print(f"  {line}")
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


def _costs_args(name: str) -> Callable[[argparse.ArgumentParser], None]:
    """The arguments of ``memory`` or ``flops``: the model's, then the run's (from cli_costs, imported only when
    that command is asked for, so that ``count`` starts fast)."""

    def both(p: argparse.ArgumentParser) -> None:
        from paramscope.cli import costs as cli_costs

        _spec_args(p)
        getattr(cli_costs, f"{name}_args")(p)

    return both


def cmd_memory(args: argparse.Namespace) -> int:
    from paramscope.cli import costs as cli_costs

    return cli_costs.run_memory(*load_spec(args, "memory"), args)


def cmd_flops(args: argparse.Namespace) -> int:
    from paramscope.cli import costs as cli_costs

    return cli_costs.run_flops(*load_spec(args, "flops"), args)


def cmd_speed(args: argparse.Namespace) -> int:
    from paramscope.cli import costs as cli_costs

    return cli_costs.run_speed(*load_spec(args, "speed"), args)


def cmd_fit(args: argparse.Namespace) -> int:
    from paramscope.cli import costs as cli_costs

    return cli_costs.run_fit(*load_spec(args, "fit"), args)


def cmd_types(args: argparse.Namespace) -> int:
    """The model types with formulas (a family row each, and the whole models made of them), and whether any other
    type can be counted here."""
    from paramscope.families import FAMILIES, listed_types, meta_build, wholes

    rows = {t: FAMILIES[t].class_prefix for t in listed_types()}
    whole = {t: w.class_name for t, w in sorted(wholes.WHOLES.items())}
    long_tail = meta_build.available()
    if args.json:
        print(
            json.dumps(
                {"with_formulas": rows, "wholes_of_rows": whole, "others_counted_by_transformers": long_tail}, indent=1
            )
        )
        return 0
    for model_type, prefix in rows.items():
        print(f"{model_type:<28} {prefix}")
    for model_type, class_name in whole.items():
        print(f"{model_type:<28} {class_name} (whole: its towers' rows and its projector)")
    print(
        f"{len(rows)} model types with formulas and {len(whole)} whole models of them; any other type transformers "
        "knows is "
        + ("counted by building its class on the meta device." if long_tail else f"counted once {INSTALL} is run.")
    )
    return 0


COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "count": ("exact parameter breakdown", _count_args, cmd_count),
    "memory": ("memory per GPU for inference or training", _costs_args("memory"), cmd_memory),
    "flops": ("FLOPs per token, training compute and time", _costs_args("flops"), cmd_flops),
    "speed": ("prefill and decode tokens per second on one GPU (roofline)", _costs_args("speed"), cmd_speed),
    "fit": ("the fewest GPUs that hold a run, and how it is split", _costs_args("memory"), cmd_fit),
    "presets": ("list the preset names", lambda p: p.add_argument("--json", action="store_true"), cmd_presets),
    "types": ("list the model types with formulas", lambda p: p.add_argument("--json", action="store_true"), cmd_types),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; given the ``command`` asked for, only that command's arguments are set up (the others are
    listed with their help, which is all argparse shows of them)."""
    parser = _Parser(prog="python -m paramscope", description="Exact transformer parameter counts, memory and FLOPs.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (help_text, add_args, func) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        if command not in COMMANDS or command == name:
            add_args(p)
        p.set_defaults(func=func)
    return parser


def _error(exc: Exception) -> None:
    """One line on stderr, whatever the message holds (control characters are shown escaped)."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(exc))
    print(f"paramscope: error: {text[:2000]}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        args = build_parser(argv[0] if argv else None).parse_args(argv)
        return args.func(args)
    except UserError as exc:
        _error(exc)
        return 2
    except ValueError as exc:  # a spec the engine rejects
        _error(exc)
        return 2
    except BrokenPipeError:
        return 0
