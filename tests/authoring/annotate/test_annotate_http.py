"""`revprop annotate` over HTTP: who may ask, which files it touches, how it saves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.annotate_helpers import DEV_CASES, AnnotateProcess, copy_cases, with_client

from pytest_revprop import cli
from pytest_revprop.authoring.annotate.app import CSP, make_app
from pytest_revprop.authoring.annotate.assist import Assistant
from pytest_revprop.authoring.annotate.store import CaseStore, content_hash
from pytest_revprop.core.cases import dump_case, load_case

INVOICE = "0/invoice-workshop-hours/10.json"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return copy_cases(tmp_path / "cases")


def _app(*paths: Path) -> Any:
    store = CaseStore(list(paths))
    return make_app(store, Assistant(cache_dir=None), {"annotator": "", "model": "gold"})


def _run(folder: Path, scenario: Any) -> None:
    with_client(_app(folder), scenario)


def _json_headers(client: Any, **extra: str) -> dict[str, str]:
    return {"Content-Type": "application/json", **extra}


async def _open(client: Any, key: str = INVOICE) -> dict[str, Any]:
    response = await client.get("/api/case", params={"file": key})
    assert response.status == 200
    entry: dict[str, Any] = await response.json()
    return entry


async def _save(client: Any, entry: dict[str, Any], data: Any, **fields: Any) -> Any:
    body = {"file": entry["file"], "hash": entry["hash"], "data": data, "annotator": "alice"}
    return await client.post("/api/save", json=body | fields)


# ---------------------------------------------------------------------------- who may ask


def test_a_request_naming_another_host_is_refused(folder: Path) -> None:
    async def scenario(client: Any) -> None:
        port = client.server.port
        for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", "localhost"):
            response = await client.get("/api/cases", headers={"Host": host})
            assert response.status == 403, host
            assert "Host" in (await response.json())["error"]
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            assert (await client.get("/api/cases", headers={"Host": host})).status == 200

    _run(folder, scenario)


def test_a_foreign_origin_can_neither_read_nor_write(folder: Path) -> None:
    async def scenario(client: Any) -> None:
        entry = await _open(client)
        evil = {"Origin": "http://evil.example"}
        assert (await client.get("/api/cases", headers=evil)).status == 403
        response = await _save(client, entry, entry["data"], note="x")
        assert response.status == 200  # same client, no Origin: allowed
        entry = await _open(client)
        body = {"file": INVOICE, "hash": entry["hash"], "data": entry["data"], "annotator": "eve"}
        for headers in (
            evil,
            {"Origin": "null"},
            {"Origin": f"http://localhost:{client.server.port + 1}"},
            {"Sec-Fetch-Site": "cross-site"},
        ):
            response = await client.post("/api/save", json=body, headers=headers)
            assert response.status == 403, headers
        same = {"Origin": f"http://127.0.0.1:{client.server.port}", "Sec-Fetch-Site": "same-origin"}
        assert (await client.post("/api/check", json={"data": {}}, headers=same)).status == 200

    _run(folder, scenario)
    history = load_case(folder / "invoice-workshop-hours/10.json").annotation
    assert history is not None and [h["annotator"] for h in history["history"]] == ["alice"]


def test_a_write_must_be_json_so_no_form_can_post_one(folder: Path) -> None:
    async def scenario(client: Any) -> None:
        entry = await _open(client)
        body = json.dumps({"file": INVOICE, "hash": entry["hash"], "data": entry["data"]})
        for content_type in ("text/plain", "application/x-www-form-urlencoded"):
            response = await client.post(
                "/api/save", data=body, headers={"Content-Type": content_type}
            )
            assert response.status == 403

    _run(folder, scenario)


def test_every_response_forbids_outside_requests_and_framing(folder: Path) -> None:
    async def scenario(client: Any) -> None:
        for path in ("/", "/static/main.js", "/api/cases", "/nowhere", "/static/nothing.js"):
            response = await client.get(path)
            assert response.headers["Content-Security-Policy"] == CSP, path
            assert response.headers["X-Frame-Options"] == "DENY"
            assert response.headers["X-Content-Type-Options"] == "nosniff"
        refused = await client.get("/", headers={"Host": "evil.example"})
        assert refused.headers["Content-Security-Policy"] == CSP
        page = await (await client.get("/")).text()
        assert "http://" not in page and "https://" not in page and "<style" not in page
        assert "default-src 'self'" in CSP and "'unsafe-inline'" not in CSP

    _run(folder, scenario)


def test_assets_are_the_front_end_files_only(folder: Path) -> None:
    """Every ES module the page imports (main.js and what it imports, by relative name) is
    served as JavaScript from this origin, which the CSP's script-src 'self' allows; each
    stays under the project's module size limit."""
    import re

    from pytest_revprop.authoring.annotate.app import STATIC

    async def scenario(client: Any) -> None:
        seen, todo = set(), ["main.js"]
        while todo:
            name = todo.pop()
            seen.add(name)
            js = await client.get(f"/static/{name}")
            assert js.status == 200 and js.headers["Content-Type"].startswith("text/javascript")
            text = await js.text()
            assert text.count("\n") <= 600, f"{name} has {text.count(chr(10))} lines"
            todo += [n for n in re.findall(r'from "\./([\w-]+\.js)";', text) if n not in seen]
        assert seen == {p.name for p in STATIC.glob("*.js")}  # no module left unused
        for name in ("..%2Fstore.py", "..%2F..%2Fcases.py", "store.py", "%2Fetc%2Fpasswd"):
            assert (await client.get(f"/static/{name}")).status == 404, name

    _run(folder, scenario)


