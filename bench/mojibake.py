"""Benchmark: the mojibake check, compiled (_native/mojibake.c) against the regex, on pages as written.

    .venv/bin/python bench/mojibake.py [--pages 40] [--repeat 30]

bench/decode.py's corpus is Faker prose, without the typographic apostrophe and the NBSP that make
the regex stop at every accented letter; these pages are paragraphs as French, German, Portuguese and
Spanish sites write them (’ “ ” « » „ … – and NBSP before French punctuation), English, Chinese and
Japanese, in HTML, about 20 KB a page (the check reads the first 16 KiB), French text without
markup (denser in accented letters), and mojibake pages: a
page's UTF-8 decoded as windows-1252 and encoded again (whole, or one paragraph of it).  Each row
times, over every page of a group, ``utf8_looks_double_encoded`` and ``decode(body, "text/html;
charset=utf-8", lazy_text=True)`` (the stream processor's call) with ``strong_sequences`` the
regex (``ref``) then the compiled scan (``ours``), in turns --repeat times, best time each, in µs a
page; the ratio is ref/ours.  Both tiers' answers are checked equal on every page.
"""

from __future__ import annotations

import argparse
import random
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from consumer.decoding import decode, mojibake

NBSP = "\u00a0"
PARAGRAPHS = {
    "French": [
        (
            f"L’été dernier, nous sommes allés à l’hôtel «{NBSP}Le Château{NBSP}» près d’Annecy{NBSP}: la vue sur le lac "
            f"était magnifique, et le propriétaire nous a préparé des crêpes à la crème fraîche… C’était très agréable{NBSP}!"
        ),
        (
            f"Le ministère a annoncé mercredi qu’il réduirait de 15{NBSP}% les dépenses liées à l’énergie{NBSP}; "
            f"les élus de l’opposition ont dénoncé une «{NBSP}décision précipitée{NBSP}» – sans concertation préalable."
        ),
        (
            f"Où en est la réforme{NBSP}? Selon l’économiste interrogé, «{NBSP}les premiers effets ne se feront sentir "
            f"qu’à la fin de l’année{NBSP}» ; d’ici là, les ménages devront s’adapter à la hausse des prix."
        ),
        (
            f"Il s’est levé tôt, a pris un café crème au comptoir, puis s’en est allé vers la gare de Lyon{NBSP}: "
            f"le train de 8{NBSP}h{NBSP}12 était déjà complet, et l’agent lui a conseillé d’attendre le suivant."
        ),
        (
            f"Né à Québec en 1948, l’écrivain a publié une vingtaine d’ouvrages — romans, essais, poèmes — "
            f"traduits dans près de trente langues{NBSP}; son dernier livre paraîtra à l’automne."
        ),
    ],
    "German": [
        (
            "Über die Brücke gehen täglich Tausende Pendler – doch die Stadtverwaltung hält „größere Sanierungen“ "
            "für unnötig. Anwohner beklagen Lärm, Staub und Verspätungen…"
        ),
        (
            "Die Bundesregierung hat am Mittwoch ein Maßnahmenpaket beschlossen, das Bürgerinnen und Bürger "
            "bei den Energiekosten entlasten soll; Kritiker sprechen von einem „Tropfen auf den heißen Stein“."
        ),
        (
            "Im Süden Österreichs fällt am Wochenende Schnee bis in tiefe Lagen – Autofahrer sollten Winterreifen "
            "aufziehen. Für Dienstag erwarten die Meteorologen dagegen mildere Temperaturen um 12 °C."
        ),
        (
            "Müllers Großvater führte die Bäckerei bis 1975; heute verkauft sein Enkel dort Brötchen, Brezeln "
            "und – natürlich – den berühmten Käsekuchen nach dem Rezept der Urgroßmutter."
        ),
    ],
    "Portuguese": [
        (
            "Não, a Conceição disse que a reunião seria “amanhã às três” – é difícil acreditar que ninguém "
            "avisou o diretor… Ainda assim, a decisão foi tomada por unanimidade."
        ),
        (
            "O governo anunciou ontem um pacote de medidas para conter a inflação; os economistas, porém, "
            "avaliam que o impacto só será sentido no próximo trimestre, após a eleição."
        ),
        (
            "Em São Paulo, a previsão é de chuva forte até sábado. A Defesa Civil recomenda atenção às áreas "
            "de risco e pede que a população evite deslocamentos desnecessários."
        ),
    ],
    "Spanish": [
        (
            "¿Qué pasó con el niño? Según él, “nadie sabía nada” – y la policía tampoco dio explicaciones… "
            "Mañana se reunirá la comisión para decidir los próximos pasos."
        ),
        (
            "El Ministerio de Educación publicó el jueves los resultados de la evaluación; la región obtuvo "
            "una puntuación más alta que el año pasado, aunque persisten diferencias entre centros."
        ),
        (
            "La exposición, que reúne más de cien obras del pintor, podrá visitarse hasta el próximo otoño "
            "en el museo de la capital, con entrada gratuita los domingos por la tarde."
        ),
    ],
    "English": [
        (
            "The city council voted on Tuesday to extend the bus network to the northern suburbs, a decision "
            "residents have been asking for since the old rail line closed in the nineties."
        ),
        (
            "Researchers at the university found that the new material keeps its strength at temperatures "
            "well above those of existing alloys, which could make engines lighter and cheaper."
        ),
    ],
    "CJK": [
        "日本語のテキストです。東京では明日から気温が下がり、週末には雪が降る可能性があります。",
        "北京市政府周三宣布，将在未来三年内新建五十座公园，以改善城市居民的生活环境。",
        "한국어 텍스트입니다. 서울에서는 내일부터 기온이 떨어지고 주말에는 눈이 내릴 수 있습니다.",
    ],
}


