"""Undeclared English pages with typographic signs: how many are published clean as another encoding?

    .venv/bin/python bench/western_signs.py [--pages 600] [--seed 3] [--no-browser]

The commonest undeclared legacy page on the web is western text in windows-1252 whose only bytes beyond ASCII
are signs: curly quotes and apostrophes, dashes, "»" in a breadcrumb, "°C", "×", "£50", "©", "®", "…", a "café".
Each sign is a letter of another single-byte encoding (windows-874 reads "»" as "ป") or the lead byte of a
Shift_JIS, GBK or Big5 character whose trail byte is the next letter ("’s" is Shift_JIS "痴"), and the western
languages' models barely know the signs: a sign or two may decide.  The pages are Faker's en_US sentences with
signs put in at random (the same seed, the same pages); none is from a detector's test data.

Printed: of the pages decoded undeclared (on a .com URL and with no URL), how many ``decode`` publishes clean with
another text than the page's (by the encoding it chose), how many it quarantines, and how many under their true
``charset=windows-1252`` are not right and clean; with chardetng (Firefox's detector, bench/chardetng_oracle, built
by cargo: ``--no-browser`` skips it), how often it reads the page right.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from consumer.decoding import decode
from consumer.processor.route import quarantine_reason


def signed(sentence: str, rng: random.Random) -> str:
    """*sentence* with typographic signs put in, as an English web page writes them."""
    signs = [
        lambda w: w + "’s", lambda w: "“" + w + "”", lambda w: w + "—", lambda w: f"£{rng.randrange(1, 999)}",
        lambda w: f"€{rng.randrange(1, 999)}", lambda w: f"{rng.randrange(1, 99)}°C", lambda w: w + "®",
        lambda w: w + "™", lambda w: "© 2019 " + w, lambda w: w + " »", lambda w: w + " ·",
        lambda w: f"{rng.randrange(1, 9)}½", lambda w: f"{rng.randrange(1, 9)}×{rng.randrange(1, 9)}",
        lambda w: w + "…", lambda w: "café", lambda w: "naïve", lambda w: "résumé", lambda w: "‘" + w + "’",
        lambda w: w + " –",
    ]  # fmt: skip
    words = []
    for word in sentence.split():
        draw = rng.random()
        if draw < 0.12:
            word = signs[min(2, int(draw / 0.03))](word)  # the commonest: apostrophes, quotes, dashes
        elif draw < 0.2:
            word = rng.choice(signs[3:])(word)
        words.append(word)
    return " ".join(words).replace("— ", "—")


def pages(count: int, seed: int) -> list[bytes]:
    from faker import Faker

    rng = random.Random(seed)
    fake = Faker("en_US")
    fake.seed_instance(seed)
    made = []
    for _ in range(count):
        text = " ".join(signed(fake.sentence(nb_words=12), rng) for _ in range(rng.choice([1, 1, 2, 3, 5, 10])))
        made.append(f"<html><head><title>t</title></head><body><p>{text}</p></body></html>".encode("cp1252"))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=600)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--no-browser", action="store_true", help="skip chardetng (no cargo needed)")
    args = parser.parse_args()
    bodies = pages(args.pages, args.seed)
    wrong: Counter[str] = Counter()
    quarantined = true_label_missed = 0
    for body in bodies:
        truth = body.decode("cp1252")
        for url in ("http://example.com/", None):
            decoded = decode(body, "text/html", url)
            if quarantine_reason(decoded) is not None:
                quarantined += 1
            elif decoded.text != truth:
                wrong[decoded.encoding] += 1
        declared = decode(body, "text/html; charset=windows-1252", "http://example.com/")
        true_label_missed += quarantine_reason(declared) is not None or declared.text != truth
    decodes = 2 * len(bodies)
    print(f"{len(bodies)} English pages with signs (seed {args.seed}), undeclared on a .com and with no URL:")
    print(f"  wrong and clean {sum(wrong.values())} of {decodes} ({sum(wrong.values()) / decodes:.1%}),"
          f" quarantined {quarantined}; as {dict(wrong.most_common())}")
    print(f"  under their true windows-1252 label, not right and clean: {true_label_missed}")
    if not args.no_browser:
        from false_declared import Chardetng

        guesses = Chardetng().guesses([(body, "com") for body in bodies])
        right = sum(decode(body, f"text/html; charset={guess}").text == body.decode("cp1252")
                    for body, guess in zip(bodies, guesses, strict=True))  # fmt: skip
        print(f"  chardetng (.com): right on {right} of {len(bodies)}")


if __name__ == "__main__":
    main()
