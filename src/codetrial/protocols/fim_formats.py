"""Fill-in-the-middle prompt formats, one per model family, built from the family's own tokens.

A FIM model was trained on one exact layout of special tokens; any other layout is noise to it,
so each format is written out literally here and unit-tested character for character.
Models with no FIM training get `prefix`: plain left-to-right completion cut where the
suffix begins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codetrial.core import UsageError


@dataclass(frozen=True)
class FimFormat:
    name: str
    template: str  # with {pre} and {suf}
    stop: tuple[str, ...]  # empty: the family's EOS token ends the reply on its own
    detect: str  # regular expression matched against the lower-cased model name

    def prompt(self, prefix: str, suffix: str) -> str:
        return self.template.format(pre=prefix, suf=suffix)

    def stops(self, prefix: str, suffix: str) -> list[str]:
        return list(self.stop)


class PrefixOnly(FimFormat):
    """No FIM tokens: the model sees the prefix and must stop where the suffix takes over."""

    def prompt(self, prefix: str, suffix: str) -> str:
        return prefix

    def stops(self, prefix: str, suffix: str) -> list[str]:
        return [hole_end(prefix, suffix)]


def hole_end(prefix: str, suffix: str) -> str:
    """What follows the hole: the rest of its line, or the next line of code after it."""
    rest_of_line = suffix.split("\n", 1)[0].strip()
    if rest_of_line:
        return rest_of_line
    hole_line = prefix.rsplit("\n", 1)[-1]
    if hole_line.strip():  # the hole ends its line: one line of code
        return "\n"
    following = next((ln for ln in suffix.split("\n") if ln.strip()), "")
    return "\n" + following if following else "\n\n\n"


FORMATS: dict[str, FimFormat] = {f.name: f for f in (
    FimFormat("starcoder", "<fim_prefix>{pre}<fim_suffix>{suf}<fim_middle>",
              ("<|endoftext|>", "<file_sep>"), r"starcoder|codeqwen"),
    FimFormat("santacoder", "<fim-prefix>{pre}<fim-suffix>{suf}<fim-middle>",
              ("<|endoftext|>",), r"santacoder"),
    FimFormat("codellama", "<PRE> {pre} <SUF>{suf} <MID>", ("<EOT>",), r"code-?llama"),
    FimFormat("deepseek", "<\uff5cfim\u2581begin\uff5c>{pre}<\uff5cfim\u2581hole\uff5c>{suf}"
              "<\uff5cfim\u2581end\uff5c>", (), r"deepseek-?coder"),
    FimFormat("qwen", "<|fim_prefix|>{pre}<|fim_suffix|>{suf}<|fim_middle|>",
              ("<|endoftext|>", "<|fim_pad|>", "<|file_sep|>"), r"qwen2\.5-?coder"),
    FimFormat("codegemma", "<|fim_prefix|>{pre}<|fim_suffix|>{suf}<|fim_middle|>",
              ("<|file_separator|>",), r"codegemma"),
    FimFormat("codestral", "[SUFFIX]{suf}[PREFIX]{pre}", (), r"codestral"),
    PrefixOnly("prefix", "{pre}", (), r"$^"),
)}


def fim_format(name: str | None, model_name: str) -> FimFormat:
    """The format asked for, else the one the model's name reveals, else plain prefix."""
    if name:
        if name not in FORMATS:
            raise UsageError(f"option fim_format={name!r}: use one of {', '.join(FORMATS)}")
        return FORMATS[name]
    lowered = model_name.lower()
    for fmt in FORMATS.values():
        if re.search(fmt.detect, lowered):
            return fmt
    return FORMATS["prefix"]