# ---------------------------------------------------------------------------- which files


@pytest.mark.parametrize(
    "key",
    [
        "0/../outside.json",
        "0/invoice-workshop-hours/../../outside.json",
        "0//etc/passwd",
        "0/invoice-workshop-hours\\10.json",
        "0/.hidden.json",
        "0/invoice-workshop-hours/10.txt",
        "1/invoice-workshop-hours/10.json",
        "/etc/passwd",
        "x/10.json",
        "",
    ],
)
def test_a_path_outside_the_folder_is_refused(folder: Path, key: str) -> None:
    (folder.parent / "outside.json").write_text("{}", encoding="utf-8")

    async def scenario(client: Any) -> None:
        response = await client.get("/api/case", params={"file": key})
        assert response.status == 403
        entry = await _open(client)
        saved = await client.post(
            "/api/save",
            json={"file": key, "hash": entry["hash"], "data": entry["data"], "annotator": "a"},
        )
        assert saved.status == 403

    _run(folder, scenario)
    assert (folder.parent / "outside.json").read_text(encoding="utf-8") == "{}"


def test_a_symlink_that_leaves_the_folder_is_neither_read_nor_written(
    folder: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(dump_case(load_case(folder / "invoice-workshop-hours/10.json").to_dict()))
    before = secret.read_bytes()
    (folder / "linked.json").symlink_to(secret)
    (folder / "linked-dir").symlink_to(tmp_path, target_is_directory=True)

    async def scenario(client: Any) -> None:
        listing = (await (await client.get("/api/cases")).json())["cases"]
        linked = [c for c in listing if c["file"] == "0/linked.json"]
        assert len(linked) == 1 and "outside the folder" in linked[0]["error"]
        assert not any("secret" in c["file"] for c in listing)  # linked folders are not walked
        for key in ("0/linked.json", "0/linked-dir/secret.json"):
            assert (await client.get("/api/case", params={"file": key})).status == 403
            body = {"file": key, "hash": content_hash(before), "data": {}, "annotator": "a"}
            assert (await client.post("/api/save", json=body)).status == 403

    _run(folder, scenario)
    assert secret.read_bytes() == before


def test_a_malformed_file_is_listed_with_its_error_and_the_others_load(folder: Path) -> None:
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    bad_gold = json.loads((folder / "invoice-workshop-hours/10.json").read_text())
    bad_gold["id"] = "draft/10"
    bad_gold["gold"][1]["path"] = "/lines/9/amount"
    (folder / "draft.json").write_text(json.dumps(bad_gold), encoding="utf-8")

    async def scenario(client: Any) -> None:
        listing = {c["file"]: c for c in (await (await client.get("/api/cases")).json())["cases"]}
        assert len(listing) == 5
        assert listing["0/broken.json"]["error"].startswith("json:")
        assert listing["0/broken.json"]["openable"]
        assert listing["0/draft.json"]["error"].startswith("gold-applies at /gold")
        assert listing["0/draft.json"]["openable"] is None  # the editor can fix a gold
        assert listing[INVOICE] | {"hash": None} == listing[INVOICE] | {
            "hash": None,
            "error": None,
            "status": "reviewed",  # a shipped case starts as reviewed
            "ops": 5,
            "id": "invoice-workshop-hours/10",
        }

    _run(folder, scenario)


# ---------------------------------------------------------------------------- saving


def test_a_save_writes_the_case_format_and_records_who_and_when(folder: Path) -> None:
    path = folder / "invoice-workshop-hours/10.json"

    async def scenario(client: Any) -> None:
        entry = await _open(client)
        data = entry["data"]
        data["gold"][4]["optional"] = True
        data["request"] = "Please bill 14 hours for the workshop instead of 12."
        data["annotation"] = {"status": "reviewed", "history": [{"forged": 1}], "notes": "hm"}
        data["artifact"]["client"] = "changed by the page"
        response = await _save(client, entry, data, note="optional total")
        assert response.status == 200
        saved = await response.json()
        assert saved["hash"] == content_hash(path.read_bytes()) and saved["error"] is None

    _run(folder, scenario)
    case = load_case(path)
    assert case.gold[4].optional and case.request.startswith("Please bill 14")
    assert case.artifact["client"] == "Harbor Lane Bakery"  # only the editable fields are taken
    assert case.annotation is not None
    assert case.annotation["status"] == "changed"  # edited since it was reviewed
    assert case.annotation["notes"] == "hm"
    [entry] = case.annotation["history"]
    assert entry["annotator"] == "alice" and entry["action"] == "edited"
    assert entry["note"] == "optional total" and entry["time"].endswith("Z")
    assert path.read_text(encoding="utf-8") == dump_case(case.to_dict())
    assert [p.name for p in path.parent.iterdir()] == ["10.json"]  # no temporary file left
    assert cli.main(["validate", str(path)]) == 0


def test_numbers_the_page_read_as_integers_keep_their_form(folder: Path) -> None:
    path = folder / "invoice-workshop-hours/10.json"
    original = path.read_text(encoding="utf-8")
    assert '"value": 1190.0' in original

    async def scenario(client: Any) -> None:
        entry = await _open(client)
        data = json.loads(json.dumps(entry["data"]).replace("1190.0", "1190"))
        assert (await _save(client, entry, data)).status == 200

    _run(folder, scenario)
    saved = path.read_text(encoding="utf-8")
    assert saved.split('"annotation"')[0] == original.split('"annotation"')[0]


def test_a_stale_save_gets_409_with_the_version_on_disk_and_writes_nothing(folder: Path) -> None:
    path = folder / "invoice-workshop-hours/10.json"

    async def scenario(client: Any) -> None:
        entry = await _open(client)
        theirs = json.loads(path.read_text(encoding="utf-8"))
        theirs["gold"][4]["optional"] = True
        theirs["theme"] = "changed by someone else"
        path.write_text(dump_case(theirs), encoding="utf-8")
        disk = path.read_bytes()
        mine = entry["data"] | {"request": "mine"}
        response = await _save(client, entry, mine)
        assert response.status == 409
        body = await response.json()
        assert body["conflict"] is True and body["disk"]["data"]["gold"][4]["optional"] is True
        assert body["disk"]["hash"] == content_hash(disk) != entry["hash"]
        assert path.read_bytes() == disk
        again = await _save(client, entry | {"hash": body["disk"]["hash"]}, mine)
        assert again.status == 200  # keeping mine is a save against the version seen

    _run(folder, scenario)
    case = load_case(path)
    assert case.request == "mine" and not case.gold[4].optional  # mine: request, gold, notes
    assert case.theme == "changed by someone else"  # what the page cannot edit stays theirs


def test_a_save_that_breaks_a_rule_is_refused_and_writes_nothing(folder: Path) -> None:
    path = folder / "invoice-workshop-hours/10.json"
    before = path.read_bytes()

    async def scenario(client: Any) -> None:
        entry = await _open(client)
        broken = json.loads(json.dumps(entry["data"]))
        broken["gold"][0]["path"] = "/lines/3/quantity"
        response = await _save(client, entry, broken)
        assert response.status == 422 and "gold-applies" in (await response.json())["error"]
        assert (await _save(client, entry, entry["data"], annotator=" ")).status == 422
        assert (await _save(client, entry, entry["data"], action="approved")).status == 422

    _run(folder, scenario)
    assert path.read_bytes() == before


def test_a_review_is_a_second_persons_check_of_the_saved_gold(folder: Path) -> None:
    path = folder / "invoice-workshop-hours/10.json"

    async def scenario(client: Any) -> None:
        entry = await _open(client)
        assert (await _save(client, entry, entry["data"], note="checked")).status == 200
        entry = await _open(client)
        by_alice = await _save(client, entry, entry["data"], action="reviewed")
        assert by_alice.status == 422 and "second person" in (await by_alice.json())["error"]
        changed = entry["data"] | {"request": "Bill 14 hours."}
        with_edit = await _save(client, entry, changed, action="reviewed", annotator="bob")
        assert (
            with_edit.status == 422 and "save your edits first" in (await with_edit.json())["error"]
        )
        by_bob = await _save(client, entry, entry["data"], action="reviewed", annotator="bob")
        assert by_bob.status == 200

    _run(folder, scenario)
    annotation = load_case(path).annotation
    assert annotation is not None and annotation["status"] == "reviewed"
    assert [(h["annotator"], h["action"]) for h in annotation["history"]] == [
        ("alice", "edited"),
        ("bob", "reviewed"),
    ]


def test_a_draft_is_annotated_before_it_is_reviewed(folder: Path) -> None:
    path = folder / "invoice-workshop-hours/10.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["annotation"] = {
        "status": "draft",
        "history": [{"annotator": "synth", "time": "2026-11-30T21:05:00Z", "action": "drafted"}],
        "draft": {"generator": "revprop synth 0.1.0", "flags": [{"gold": 2, "reason": "check"}]},
    }
    path.write_text(dump_case(data), encoding="utf-8")

    async def scenario(client: Any) -> None:
        entry = await _open(client)
        review = await _save(client, entry, entry["data"], action="reviewed")
        assert review.status == 422 and "draft" in (await review.json())["error"]
        assert (await _save(client, entry, entry["data"])).status == 200

    _run(folder, scenario)
    annotation = load_case(path).annotation
    assert annotation is not None and annotation["status"] == "annotated"
    assert annotation["draft"]["flags"] == [{"gold": 2, "reason": "check"}]
    assert [h["action"] for h in annotation["history"]] == ["drafted", "edited"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = folder / "invoice-workshop-hours/10.json"
    before = path.read_bytes()
    store = CaseStore([folder])
    entry = store.read(INVOICE)

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError):
        store.save(INVOICE, entry["data"], base_hash=entry["hash"], annotator="alice")
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["10.json"]


