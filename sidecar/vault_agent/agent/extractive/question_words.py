"""The words that say what kind of answer a question wants, per language.

Six kinds: the newest or the oldest dated note ("when did I *last*..."), an amount ("*how
many*...", "*is there a limit*..."), a time or a release ("*when*...", "*in which
version*..."), steps ("*how do I*..."), and what is still to do ("*what's left* to book...",
"my *open tasks*": the unchecked checkboxes answer).
A table per language (the languages the multilingual encoder reads, Chinese in both scripts,
and Hindi, Vietnamese, Indonesian and the Nordic languages, whose notes keyword search reads);
each entry is a regular expression matched case-insensitively, as whole words for the
languages written with spaces (a vowel sign is part of a word: "कब", when, is not the start of
"कबूतर", pigeon), anywhere for Chinese, Japanese, Korean and Thai.

"Which release" may name what was released ("which *Tasks* release", "in which *mobile app*
version"): up to two words come between.

English "when" asks only before a verb ("when did...", "...released when?"): before its
subject it sets a condition ("when I use Dataview, does it...?", "what happens when...").
"""

from __future__ import annotations

import re

from vault_agent.index.embed.terms import WORD_MARKS

#: The key of a table's entry for the languages written without spaces (matched anywhere).
UNSPACED = "unspaced"


