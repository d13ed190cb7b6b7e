"""The type stubs (ringbloom/__init__.pyi) cover the module: every public
name, every public method and property of every class."""

import ast
import pathlib

import ringbloom

STUB = pathlib.Path(ringbloom.__file__).with_name("__init__.pyi")
OPERATORS = {"__contains__", "__len__", "__or__", "__and__", "__ior__", "__iand__", "__bool__"}


def stub_names():
    tree = ast.parse(STUB.read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = set()
    return names


def test_stubs_ship_with_the_package():
    assert STUB.is_file()
    assert STUB.with_name("py.typed").is_file()


def test_every_public_name_and_member_has_a_stub():
    stubs = stub_names()
    missing = []
    for name in ringbloom.__all__:
        if name.startswith("__") or name == "DataError":
            continue
        if name not in stubs:
            missing.append(name)
            continue
        obj = getattr(ringbloom, name)
        if isinstance(obj, type):
            for attr in vars(obj):
                public = not attr.startswith("_") or attr in OPERATORS
                if public and attr not in stubs[name]:
                    missing.append(f"{name}.{attr}")
    assert not missing, f"not in {STUB.name}: {missing}"
