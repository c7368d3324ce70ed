"""tf.flags / tf.app.flags: TensorFlow 1.x's command-line flags (absl-style).

DEFINE_string / integer / float / boolean (bool) / list / enum / multi_string register flags
on FLAGS; the first attribute read parses sys.argv (unknown flags are left for the program,
as TF1's wrapper did); tf.app.run parses argv explicitly and hands main the rest.
Accepted forms: --name=value, --name value, --bool / --nobool, and "--" ends the flags."""
import sys

__all__ = ["FLAGS", "DEFINE_string", "DEFINE_integer", "DEFINE_float", "DEFINE_boolean", "DEFINE_bool",
           "DEFINE_list", "DEFINE_enum", "DEFINE_multi_string", "mark_flag_as_required", "Error",
           "IllegalFlagValueError", "UnrecognizedFlagError", "DuplicateFlagError"]


class Error(Exception):
    """A flag error."""


class IllegalFlagValueError(Error):
    pass


class UnrecognizedFlagError(Error):
    pass


class DuplicateFlagError(Error):
    pass


def _parse_bool(text):
    lowered = str(text).strip().lower()
    if lowered in ("true", "t", "1", "yes", "y"):
        return True
    if lowered in ("false", "f", "0", "no", "n"):
        return False
    raise ValueError(f"{text!r} is not a boolean (true/false, 1/0)")


class _Flag:
    def __init__(self, name, default, help_text, parse, kind, **extra):
        self.name, self.help, self.parse, self.kind = name, help_text, parse, kind
        self.extra = extra
        if isinstance(default, str) and kind in ("integer", "float"):  # absl parses such defaults
            default = self._convert(default)
        self.default = self.value = default
        self.present = False

    def _convert(self, text):
        try:
            value = self.parse(text)
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={text}: {e}") from None
        self._check(value)
        return value

    def _check(self, value):
        lower, upper = self.extra.get("lower_bound"), self.extra.get("upper_bound")
        if lower is not None and value < lower:
            raise IllegalFlagValueError(f"flag --{self.name}={value}: must be at least {lower}")
        if upper is not None and value > upper:
            raise IllegalFlagValueError(f"flag --{self.name}={value}: must be at most {upper}")
        enum_values = self.extra.get("enum_values")
        if enum_values is not None and value not in enum_values:
            raise IllegalFlagValueError(f"flag --{self.name}={value}: must be one of {', '.join(enum_values)}")

    def set_from_text(self, text):
        value = self._convert(text)
        if self.kind == "multi_string":
            self.value = (self.value if self.present else []) + [value]
        else:
            self.value = value
        self.present = True


class _FlagValues:
    """FLAGS: flags as attributes; the first read parses sys.argv (known flags only)."""

    def __init__(self):
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_parsed", False)
        object.__setattr__(self, "_required", set())

    def _define(self, flag):
        if flag.name in self._flags:
            raise DuplicateFlagError(f"the flag '{flag.name}' is defined twice")
        self._flags[flag.name] = flag

    def __getattr__(self, name):
        if name == "__flags":  # TF 1.4's FLAGS.__flags: name -> value
            return self.flag_values_dict()
        flags = object.__getattribute__(self, "_flags")
        if name not in flags:
            raise AttributeError(f"no flag named '{name}' is defined")
        if not self._parsed:
            self._parse(sys.argv, known_only=True)
        return flags[name].value

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise AttributeError(f"no flag named '{name}' is defined")
        self._flags[name].value = value

    def __contains__(self, name):
        return name in self._flags

    def __call__(self, argv, known_only=False):
        """Parses argv (argv[0] is the program); returns argv[0] and the arguments left."""
        return self._parse(argv, known_only)

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        object.__setattr__(self, "_parsed", True)

    def flag_values_dict(self):
        return {name: flag.value for name, flag in self._flags.items()}

    def get_help(self):
        lines = []
        for name in sorted(self._flags):
            f = self._flags[name]
            lines.append(f"  --{name}: {f.help or ''}\n    (default: {f.default!r})")
        return "\n".join(lines)

    def _parse(self, argv, known_only):
        argv = list(argv)
        rest = argv[:1]
        i = 1
        while i < len(argv):
            arg = argv[i]
            i += 1
            if arg == "--":
                rest.extend(argv[i:])
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
                continue
            body = arg.lstrip("-")
            name, has_value, text = body.partition("=")
            flag = self._flags.get(name)
            if flag is None and not has_value and name.startswith("no") and \
                    name[2:] in self._flags and self._flags[name[2:]].kind == "bool":
                self._flags[name[2:]].set_from_text("false")
                continue
            if flag is None:
                if known_only:
                    rest.append(arg)
                    continue
                raise UnrecognizedFlagError(f"unknown command line flag '{name}'")
            if not has_value:
                if flag.kind == "bool":
                    text = "true"
                elif i < len(argv):
                    text = argv[i]
                    i += 1
                else:
                    raise IllegalFlagValueError(f"flag --{name} needs a value")
            flag.set_from_text(text)
        missing = [n for n in sorted(self._required) if self._flags[n].value is None]
        if missing:
            raise IllegalFlagValueError(f"flag --{missing[0]} must be given a value")
        object.__setattr__(self, "_parsed", True)
        return rest


FLAGS = _FlagValues()


def _define(kind, parse, name, default, help_text, **extra):
    FLAGS._define(_Flag(name, default, help_text, parse, kind, **extra))


def DEFINE_string(name, default, help, flag_values=None, **kwargs):  # noqa: A002, ARG001, N802
    _define("string", str, name, default, help)


def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None, **kwargs):  # noqa: A002, ARG001, N802
    _define("integer", int, name, default, help, lower_bound=lower_bound, upper_bound=upper_bound)


def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None, **kwargs):  # noqa: A002, ARG001, N802
    _define("float", float, name, default, help, lower_bound=lower_bound, upper_bound=upper_bound)


def DEFINE_boolean(name, default, help, **kwargs):  # noqa: A002, ARG001, N802
    _define("bool", _parse_bool, name, default if isinstance(default, bool) or default is None
            else _parse_bool(default), help)


DEFINE_bool = DEFINE_boolean


def DEFINE_list(name, default, help, **kwargs):  # noqa: A002, ARG001, N802
    def parse(text):
        return [v.strip() for v in text.split(",") if v.strip()] if isinstance(text, str) else list(text)
    _define("list", parse, name, parse(default) if isinstance(default, str) else default, help)


def DEFINE_enum(name, default, enum_values, help, **kwargs):  # noqa: A002, ARG001, N802
    _define("string", str, name, default, help, enum_values=list(enum_values))


def DEFINE_multi_string(name, default, help, **kwargs):  # noqa: A002, ARG001, N802
    _define("multi_string", str, name, [default] if isinstance(default, str) else default, help)


def mark_flag_as_required(name, flag_values=None):  # noqa: ARG001
    if name not in FLAGS:
        raise AttributeError(f"no flag named '{name}' is defined")
    FLAGS._required.add(name)