NEWEST = {
    "en": r"last|latest|lately|most recent(?:ly)?|recent(?:ly)?|newest|previous",
    "de": r"zuletzt|letzte[nmrs]?|neueste[nmrs]?|kürzlich",
    "fr": r"dernière?s?|récemment|plus récente?s?",
    "es": r"último|última|recientemente|más recientes?",
    "it": r"ultim[oaie]|recentemente|più recenti?",
    "pt": r"últim[oa]s?|recentemente|mais recentes?",
    "nl": r"laatst(?:e)?|recent(?:elijk)?|meest recente",
    "pl": r"ostatni\w*|ostatnio|najnowsz\w*",
    "tr": r"en son|son kez|en yeni",
    "ar": r"آخر مرة|الأخير[ةه]?|أحدث|مؤخرا",  # bare "آخر" is also "other"
    "hi": r"पिछली बार|आखिरी बार|आख़िरी बार|हाल ही में|सबसे नय[ाी]",
    "ru": r"последн\w*|недавно",
    "vi": r"lần cuối|gần đây nhất|gần nhất|mới nhất",
    "id": r"terakhir(?: kali)?|terbaru|baru-baru ini",
    "sv": r"senast|senaste|nyligen",
    "da": r"sidst|seneste|for nylig",
    "nb": r"sist|siste|nylig",
    UNSPACED: r"最近|上次|最后|最後|前回|この前|마지막|최근|ล่าสุด|ครั้งสุดท้าย",
}
OLDEST = {
    "en": r"first|earliest|initially|originally",
    "de": r"erste[nmrs]?|zuerst",
    "fr": r"premier|première",
    "es": r"primer[oa]?|primera vez",
    "it": r"prim[oa] volta|per la prima",
    "pt": r"primeir[oa]s?",
    "nl": r"eerste",
    "pl": r"pierwsz\w*",
    "tr": r"ilk",
    "ar": r"أول",
    "hi": r"पहली बार|सबसे पहले",
    "ru": r"перв\w*",
    "vi": r"lần đầu(?: tiên)?|đầu tiên|sớm nhất",
    "id": r"pertama(?: kali)?|paling awal",
    "sv": r"första gången|först",
    "da": r"første gang|først",
    "nb": r"første gang|først",
    UNSPACED: r"第一次|最初|初めて|처음|최초|ครั้งแรก",
}
QUANTITY = {
    "en": r"how (?:much|many|long|often|hot|cold|big|large|far|old|early|late|fast)|"
    r"what(?:'s| is)? the (?:biggest|largest|maximum|max|minimum|min|smallest|size|limit|"
    r"price|cost|temperature)|is there (?:a|an|any) (?:upper |lower |size )?(?:maximum|max|"
    r"minimum|min|limit|cap)",
    "de": r"wie (?:viel|viele|lange|oft|gro(?:ß|ss)|hei(?:ß|ss))|gibt es (?:ein|eine) "
    r"(?:limit|maximum|obergrenze|begrenzung|höchst\w*)",
    "fr": r"combien|(?:y a-t-il|existe-t-il) une (?:limite|taille maximale|nombre maximal)",
    "es": r"cu[aá]nt[oa]s?|hay (?:un|alg[uú]n) (?:l[ií]mite|m[aá]ximo)",
    "it": r"quant[oaie]|quanto tempo|c'è un (?:limite|massimo)",
    "pt": r"quant[oa]s?|quanto tempo|(?:há|existe) (?:um|algum) (?:limite|máximo)",
    "nl": r"hoeveel|hoe (?:lang|vaak|groot)|is er een (?:limiet|maximum)",
    # "ile" alone would also read Turkish "ile" (with, and).
    "pl": r"ile (?:kosztuje|kosztował\w*|czasu|razy|trwa|jest|ma|wynosi|waży)|"
    r"jak (?:długo|często|duż\w*)",
    "tr": r"kaç|ne kadar",
    "ar": r"كم|هل (?:هناك|يوجد) حد",
    "hi": r"कितन[ाेी]|क्या कोई (?:सीमा|अधिकतम)",
    "ru": r"сколько|есть ли (?:ограничение|лимит|максимум)",
    "vi": r"bao nhiêu|bao lâu|bao xa|mấy (?:lần|ngày|giờ|tiếng|người|cái)|có giới hạn",
    "id": r"berapa|apakah ada batas",
    "sv": r"hur (?:mycket|många|länge|ofta|stor|varmt)",
    "da": r"hvor (?:meget|mange|længe|ofte|stor)",
    "nb": r"hvor (?:mye|mange|lenge|ofte|stor)",
    # Thai "เกี่ยว" (about) holds the letters of "กี่" (how many).
    UNSPACED: r"多少|多久|多长|几|幾|多長|どのくらい|何[個回分時日]|いくら|얼마나|몇|上限|최대|"
    r"เท่าไร|เท่าไหร่|(?<!เ)กี่",
}
#: "How often...": a routine answers in words as well as numbers ("once a day"). Not "how
#: many times", which counts what happened.
HOW_OFTEN = {
    "en": r"how (?:often|frequently)",
    "de": r"wie (?:oft|häufig)",
    "fr": r"à quelle fréquence|tous les combien",
    "es": r"con qu[eé] frecuencia|cada cu[aá]nto",
    "it": r"quanto spesso|ogni quanto|con che frequenza",
    "pt": r"com que frequência|de quanto em quanto",
    "nl": r"hoe vaak|hoe dikwijls",
    "pl": r"jak często",
    "tr": r"ne sıklıkla|ne kadar sık",
    "ru": r"как часто",
    "vi": r"bao lâu một lần|thường xuyên như thế nào",
    "id": r"seberapa sering",
    "sv": r"hur ofta",
    "da": r"hvor ofte",
    "nb": r"hvor ofte",
    UNSPACED: r"多久一次|多常|频率|頻率|どのくらいの頻度|얼마나 자주|บ่อยแค่ไหน",
}
#: "How much does it *cost*?": a price, answered by money (a currency by a number) or by
#: "free". Not "how much *more* does it cost?", which a ratio answers ("four times as much").
PRICE = {
    "en": r"how much (?:does|do|did|will|would|is|are|was|were) (?:[\w'’-]+ ){0,6}?"
    r"(?:cost|costs|charge)|what(?:'s| is| was| are)? the (?:price|cost|fee|fees)|"
    r"how much (?:do|did|will|would) (?:i|we|you) (?:have to )?pay",
    "de": r"wie ?viel kostet|wie ?viel kosten|was kostet|was kosten|wie teuer",
    "fr": r"combien (?:co[uû]te|co[uû]tent)|quel est (?:le prix|le tarif)",
    "es": r"cu[aá]nto (?:cuesta|cuestan)|cu[aá]l es el precio|qu[eé] precio",
    "it": r"quanto (?:costa|costano)|qual è il prezzo",
    "pt": r"quanto (?:custa|custam)|qual (?:é )?o preço",
    "nl": r"hoeveel kost|wat kost|wat is de prijs",
    "pl": r"ile (?:kosztuje|kosztują)",
    "ru": r"сколько (?:стоит|стоят)|какая цена|какова цена",
    UNSPACED: r"多少钱|多少錢|价格是|價格是|いくら|値段|料金は|얼마예요|얼마인가요",
}
#: "How many *pages*...": what is counted follows, as the next word or two ("how many
#: community plugins"). Spaced languages only: elsewhere the counted thing is not a word apart.
COUNTED = {
    "en": r"how many (?:more |fewer |different )?(\w+)(?: (\w+))?",
    "de": r"wie viele (\w+)(?: (\w+))?",
    "fr": r"combien (?:de |d'|d’)(\w+)(?: (\w+))?",
    "es": r"cu[aá]nt[oa]s (\w+)(?: (\w+))?",
    "it": r"quant[ie] (\w+)(?: (\w+))?",
    "pt": r"quant[oa]s (\w+)(?: (\w+))?",
    "nl": r"hoeveel (\w+)(?: (\w+))?",
    "ru": r"сколько (\w+)(?: (\w+))?",
    "ar": r"كم (\w+)(?: (\w+))?",
}
WHEN = {
    "en": r"when(?:'s|'d|\s+(?:did|do|does|was|were|is|are|will|would|can|could|should|has|"
    r"have|had|might|must)\b|\s*[?.!]|\s*$)|since (?:when|which)|(?:in )?(?:what|which) "
    r"(?:(?!(?:is|was|were|are|do|did|does|has|have|had|can|could|will|would)\b)[\w.-]+ ){0,2}"
    r"(?:years?|dates?|days?|versions?|releases?|updates?)|dates? of",
    "de": r"wann|seit wann|welche[rmns]? version|datum (?:des|der|von)",
    "fr": r"quand|depuis quand|quelle version|dates? (?:de|du|des|d'|d’)",
    "es": r"cu[aá]ndo|desde cu[aá]ndo|qu[eé] versi[oó]n|fechas? (?:de|del)",
    "it": r"quando|da quando|quale versione",
    "pt": r"quando|desde quando|qual vers[aã]o|em que vers[aã]o",
    "nl": r"wanneer|sinds wanneer|welke versie",
    "pl": r"kiedy|od kiedy|któr\w+ wersj\w+",
    "tr": r"ne zaman|hangi sürüm",
    "ar": r"متى|منذ متى|(?:في )?أي (?:إصدار|نسخة)",
    "hi": r"कब|कब से|किस (?:संस्करण|वर्जन)",
    "ru": r"когда|с какой версии|в какой версии",
    "vi": r"khi nào|lúc nào|bao giờ|hồi nào|ngày nào|năm nào|phiên bản nào",
    "id": r"kapan|sejak kapan|versi (?:mana|berapa)",
    "sv": r"när|vilken version",
    "da": r"hvornår|hvilken version",
    "nb": r"når|hvilken versjon",
    UNSPACED: r"什么时候|什麼時候|何时|哪个版本|哪個版本|哪一版|いつ|どのバージョン|"
    r"언제|어느 버전|เมื่อไร|เมื่อไหร่|เวอร์ชันไหน|รุ่นไหน",
}
#: "Where...?" asks for a place: an amount asked after it is a clause of it ("where can I see
#: how long the app took to load?").
WHERE = {
    "en": r"where",
    "de": r"wo|wohin",
    "fr": r"où",
    "es": r"d[oó]nde",
    "it": r"dove",
    "pt": r"onde",
    "nl": r"waar",
    "pl": r"gdzie",
    "tr": r"nerede|nereye",
    "ar": r"أين",
    "hi": r"कहाँ|कहां",
    "ru": r"где|куда",
    "vi": r"ở đâu|chỗ nào|nơi nào",
    "id": r"di ?mana|ke ?mana",
    UNSPACED: r"哪里|哪裡|在哪|どこ|어디|ที่ไหน",
}
HOW_TO = {
    "en": r"how (?:do|can|could|should|would) (?:i|you|we)|how to|what'?s the way to",
    # "Wie stelle ich ... ein?", "wie lege ich ... fest?": how, a verb, and who does it (not
    # "wie viele habe ich", which asks an amount).
    "de": r"wie (?:kann|mache|muss|soll|richte|füge|erstelle)|"
    r"wie (?!viel|lange|oft|gro|hei|alt|weit|spät|früh|schnell)\w+ (?:ich|man)\b",
    "fr": r"comment (?:puis-je|faire|créer|ajouter)",
    "es": r"c[oó]mo (?:puedo|se|hago|creo|a[nñ]ado)",
    "it": r"come (?:posso|faccio|si)",
    "pt": r"como (?:posso|faço|fa[cç]o|crio|adiciono)",
    "nl": r"hoe (?:kan|moet|maak|voeg|stel)",
    "pl": r"jak (?:mogę|zrobić|dodać|ustawić|utworzyć)",
    "tr": r"nasıl",
    "ar": r"كيف",
    "hi": r"कैसे",
    "ru": r"как (?:мне|можно|сделать|добавить|создать)",
    "vi": r"làm sao|làm thế nào|cách (?:nào|để)",
    "id": r"bagaimana(?: cara)?|cara (?:membuat|menambahkan|mengatur)",
    "sv": r"hur (?:gör|kan|ska) (?:jag|man)",
    "da": r"hvordan (?:gør|kan|skal) (?:jeg|man)",
    "nb": r"hvordan (?:gjør|kan|skal) (?:jeg|man)",
    UNSPACED: r"怎么|如何|怎样|どうやって|どうすれば|方法は|어떻게|방법|怎麼|怎樣|อย่างไร|ยังไง|วิธี",
}