CRASH_MID_WRITE = """
import os, sys
from pytest_revprop.authoring.annotate.store import CaseStore
store = CaseStore([sys.argv[1]])
entry = store.read(sys.argv[2])
def crash(src, dst):
    os._exit(9)  # the process dies after writing the new text, before the rename
os.replace = crash
entry["data"]["request"] = "never saved"
store.save(sys.argv[2], entry["data"], base_hash=entry["hash"], annotator="alice")
"""


@pytest.mark.slow
def test_a_crash_mid_write_leaves_the_old_file_intact(folder: Path) -> None:
    path = folder / "invoice-workshop-hours/10.json"
    before = path.read_bytes()
    result = subprocess.run([sys.executable, "-c", CRASH_MID_WRITE, str(folder), INVOICE])
    assert result.returncode == 9
    assert path.read_bytes() == before
    leftovers = [p.name for p in path.parent.iterdir() if p.name != "10.json"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".10.json.")  # never listed
    assert CaseStore([folder]).files() == [f"0/{case_id}.json" for case_id in sorted(DEV_CASES)]


# ---------------------------------------------------------------------------- the real server


@pytest.mark.slow
def test_the_server_listens_on_loopback_only(folder: Path, tmp_path: Path) -> None:
    import psutil

    with AnnotateProcess([str(folder), "--port", "0"], cwd=tmp_path) as server:
        assert server.process is not None
        listening = [
            c.laddr
            for c in psutil.Process(server.process.pid).net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN
        ]
        assert listening and {addr.ip for addr in listening} == {"127.0.0.1"}
        assert server.url == f"http://127.0.0.1:{listening[0].port}/"
    assert "stopped" in server.stop() or server.process.returncode == 0


