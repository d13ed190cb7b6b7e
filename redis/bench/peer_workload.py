"""What peer_speed.py and peer_instructions.py send to both modules: the
keys they reserve, the commands they time (with random items from a seeded
source, so both modules get the same calls), and their command lines."""
import os
import sys


def option(name, default):
    """The integer after `name` on the command line, or `default`."""
    if name in sys.argv:
        return int(sys.argv[sys.argv.index(name) + 1])
    return default


def text_option(name, default):
    """The word after `name` on the command line, or `default`."""
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def module_paths(usage):
    """The two module paths (ours, the peer's), absolute: the server changes
    to its --dir before loading a module. Exits with `usage` otherwise."""
    paths = [a for i, a in enumerate(sys.argv[1:], 1)
             if not a.startswith("--") and not sys.argv[i - 1].startswith("--")]
    if len(paths) != 2:
        raise SystemExit(usage)
    return [os.path.abspath(p) for p in paths]


def setup(r, bf_rate="0.01"):
    """Empties the server and reserves the keys COMMANDS use."""
    r.flushall()
    r.execute_command("BF.RESERVE", "bf", bf_rate, "1000000")
    r.execute_command("BF.RESERVE", "bfi", bf_rate, "1000000")
    r.execute_command("CF.RESERVE", "cf", "1000000")
    r.execute_command("CMS.INITBYDIM", "cms", "2000", "5")
    r.execute_command("TOPK.RESERVE", "topk", "50")


def item(rng):
    return f"item:{rng.randrange(1_000_000)}"


# The command's name in INFO commandstats, and the arguments of one call
# from a random source.
COMMANDS = [
    ("bf.add", lambda g: ("BF.ADD", "bf", item(g))),
    ("bf.exists", lambda g: ("BF.EXISTS", "bf", item(g))),
    ("bf.madd", lambda g: ("BF.MADD", "bf", *[item(g) for _ in range(10)])),
    ("bf.mexists", lambda g: ("BF.MEXISTS", "bf", *[item(g) for _ in range(10)])),
    ("bf.insert", lambda g: ("BF.INSERT", "bfi", "ITEMS", *[item(g) for _ in range(10)])),
    ("cf.add", lambda g: ("CF.ADD", "cf", item(g))),
    ("cf.exists", lambda g: ("CF.EXISTS", "cf", item(g))),
    ("cf.del", lambda g: ("CF.DEL", "cf", item(g))),
    ("cms.incrby", lambda g: ("CMS.INCRBY", "cms", item(g), "1")),
    ("cms.query", lambda g: ("CMS.QUERY", "cms", item(g))),
    ("topk.add", lambda g: ("TOPK.ADD", "topk", item(g))),
    ("topk.query", lambda g: ("TOPK.QUERY", "topk", item(g))),
]
