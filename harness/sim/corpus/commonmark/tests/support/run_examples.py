"""Development aid, not part of a written tree: converts each example with the mdlite found
under --root (in this process, so a patched copy of the tree can be measured quickly) and
prints, as JSON, the numbers of the examples whose HTML differs from the expected HTML.

Usage: python3 run_examples.py --root DIR EXAMPLES.json   (EXAMPLES.json from included-examples.cjs)
"""
import argparse
import json
import re
import sys


def normalise(html):
    """Whitespace between tags does not count, as in the spec's own test tooling."""
    return re.sub(r">\s+<", "><", html).strip()


def main():
    arguments = argparse.ArgumentParser()
    arguments.add_argument("--root", required=True)
    arguments.add_argument("examples")
    options = arguments.parse_args()
    sys.path.insert(0, options.root)
    from mdlite import convert

    with open(options.examples, encoding="utf-8") as handle:
        examples = json.load(handle)
    failed = []
    for example in examples:
        try:
            actual = convert(example["markdown"])
        except Exception as error:  # a planted defect may crash the converter: that is a failure
            actual = "<crash %s>" % type(error).__name__
        if normalise(actual) != normalise(example["html"]):
            failed.append(example["number"])
    json.dump({"examples": len(examples), "failed": failed}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
