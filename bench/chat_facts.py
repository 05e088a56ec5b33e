"""The scripted extraction of bench.economy: which facts the scripted model reads in IRC chat.

A message saying something about its author ("my", "I'm", "I have", ...; a question only when it
discloses something, "I have an ATI card, how do I ...?") yields one fact about the author for each
piece of software or hardware it names, at most three: "I run Ubuntu on my Dell and the ATI driver
crashes" tells three things. The thing named nearest to a trouble word ("crashes", "can't", ...)
is what the author has a problem with. Advice ("you should use X") and questions tell nothing
durable about a person, so they yield nothing, as grapevine's extraction prompt asks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_TERMS = sorted(
    set(
        """
ubuntu kubuntu xubuntu edubuntu debian gentoo fedora suse mandriva slackware arch windows xp vista mac osx
linux kernel grub lilo gnome kde xfce fluxbox xorg compiz beryl metacity nautilus konqueror firefox
thunderbird evolution gaim pidgin xchat irssi openoffice libreoffice gimp vlc mplayer totem amarok
rhythmbox xmms audacious wine samba nfs ssh apache mysql postgresql php python perl java ruby nvidia ati
radeon intel geforce fglrx alsa pulseaudio ndiswrapper wifi wireless ethernet router usb dvd ipod laptop
thinkpad dell hp ibm acer asus toshiba raid lvm ntfs fat32 ext3 ext4 reiserfs xfs swap bios dapper edgy
feisty gutsy hardy intrepid jaunty karmic lucid maverick natty oneiric precise trusty xenial yakkety zesty
hoary breezy warty apt aptitude synaptic dpkg bash vim emacs gcc sudo cron iptables firestarter azureus
ktorrent skype flash virtualbox vmware xen dropbox chrome chromium opera mozilla unity steam docker
""".split()
    )
)
_TERM = re.compile(r"\b(" + "|".join(_TERMS) + r")\b", re.IGNORECASE)
_UPPER = {
    "kde",
    "ati",
    "usb",
    "dvd",
    "hp",
    "ibm",
    "ssh",
    "nfs",
    "php",
    "gcc",
    "lvm",
    "raid",
    "xp",
    "vlc",
    "osx",
    "bios",
    "xfs",
    "ntfs",
    "gimp",
    "xmms",
}
GENERIC = {"laptop", "wifi", "wireless", "ethernet", "router", "usb", "dvd", "swap", "kernel", "bios", "raid", "flash"}
_SELF = re.compile(r"\b(i|i'm|im|i've|ive|i'd|my|mine|me)\b", re.IGNORECASE)
_DISCLOSES = re.compile(
    r"\b(i'm|im|i am|i've|ive|i have|i had|i got|i use|i run|i installed|i bought|i just|my)\b", re.IGNORECASE
)  # says something about the speaker even inside a question
_TROUBLE = re.compile(
    r"\b(can't|cant|cannot|doesn't|doesnt|won't|wont|isn't|not working|error|problem|issue|"
    r"broken|fails?|crash\w*|stuck|freez\w*)\b",
    re.IGNORECASE,
)
_USES = re.compile(r"\b(use|using|used|run|running|installed|install|have|got|on|switched|upgraded)\b", re.IGNORECASE)
PER_MESSAGE = 3


@dataclass(frozen=True)
class ScriptFact:
    """One fact the scripted model extracts from one message."""

    author: str  # display name of the author (the subject)
    thing: str  # the entity it names
    text: str
    trouble: bool

    @property
    def category(self) -> str:
        return "other" if self.trouble else "possession"

    @property
    def expiry(self) -> str:
        return "month" if self.trouble else "permanent"


def thing_name(word: str) -> str:
    word = word.casefold()
    return word.upper() if word in _UPPER else word.capitalize()


def things_named(text: str) -> list[str]:
    """The software and hardware a text names, in order, each once."""
    return list(dict.fromkeys(thing_name(m[1]) for m in _TERM.finditer(text)))


def message_facts(author: str, content: str) -> list[ScriptFact]:
    """What the scripted model reads in one message: a fact about its author per thing it names."""
    text = content.strip()
    if len(text.split()) < 4 or not _SELF.search(text):
        return []
    if text.endswith("?") and not _DISCLOSES.search(text):
        return []  # "how do I ...?" asks, it tells nothing about the asker
    first_at: dict[str, int] = {}
    for m in _TERM.finditer(text):
        first_at.setdefault(thing_name(m[1]), m.start())
    things = list(first_at)[:PER_MESSAGE]
    if not things:
        return []
    trouble = _TROUBLE.search(text)
    troubled = min(things, key=lambda t: abs(first_at[t] - trouble.start())) if trouble else None
    facts = []
    for thing in things:
        if thing == troubled:
            facts.append(ScriptFact(author, thing, f"{author} has a problem with {thing}", True))
        elif _USES.search(text):
            facts.append(ScriptFact(author, thing, f"{author} uses {thing}", False))
        else:
            facts.append(ScriptFact(author, thing, f"{author} talked about their {thing}", False))
    return facts


def window_facts(lines: Sequence[tuple[str, str]], per_person: int = 5, per_window: int = 15) -> list[tuple[int, ScriptFact]]:
    """(line index, fact) of a window's (author, content) lines within the caps, in order; a fact
    stated twice in one window is kept once (from its first message)."""
    kept: list[tuple[int, ScriptFact]] = []
    seen: set[str] = set()
    per: Counter[str] = Counter()
    for i, (author, content) in enumerate(lines):
        for f in message_facts(author, content):
            if f.text in seen or per[f.author] >= per_person or len(kept) >= per_window:
                continue
            seen.add(f.text)
            per[f.author] += 1
            kept.append((i, f))
    return kept


def summary_of(lines: Sequence[tuple[str, str]], facts: Sequence[tuple[int, ScriptFact]]) -> str:
    names = list(dict.fromkeys(author for author, _ in lines))
    who = ", ".join(names[:4]) + (f" and {len(names) - 4} others" if len(names) > 4 else "")
    things = list(dict.fromkeys(f.thing for _, f in facts))
    about = ", ".join(things[:4]) if things else "Ubuntu support questions"
    return f"{who} talked in the Ubuntu help channel about {about}. {len(lines)} messages."