@pytest.mark.slow
def test_a_busy_port_is_a_one_line_error(folder: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest_revprop.cli",
                "annotate",
                str(folder),
                "--port",
                str(port),
                "--no-browser",
            ],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "pass another --port" in result.stderr


def test_an_edit_after_a_review_is_changed_and_a_wrong_size_is_fixed_by_a_save(
    folder: Path,
) -> None:
    path = folder / "invoice-workshop-hours/10.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["size"] = 12  # a wrong size: the file opens, with the rule and the leaf count
    data["annotation"] = {"status": "annotated", "history": []}
    path.write_text(dump_case(data), encoding="utf-8")
    statuses = []

    async def scenario(client: Any) -> None:
        entry = await _open(client)
        assert entry["rule"] == "size" and entry["leaves"] == 10
        assert "/size" in entry["error"] and entry["openable"] is None
        fixed = entry["data"] | {"size": entry["leaves"]}
        assert (await _save(client, entry, fixed)).status == 200
        for annotator, action, change in (
            ("bob", "reviewed", None),
            ("alice", "edited", "Bill 14 hours."),
            ("alice", "edited", "Bill 14 hours, please."),
            ("bob", "reviewed", None),
        ):
            entry = await _open(client)
            sent = entry["data"] | ({"request": change} if change else {})
            assert (
                await _save(client, entry, sent, action=action, annotator=annotator)
            ).status == 200
            statuses.append(load_case(path).annotation["status"])  # type: ignore[index]

    _run(folder, scenario)
    assert load_case(path).size == 10
    assert statuses == ["reviewed", "changed", "changed", "reviewed"]