def page(rng: random.Random, language: str) -> str:
    """An HTML page of about 20 KB of *language*'s paragraphs."""
    paragraphs = []
    size = 0
    while size < 20_000:
        paragraph = f'<p class="article-body">{rng.choice(PARAGRAPHS[language])}</p>\n'
        paragraphs.append(paragraph)
        size += len(paragraph.encode())
    return f"<!DOCTYPE html><html><head><title>{language}</title></head><body>\n{''.join(paragraphs)}</body></html>"


def spoiled(text: str) -> str:
    """What an upstream that decodes UTF-8 as windows-1252 makes of *text*."""
    return text.encode().decode("cp1252", errors="replace")


def groups(count: int) -> dict[str, list[bytes]]:
    rng = random.Random(30)
    out = {f"{language}": [page(rng, language).encode() for _ in range(count)] for language in PARAGRAPHS}
    # Dense: the paragraphs alone, no markup between them (an article's text, a feed's entry).
    out["French, text only"] = [" ".join(rng.choices(PARAGRAPHS["French"], k=80)).encode() for _ in range(count)]
    out["mojibake, whole page"] = [spoiled(page(rng, rng.choice(["French", "Portuguese"]))).encode()
                                   for _ in range(count)]  # fmt: skip
    one = []
    for _ in range(count):
        text = page(rng, "French")
        cut = text.index("</p>", len(text) // 2)  # the body's middle paragraph spoiled, the rest clean
        start = text.rindex("<p", 0, cut)
        one.append((text[:start] + spoiled(text[start:cut]) + text[cut:]).encode())
    out["mojibake, one paragraph"] = one
    return out


def lazy_decode(body: bytes) -> object:
    return decode(body, "text/html; charset=utf-8", lazy_text=True).mojibake_suspected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    if not mojibake.COMPILED:
        sys.exit("_native.mojibake is not built: nothing to compare")
    compiled, reference = mojibake.strong_sequences, mojibake.reference_strong_sequences
    by_group = groups(args.pages)
    checks = {"utf8_looks_double_encoded": mojibake.utf8_looks_double_encoded, "decode(lazy_text=True)": lazy_decode}
    flagged = {}
    for name, pages in by_group.items():
        answers = []
        for scan in (compiled, reference):
            mojibake.strong_sequences = scan
            answers.append([mojibake.utf8_looks_double_encoded(body) for body in pages])
        assert answers[0] == answers[1], name
        flagged[name] = sum(answers[0])
    best: dict[tuple[str, str, str], float] = {}
    for _ in range(args.repeat):
        for name, pages in by_group.items():
            for check_name, check in checks.items():
                for tier, scan in (("ref", reference), ("ours", compiled)):
                    mojibake.strong_sequences = scan  # utf8_looks_double_encoded reads it at each call
                    seconds = timeit.timeit(lambda check=check, pages=pages: [check(body) for body in pages], number=1)
                    key = (name, check_name, tier)
                    best[key] = min(best.get(key, float("inf")), seconds / len(pages) * 1e6)
    mojibake.strong_sequences = compiled
    print(f"µs a page, best of {args.repeat}, {args.pages} pages a group; ratio = ref/ours")
    print(f"{'pages':26}{'KB':>6}{'flagged':>8}  {'check ref':>10}{'ours':>8}{'ratio':>8}  "
          f"{'decode ref':>11}{'ours':>8}{'ratio':>8}")  # fmt: skip
    for name, pages in by_group.items():
        kb = sum(map(len, pages)) / len(pages) / 1e3
        cells = ""
        for check_name in checks:
            ref, ours = best[name, check_name, "ref"], best[name, check_name, "ours"]
            cells += f"  {ref:10.2f}{ours:8.2f}{ref / ours:7.1f}x"
        print(f"{name:26}{kb:6.1f}{flagged[name]:5d}/{len(pages):<3d}{cells}")


if __name__ == "__main__":
    main()
