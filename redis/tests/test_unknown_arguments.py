"""Every command that takes keywords refuses a word it does not know with an
error that names the word as typed (after RedisBloom's own sentence where it
has one, so that clients matching that sentence still match) and says what
the command takes; nothing is created or changed."""
import pytest
import redis

SETUP = [
    ["BF.RESERVE", "bf", "0.01", "100"],
    ["CF.RESERVE", "cf", "100"],
    ["CMS.INITBYDIM", "cms", "10", "2"],
    ["CMS.INITBYDIM", "cms2", "10", "2"],
    ["TOPK.RESERVE", "tk", "5"],
    ["TDIGEST.CREATE", "td"],
    ["TDIGEST.CREATE", "td2"],
]

# (command, the start of the refusal: RedisBloom's sentence where it has one)
CASES = [
    (["BF.RESERVE", "new", "0.01", "1000", "FOO"], "unknown argument"),
    (["BF.RESERVE", "new", "0.01", "1000", "EXPANSION", "2", "FOO"], "unknown argument"),
    (["BF.RESERVE", "new", "0.01", "1000", "WINDOW", "5", "FOO"], "unknown argument"),
    (["BF.INSERT", "new", "FOO", "ITEMS", "a"], "Unknown argument received"),
    (["BF.INSERT", "new", "CAPACITY", "10", "FOO", "ITEMS", "a"], "Unknown argument received"),
    (["BF.INSERT", "new", "WINDOW", "5", "FOO", "ITEMS", "a"], "Unknown argument received"),
    (["BF.INFO", "bf", "FOO"], "Invalid information value"),
    (["CF.RESERVE", "new", "1000", "FOO"], "unknown argument"),
    (["CF.RESERVE", "new", "1000", "BUCKETSIZE", "2", "FOO", "1"], "unknown argument"),
    (["CF.RESERVE", "new", "1000", "BUCKETSIZE", "2", "FOO"], "unknown argument"),
    (["CF.INSERT", "new", "FOO", "ITEMS", "a"], "Unknown argument received"),
    (["CF.INSERTNX", "new", "FOO", "ITEMS", "a"], "Unknown argument received"),
    (["CF.INSERT", "new", "CAPACITY", "10", "FOO", "ITEMS", "a"], "Unknown argument received"),
    (["CMS.MERGE", "cms", "1", "cms2", "FOO"], "CMS: wrong number of keys"),
    (["CMS.MERGE", "cms", "1", "cms2", "FOO", "1"], "CMS: wrong number of keys"),
    (["TOPK.LIST", "tk", "FOO"], "WITHCOUNT keyword expected"),
    (["TDIGEST.CREATE", "new", "FOO"], "T-Digest: wrong keyword"),
    (["TDIGEST.CREATE", "new", "FOO", "100"], "T-Digest: wrong keyword"),
    (["TDIGEST.MERGE", "td", "1", "td2", "FOO"], "T-Digest: wrong keyword"),
    (["TDIGEST.MERGE", "td", "1", "td2", "COMPRESSION", "100", "FOO"], "T-Digest: wrong keyword"),
]


@pytest.mark.parametrize("args,sentence", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_an_unknown_keyword_is_named(raw, args, sentence):
    for setup in SETUP:
        raw.execute_command(*setup)
    before = {k: raw.dump(k) for k in raw.keys()}
    with pytest.raises(redis.ResponseError) as refused:
        raw.execute_command(*args)
    text = str(refused.value)
    assert text.startswith(sentence), text
    assert "'FOO'" in text, text  # the word as typed
    assert "takes" in text, text  # and what the command takes instead
    assert {k: raw.dump(k) for k in raw.keys()} == before  # nothing created or changed


def test_a_keyword_without_its_value_is_still_a_wrong_arity(raw):
    for args in (["CF.RESERVE", "c", "1000", "BUCKETSIZE"], ["TDIGEST.CREATE", "t", "COMPRESSION"]):
        with pytest.raises(redis.ResponseError, match="wrong number of arguments"):
            raw.execute_command(*args)


def test_cms_merge_names_the_count_of_weights(raw):
    raw.execute_command("CMS.INITBYDIM", "a", "10", "2")
    raw.execute_command("CMS.INITBYDIM", "b", "10", "2")
    with pytest.raises(redis.ResponseError,
                       match="^CMS: wrong number of keys/weights: 1 source keys and 2 weights"):
        raw.execute_command("CMS.MERGE", "a", "1", "b", "WEIGHTS", "1", "2")
