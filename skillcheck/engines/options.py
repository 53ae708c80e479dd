"""A command's options checked against its engine's manifest, with the engine's parsing rules."""

from __future__ import annotations

from skillcheck.engines.findings import (
    DEPRECATED_OPTION,
    MISSING_VALUE,
    UNEXPECTED_VALUE,
    UNKNOWN_OPTION,
    Finding,
)
from skillcheck.engines.invocations import Invocation, looks_like_option
from skillcheck.engines.manifest import Manifest, Option
from skillcheck.engines.shell import PLACEHOLDER, Token
from skillcheck.engines.values import (
    check_json,
    choice_problem,
    close_match,
    deprecation_message,
    normalize_flag,
    replacement_hint,
)


class _Checker:
    def __init__(self, inv: Invocation, manifest: Manifest) -> None:
        self.inv = inv
        self.manifest = manifest
        self.problems: list[Finding] = list(inv.problems)
        self.command = inv.command
        self.args = list(inv.args)
        self.spellings: tuple[str, ...] = ()

    def run(self) -> list[Finding]:
        manifest = self.manifest
        if self.args and f"{self.command} {self.args[0].text}" in manifest.commands:
            self.command = f"{self.command} {self.args[0].text}"
            self.args = self.args[1:]
        self.spellings = manifest.spellings(self.command)
        positionals = [p for p in manifest.positionals if p.applies_to(self.command)]
        seen_positional = 0
        only_positional = False
        i = 0
        while i < len(self.args):
            tok = self.args[i]
            if only_positional or not looks_like_option(tok) or tok.text == "--":
                if tok.text == "--" and not only_positional:
                    only_positional = True
                    i += 1
                    continue
                if not (tok.expands and not tok.quoted):
                    seen_positional += 1
                    if seen_positional > len(positionals):
                        self.problems.append(
                            Finding(
                                tok.line,
                                tok.column,
                                UNEXPECTED_VALUE,
                                f"unexpected argument `{tok.text}` for `{self.command}`",
                                "it takes no positional arguments"
                                if not positionals
                                else "is an option missing before it?",
                            )
                        )
                i += 1
                continue
            i = self.option(i)
        return self.problems

    # ------------------------------------------------------------------

    def option(self, i: int) -> int:
        tok = self.args[i]
        text = tok.text
        rules = self.manifest.parser
        inline: str | None = None
        name = text
        if "=" in text and text.startswith("-"):
            name, inline = text.split("=", 1)
        if PLACEHOLDER.search(name) or "$" in name:
            return i + 1
        norm = normalize_flag(name, self.manifest)
        opt = self.manifest.option(norm, self.command)
        if inline is not None and not rules.equals_form:
            if opt is not None:
                self.problems.append(
                    Finding(
                        tok.line,
                        tok.column,
                        UNKNOWN_OPTION,
                        f"`{self.command}` does not accept `{name}={inline}`",
                        f"write `{name} {inline}`",
                    )
                )
                return i + 1
            # not an option spelling with '=': treat the whole word as unknown
            name, inline, norm = text, None, text
        if opt is None:
            handled = self.special(i, name, norm, inline)
            if handled is not None:
                return handled
            return self.unknown(i, name, norm, inline)
        return self.known(i, opt, name, inline)

    def special(self, i: int, name: str, norm: str, inline: str | None) -> int | None:
        """Dotted JSON keys and shorthands such as ``-O3``."""
        rules = self.manifest.parser
        tok = self.args[i]
        if rules.dotted_json_keys and norm.startswith("-") and "." in norm:
            base, key = norm.split(".", 1)
            base_opt = self.manifest.option(base, self.command)
            if base_opt is not None and base_opt.type.startswith("json"):
                first = key.split(".")[0].rstrip("+")
                if base_opt.json_keys is not None and first not in base_opt.json_keys:
                    close = close_match(first, base_opt.json_keys)
                    self.problems.append(
                        Finding(
                            tok.line,
                            tok.column,
                            UNKNOWN_OPTION,
                            f"unknown key `{first}` in `{base_opt.name}`",
                            f"did you mean `{base_opt.name}.{close}`?" if close else "",
                        )
                    )
                self.deprecation(base_opt, tok, base_opt.name)
                if inline is not None:
                    return i + 1
                if i + 1 >= len(self.args):
                    self.problems.append(
                        Finding(tok.line, tok.column, MISSING_VALUE, f"`{name}` needs a value", "")
                    )
                    return i + 1
                return i + 2
        for prefix, target in rules.shorthands.items():
            if name.startswith(prefix):
                target_opt = self.manifest.option(target, self.command)
                if target_opt is None:
                    break
                if name != prefix:
                    return i + 1
                nxt = self.args[i + 1] if i + 1 < len(self.args) else None
                if nxt is not None and not looks_like_option(nxt):
                    return i + 2
                self.problems.append(
                    Finding(
                        tok.line,
                        tok.column,
                        MISSING_VALUE,
                        f"`{prefix}` needs a level, as in `{prefix}3`",
                        "",
                    )
                )
                return i + 1
        return None

    def unknown(self, i: int, name: str, norm: str, inline: str | None) -> int:
        tok = self.args[i]
        rules = self.manifest.parser
        nxt_index = i + 1
        if rules.abbreviations and norm.startswith("--"):
            matches = {
                self.manifest.option(s, self.command) for s in self.spellings if s.startswith(norm)
            }
            matches.discard(None)
            if len(matches) == 1:
                full = next(iter(matches))
                assert full is not None
                self.problems.append(
                    Finding(
                        tok.line,
                        tok.column,
                        UNKNOWN_OPTION,
                        f"`{name}` is not an option of `{self.command}`; the parser would "
                        f"take it as an abbreviation of `{full.name}`",
                        f"spell it out: `{full.name}`",
                    )
                )
                if inline is None and full.takes_value and nxt_index < len(self.args):
                    return nxt_index + 1
                return nxt_index
        close = close_match(norm, self.spellings)
        if close is None and rules.underscore_to_dash is False and "_" in norm:
            close = close_match(norm.replace("_", "-"), self.spellings)
        if close is None and "-" in norm[2:]:
            close = close_match("--" + norm[2:].replace("-", "_"), self.spellings)
        hint = f"did you mean `{close}`?" if close else ""
        self.problems.append(
            Finding(
                tok.line,
                tok.column,
                UNKNOWN_OPTION,
                f"unknown option `{name}` for `{self.command}` ({self.manifest.engine} "
                f"{self.manifest.version})",
                hint,
            )
        )
        if (
            inline is None
            and nxt_index < len(self.args)
            and not looks_like_option(self.args[nxt_index])
        ):
            guess = self.manifest.option(close, self.command) if close else None
            if guess is None or guess.takes_value:
                return nxt_index + 1
        return nxt_index

    def deprecation(self, opt: Option, tok: Token, written: str) -> bool:
        """Report a removed or deprecated option; True when it was removed."""
        engine = f"{self.manifest.engine} {self.manifest.version}"
        if opt.removed:
            self.problems.append(
                Finding(
                    tok.line,
                    tok.column,
                    UNKNOWN_OPTION,
                    f"`{written}` was removed in {engine}: {opt.deprecated or 'removed'}",
                    replacement_hint(opt.deprecated),
                )
            )
            return True
        if opt.deprecated:
            self.problems.append(
                Finding(
                    tok.line,
                    tok.column,
                    DEPRECATED_OPTION,
                    deprecation_message(written, opt, engine),
                    replacement_hint(opt.deprecated),
                )
            )
        return False

    def known(self, i: int, opt: Option, name: str, inline: str | None) -> int:
        tok = self.args[i]
        self.deprecation(opt, tok, name)
        if name in opt.negations or not opt.takes_value:
            if inline is not None:
                self.problems.append(
                    Finding(
                        tok.line,
                        tok.column,
                        UNEXPECTED_VALUE,
                        f"`{name}` is a flag and takes no value",
                        f"write `{name}` alone",
                    )
                )
            return i + 1
        values: list[Token] = []
        j = i + 1
        nargs = opt.nargs
        takes_anything = self.manifest.parser.kind in ("llama.cpp", "click")
        if inline is not None:
            values.append(Token(inline, tok.line, tok.column, tok.quoted, tok.expands))
        elif nargs in (None, 1) or isinstance(nargs, int):
            count = nargs if isinstance(nargs, int) else 1
            while len(values) < count and j < len(self.args):
                nxt = self.args[j]
                if looks_like_option(nxt) and (nxt.text.startswith("--") or not takes_anything):
                    break
                values.append(nxt)
                j += 1
            if len(values) < count:
                self.problems.append(
                    Finding(
                        tok.line,
                        tok.column,
                        MISSING_VALUE,
                        f"`{name}` needs {'a value' if count == 1 else f'{count} values'}",
                        f"write `{name} <value>`",
                    )
                )
                return j
        else:
            while j < len(self.args) and not looks_like_option(self.args[j]):
                values.append(self.args[j])
                j += 1
                if nargs == "?":
                    break
            if nargs == "+" and not values:
                self.problems.append(
                    Finding(
                        tok.line,
                        tok.column,
                        MISSING_VALUE,
                        f"`{name}` needs at least one value",
                        f"write `{name} <value>`",
                    )
                )
        for value_tok in values:
            self.check_value(opt, value_tok, name)
        return j

    def check_value(self, opt: Option, tok: Token, label: str) -> None:
        value = tok.text
        placeholder = tok.expands or bool(PLACEHOLDER.search(value))
        if opt.type in ("json", "json|str"):
            self.problems.extend(check_json(opt, value, tok, self.manifest, f"`{label}`"))
            return
        if placeholder:
            return
        problem = choice_problem(opt, value, tok, f"`{label}`")
        if problem is not None:
            self.problems.append(problem)


def check_invocation(inv: Invocation, manifest: Manifest) -> list[Finding]:
    """Problems with the options of ``inv`` under ``manifest``'s rules. Never raises."""
    if inv.engine != manifest.engine:
        return list(inv.problems)
    try:
        return _Checker(inv, manifest).run()
    except Exception as exc:  # pragma: no cover - a checker bug must not stop a run
        return [
            *inv.problems,
            Finding(
                inv.line, inv.column, UNKNOWN_OPTION, f"could not check this command: {exc!r}", ""
            ),
        ]