#: "What's *left* to book?", "my *open tasks*": what is still to do (open checkboxes answer).
OPEN_TASKS = {
    "en": r"(?:open|unfinished|pending|outstanding|remaining|incomplete|undone|unchecked)"
    r"\s+(?:tasks?|to-?dos?|items?|actions?|action items?|checkboxes)|"
    r"what(?:'s| is| remains| else is) (?:still )?(?:left|open|outstanding|undone)|"
    r"(?:still|left) to (?:do|be done|\w+)|what (?:else )?do I still (?:need|have) to|"
    r"not yet done|(?:tasks?|to-?dos?|items?|checkboxes) (?:are |is )?(?:still )?"
    r"(?:open|pending|outstanding|left|undone|unfinished|not done|overdue|late)|"
    r"(?:on|in) my to-?do(?: list)?|my to-?dos|what(?:'s| is) (?:due|overdue)|overdue|"
    r"(?:tasks?|to-?dos?) (?:are |is )?(?:due|scheduled)|next (?:steps?|actions?)",
    "de": r"offene[n]? (?:Aufgaben|Punkte|Todos?)|unerledigt\w*|noch (?:zu \w+|offen)|"
    r"(?:Aufgaben|Punkte|Todos?) (?:sind |habe ich )?noch offen|nächsten? Schritte?|"
    r"(?:ist|bleibt) (?:noch )?offen",
    "fr": r"tâches (?:en cours|à faire|restantes|ouvertes|en attente)|reste à \w+|"
    r"prochaines? étapes?|"
    r"encore à \w+|pas encore (?:fait|faite?s)|à faire",
    "es": r"tareas (?:pendientes|abiertas|por hacer)|pendientes?|(?:queda|falta) por \w+|"
    r"próximos? pasos?|"
    r"todavía (?:tengo|hay) que",
    "it": r"attività (?:aperte|da fare|in sospeso)|da fare|(?:resta|rimane) da \w+|"
    r"ancora da \w+",
    "pt": r"tarefas (?:pendentes|abertas|por fazer)|pendentes?|falta \w+|ainda (?:tenho|preciso)",
    "nl": r"openstaande (?:taken|punten)|nog te \w+|nog open|nog niet (?:gedaan|klaar)",
    "pl": r"otwarte zadania|niezrobione|(?:zostało|pozostało) do \w+|do zrobienia",
    "tr": r"açık görevler|yapılacaklar|bekleyen",
    "ru": r"открытые задачи|незаверш\w*|невыполн\w*|(?:осталось|нужно ещё) \w+|ещё не сделал\w*",
    "vi": r"việc (?:cần làm|chưa làm|còn lại)|chưa xong|còn phải",
    "id": r"tugas (?:terbuka|tertunda)|belum selesai|masih harus",
    "sv": r"öppna uppgifter|kvar att \w+|återstår|inte gjort\w*|att göra",
    "da": r"åbne opgaver|tilbage at \w+|mangler at|ikke gjort",
    "nb": r"åpne oppgaver|igjen å \w+|gjenstår|ikke gjort",
    UNSPACED: r"待办|待辦|未完成|还没做|還沒做|还要做|剩下|未完了|やること|やり残し|残っている|"
    r"할 일|남은 일|미완료",
}


def compiled(table: dict[str, str]) -> re.Pattern[str]:
    """One case-insensitive pattern matching any language's entry of `table` (a spaced
    language's as whole words: no letter, digit or word's mark right before or after it)."""
    spaced = "|".join(pattern for language, pattern in table.items() if language != UNSPACED)
    letter = rf"[\w{WORD_MARKS}]"
    return re.compile(rf"(?<!{letter})(?:{spaced})(?!{letter})|{table[UNSPACED]}", re.IGNORECASE)


_COUNTED = re.compile("|".join(f"(?<!\\w)(?:{p})" for p in COUNTED.values()), re.IGNORECASE)


def counted(question: str) -> tuple[str, ...]:
    """The word or two naming what a "how many...?" question counts ("pages", "community
    plugins"); () when it counts nothing by name."""
    match = _COUNTED.search(question)
    return tuple(word for word in match.groups() if word) if match else ()