def test_a_schema_error_names_the_op_as_the_page_numbers_it_and_dumps_no_value(
    folder: Path,
) -> None:
    path = folder / "invoice-workshop-hours/10.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["gold"][2]["kind"] = {"whole": data["artifact"]}
    path.write_text(dump_case(data), encoding="utf-8")

    async def scenario(client: Any) -> None:
        entry = await _open(client)
        assert entry["error"] == (
            "schema at /gold/2/kind (op 3): an object with 1 member(s) is not one of "
            "direct, cascade"
        )

    _run(folder, scenario)


def test_a_gone_file_is_saved_as_a_new_file_only_where_none_is(folder: Path) -> None:
    """The page's "Save as a new file" for a file deleted while open: written where it was,
    never over a file that is there, never outside the folder; a plain save names the path."""

    async def scenario(client: Any) -> None:
        entry = await _open(client)
        data = dict(entry["data"], notes="kept")
        (folder / "invoice-workshop-hours/10.json").unlink()
        response = await _save(client, entry, data)
        assert response.status == 404
        said = (await response.json())["error"]
        assert said.endswith("invoice-workshop-hours/10.json: no such case file")
        assert not said.startswith("0/")  # the path, not the page's key
        response = await _save(client, entry, data, create=True)
        assert response.status == 200
        response = await _save(client, entry, data, create=True)  # it is there now
        assert response.status == 409
        outside = dict(entry, file="0/../escaped.json")
        response = await _save(client, outside, data, create=True)
        assert response.status == 403

    _run(folder, scenario)
    saved = load_case(folder / "invoice-workshop-hours/10.json")
    assert saved.notes == "kept" and saved.annotation is not None
    assert saved.annotation["history"][-1]["annotator"] == "alice"
    assert not (folder.parent / "escaped.json").exists()


@pytest.mark.parametrize("given", ["0", "-1", "soon", "7200"])
def test_a_watch_interval_out_of_range_is_refused_in_one_line(
    given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["annotate", "--watch", given, "--no-browser"])
    assert stopped.value.code == 2
    assert "--watch" in capsys.readouterr().err.splitlines()[-1]


def test_the_watch_interval_reaches_the_page_through_the_session(folder: Path) -> None:
    from pytest_revprop.cli.annotate import _parser, page_settings

    for given, seconds in (([], 2.0), (["--watch", "0.5"], 0.5)):
        settings = page_settings(_parser().parse_args([str(folder), *given]))
        app = make_app(CaseStore([folder]), Assistant(cache_dir=None), settings)

        async def scenario(client: Any, seconds: float = seconds) -> None:
            reply = await client.get("/api/session")
            assert (await reply.json())["watch_s"] == seconds

        with_client(app, scenario)
