"""Hand-written labelled texts (not Faker's vocabulary) and the page they are wrapped in."""

from __future__ import annotations

from consumer.decoding.detection.training_text import to_windows_1258_form

#: Hand-written sentences (not Faker's vocabulary), one per language.
TEXTS = {
    "ja": "日本語の文章です。東京は日本の首都であり、多くの人々が住んでいます。今日は天気がとても良いので、公園を散歩しました。",
    "ru": (
        "Москва - столица России, крупнейший по численности населения город"
        " страны. Летом здесь тепло, а зимой часто идёт снег."
    ),
    "ko": "대한민국의 수도는 서울입니다. 오늘은 날씨가 좋아서 친구들과 함께 공원에 갔습니다. 저녁에는 맛있는 음식을 먹었습니다.",
    "zh_cn": "北京是中华人民共和国的首都，也是全国的政治和文化中心。今天天气很好，我们一起去公园散步，然后在饭馆吃了晚饭。",
    "zh_tw": "臺北是臺灣最大的城市，也是政治、經濟與文化的中心。今天天氣很好，我們一起去公園散步，然後在餐廳吃了晚飯。",
    "el": "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας. Άνοιξη και καλοκαίρι η πόλη γεμίζει επισκέπτες από όλο τον κόσμο.",
    "pl": (
        "Warszawa jest stolicą Polski. Źródła mówią, że miasto leży nad"
        " Wisłą i ma wiele pięknych zabytków oraz ogrodów."
    ),
    "fr": "Le château se trouve près de la forêt. Où êtes-vous allés hier soir ? Nous avons mangé une crème brûlée.",
    "de": "Die Straße führt über die Brücke zum Schloss. Größere Häuser stehen am Ufer, die Kinder spielen im Garten.",
    "es": "El niño comió una manzana en el jardín. ¿Dónde está la estación? Mañana iremos a la montaña con amigos.",
    "pt": "A eleição começou às oito horas. As crianças estão felizes porque não há aulas amanhã e vão à praia.",
    "tr": (
        "İstanbul Türkiye'nin en büyük şehridir. Boğaz'ın iki yakasında"
        " yaşayan insanlar her gün vapurla karşıya geçer."
    ),
    "cs": "Praha je hlavní město České republiky. Řeka Vltava protéká středem města a přes ni vede Karlův most.",
    "hu": "Budapest Magyarország fővárosa. A Duna két partján fekszik, és gyönyörű hidak kötik össze Budát és Pestet.",
    "lt": (
        "Vilnius yra Lietuvos sostinė. Senamiestis įtrauktas į pasaulio"
        " paveldo sąrašą, o gatvėse visada daug žmonių."
    ),
    "lv": "Rīga ir Latvijas galvaspilsēta. Vecrīgā ir daudz skaistu ēku, un vasarā pilsētā ierodas tūkstošiem tūristu.",
    "et": "Tallinn on Eesti pealinn. Vanalinnas on kitsad tänavad. Šokolaadi söövad lapsed ja žürii hindab võistlust.",
    "he": "ירושלים היא בירת ישראל. העיר העתיקה מוקפת חומה ובה מקומות קדושים לשלוש הדתות הגדולות.",
    "ar": "القاهرة هي عاصمة مصر وأكبر مدنها. يمر نهر النيل عبر المدينة ويزورها ملايين السياح كل عام.",
    "th": "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย มีวัดและพระราชวังที่สวยงามมากมาย นักท่องเที่ยวจำนวนมากมาเยือนทุกปี",
    "vi": to_windows_1258_form("Hà Nội là thủ đô của Việt Nam. Thành phố có nhiều hồ nước đẹp và những con phố cổ kính."),
    "uk": "Київ є столицею України. Дніпро тече через місто, а на його берегах розташовані численні парки та церкви.",
    "bg": "София е столицата на България. Градът се намира в подножието на планината Витоша и има богата история.",
    "is": "Reykjavík er höfuðborg Íslands. Þar búa flestir landsmenn, og á sumrin er bjart nánast allan sólarhringinn.",
}


def html(text: str, repeat: int = 3) -> str:
    """*text* as the body of an undeclared page (no charset anywhere)."""
    paragraphs = "".join(f"<p>{text}</p>\n" for _ in range(repeat))
    return f"<!DOCTYPE html>\n<html><head><title>Page</title></head>\n<body>\n{paragraphs}</body></html>\n"
