#!/usr/bin/env python3
"""Every public header includes the third-party libraries it names itself.

The header self-containment checks (tests/CMakeLists.txt) put nlohmann/json and fmt in a
precompiled header for headers that reach both anyway; this check keeps what that cannot see: a
header that names fmt:: or nlohmann:: (or simdjson, Boost, kainjow) and gets the declarations only
through another header. Usage: check_direct_includes.py INCLUDE_DIR
"""
import pathlib
import re
import sys

# (the namespace a header's code names, the include that must come with it)
LIBRARIES = [
    ("fmt::", "<fmt/"),
    ("nlohmann::", "<nlohmann/"),
    ("simdjson::", "<simdjson.h>"),
    ("kainjow::", "<kainjow/"),
    ("boost::asio::", "<boost/asio/"),
    ("boost::beast::", "<boost/beast/"),
    ("boost::accumulators::", "<boost/accumulators/"),
    ("boost::math::", "<boost/math/"),
]


def code_of(text):
    """The text without comments and string literals, so that prose naming a library is not a use."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'R"(\w*)\(.*?\)\1"', '""', text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"//[^\n]*", "", text)


def main():
    root = pathlib.Path(sys.argv[1])
    headers = sorted(root.rglob("*.hpp"))
    problems = []
    for header in headers:
        text = header.read_text(encoding="utf-8")
        code = code_of(text)
        for name, include in LIBRARIES:
            if re.search(r"\b" + re.escape(name), code) and "#include " + include not in text:
                problems.append(f"{header.relative_to(root)}: names {name} but does not include {include}...")
    for p in problems:
        print(p)
    print(f"{len(headers)} headers, {len(problems)} without a direct include of a library they name")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
