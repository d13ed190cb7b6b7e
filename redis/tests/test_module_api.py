"""The module's contract with the server: it loads into this redis-server (so
every API function it fetches by name exists there), exports only
RedisModule_OnLoad, declares its commands' flags and key specs, and refuses
bad module arguments with a log line."""
import shutil
import subprocess

import pytest

from conftest import MODULE, Server


def test_loads_and_is_listed(r):
    modules = r.module_list()
    assert any(m[b"name"] == b"ringbloom" for m in modules), modules


def test_exports_only_onload():
    require = shutil.which("nm")
    if require is None:
        pytest.fail("nm is missing; install binutils")
    out = subprocess.run(["nm", "-D", "--defined-only", MODULE], capture_output=True, text=True,
                         check=True).stdout
    symbols = sorted(line.split()[-1] for line in out.splitlines() if line.strip())
    assert symbols == ["RedisModule_OnLoad"], symbols


def test_command_flags_and_key_specs(raw):
    info = raw.execute_command("COMMAND", "INFO", "bf.add", "bf.exists", "cms.merge")
    add, exists, merge = info["bf.add"], info["bf.exists"], info["cms.merge"]
    assert "write" in add["flags"] and "denyoom" in add["flags"]
    assert "readonly" in exists["flags"] and "fast" in exists["flags"]
    assert add["arity"] == 3 and exists["arity"] == 3
    assert (add["first_key_pos"], add["last_key_pos"], add["step_count"]) == (1, 1, 1)
    assert [b"RW", b"insert"] in add["key_specifications"][0]
    assert [b"RO", b"access"] in exists["key_specifications"][0]
    assert b"keynum" in repr(merge["key_specifications"]).encode()


@pytest.mark.parametrize("args,needle", [
    (["ERROR_RATE", "2"], "bad module argument ERROR_RATE '2': Value for `bf-error-rate` must be"),
    (["INITIAL_SIZE"], "module arguments come in pairs"),
    (["NOPE", "1"], "unknown module argument 'NOPE'"),
    (["MAX_FILTER_BYTES", "10"], "bad module argument MAX_FILTER_BYTES '10'"),
])
def test_bad_module_arguments_refuse_the_load(workdir, args, needle):
    s = Server(workdir, module_args=args)
    s.start(wait=False)
    try:
        s.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        s.stop()
        pytest.fail("redis-server started with a bad module argument")
    assert needle in s.log_text()
