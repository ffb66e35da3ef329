#!/usr/bin/env python3
"""PageProxy against real paginated servers that other people wrote, on loopback.

    python3 scripts/real-upstreams/run.py [--only SUBSTRING[,SUBSTRING…]] [--json FILE] [--no-probe] [--binary PATH]

Starts Django REST Framework, djangorestframework-jsonapi, drf-link-header-pagination, django-ninja and
django-tastypie (Django's runserver), Wagtail's API v2 (its own runserver), fastapi-pagination and Litestar (uvicorn),
flask-smorest and Eve (Werkzeug), Datasette (its own uvicorn), Kinto (waitress), localstripe (aiohttp), MLflow's
tracking server (uvicorn, SQLite), JupyterHub's REST API (Tornado, SQLite, no node proxy), Piccolo API's PiccoloCRUD
(uvicorn, SQLite), Mailman 3 core's REST API (wsgiref, SQLite), Flask-AppBuilder's REST API and SAFRS (Werkzeug, SQLite),
matrix-synapse's admin API (its Twisted homeserver, SQLite), Strawberry GraphQL's Relay connection (uvicorn), Apache
Airflow's REST API (its api-server, SQLite, a venv of its own), MediaWiki's Action API (Debian's `mediawiki` package
on PHP's built-in server, SQLite; apt, not PyPI: its cases SKIP without it), Roundup's REST API (wsgiref, SQLite, the venv
.venv-real20), and replays of recorded api.github.com, Mastodon
and Reddit traffic; builds PageProxy in release mode; and for each case walks the
server's own links directly in Python (the truth, a new connection per page like a naive client), then asks
PageProxy on a route written as a user would write it (README): merged JSON and NDJSON, each cold (empty cache)
and cached (the same request again). Items are compared one by one with the truth; where the server writes compact
JSON, each NDJSON line must also occur byte for byte in the page the server sent. One PASS/FAIL line per case;
exit 1 on any failure. Where the packages cannot be installed (offline), one SKIP line and exit 0.

The servers' packages live in scripts/real-upstreams/.venv (git-ignored), pinned by requirements.txt. The GitHub
recordings come from the PyGithub sdist on PyPI (tests/ReplayData), the Mastodon ones from the Mastodon.py sdist
(tests/cassettes), downloaded into the same folder; the Reddit ones from the praw sdist (tests/integration/cassettes),
into scripts/real-upstreams/.recordings (git-ignored). zenpy's (Zendesk) and notion-sdk-py's (Notion) recordings are on
no package registry: copied into .recordings by hand (zendesk_replay.py, notion_replay.py say which files), else
their cases print one SKIP line.
Python standard library only in this file; every server listens on 127.0.0.1 and is stopped by its PID.
"""
import argparse, http.client, json, os, shutil, signal, subprocess, sys, tarfile, tempfile, time, urllib.error, urllib.request
from urllib.parse import quote, urljoin, urlencode, urlsplit, urlunsplit, parse_qsl

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import benchlib  # noqa: E402  (free_port, wait_listening, stop, ensure_binary)

VENV = os.path.join(HERE, ".venv")
PYTHON = os.path.join(VENV, "bin", "python")
# Apache Airflow pins versions (SQLAlchemy, FastAPI, …) that other servers here do not take: a venv of its own.
AIRFLOW_VENV = os.path.join(HERE, ".venv-airflow")
AIRFLOW_PYTHON = os.path.join(AIRFLOW_VENV, "bin", "python")
PYGITHUB = "PyGithub==2.10.0"
REPLAY_DIR = os.path.join(VENV, "replay")
MASTODON_PY = "Mastodon.py==2.3.3"
MASTODON_DIR = os.path.join(VENV, "mastodon-cassettes")
# real19: recordings added later live beside the venv, each with a stamp of its own, so that adding one does not
# reinstall the venv or re-extract the others.
RECORDINGS_HOME = os.path.join(HERE, ".recordings")
PRAW = "praw==8.0.3"
PRAW_DIR = os.path.join(RECORDINGS_HOME, "praw-cassettes")
# Recordings that are on no package registry (zenpy's, GPL-3.0; notion-sdk-py's): copied here by hand from a clone
# of their repositories (the replay's docstring says which files), else their server's cases skip.
ZENPY_DIR = os.path.join(RECORDINGS_HOME, "zenpy-cassettes")
NOTION_DIR = os.path.join(RECORDINGS_HOME, "notion-cassettes")
BY_HAND = {"zendesk": ZENPY_DIR, "notion": NOTION_DIR}
MEDIAWIKI_API = "/usr/share/mediawiki/api.php"  # real20: Debian's mediawiki package (apt), not PyPI
# real20: Roundup (pure Python, no dependency) in a venv of its own, from requirements-real20.txt.
REAL20_VENV = os.path.join(HERE, ".venv-real20")
REAL20_PYTHON = os.path.join(REAL20_VENV, "bin", "python")
PROXY_TIMEOUT = 90  # seconds for one answer of PageProxy; most cases take under 2 s, Mailman's 10 pages ~15 s under load

from cases import CASES  # noqa: E402
import windows  # noqa: E402
import reddit_replay  # noqa: E402  (the recordings it reads)


def skip(reason):
    print(f"SKIP real-upstreams: {reason}")
    sys.exit(0)


def ensure_packages():
    """The venv and the recordings; a failure to get them (no network, no PyPI) is a SKIP, not a failure."""
    requirements = os.path.join(HERE, "requirements.txt")
    stamp = os.path.join(VENV, ".installed")
    try:
        if not (os.path.exists(stamp) and open(stamp).read() == open(requirements).read() + PYGITHUB + MASTODON_PY):
            if not os.path.exists(PYTHON):
                subprocess.run([sys.executable, "-m", "venv", VENV], check=True, capture_output=True)
            benchlib.log("installing scripts/real-upstreams/requirements.txt into .venv ...")
            subprocess.run([PYTHON, "-m", "pip", "install", "-q", "-r", requirements], check=True, capture_output=True,
                           timeout=600)
            download_recordings(PYGITHUB, "/tests/ReplayData/", REPLAY_DIR)
            download_recordings(MASTODON_PY, "/tests/cassettes/", MASTODON_DIR)
            open(stamp, "w").write(open(requirements).read() + PYGITHUB + MASTODON_PY)
        airflow = os.path.join(HERE, "requirements-airflow.txt")
        airflow_stamp = os.path.join(AIRFLOW_VENV, ".installed")
        if not (os.path.exists(airflow_stamp) and open(airflow_stamp).read() == open(airflow).read()):
            if not os.path.exists(AIRFLOW_PYTHON):
                subprocess.run([sys.executable, "-m", "venv", AIRFLOW_VENV], check=True, capture_output=True)
            benchlib.log("installing scripts/real-upstreams/requirements-airflow.txt into .venv-airflow (~2 min) ...")
            subprocess.run([AIRFLOW_PYTHON, "-m", "pip", "install", "-q", "-r", airflow], check=True, capture_output=True,
                           timeout=900)
            open(airflow_stamp, "w").write(open(airflow).read())
        real20 = os.path.join(HERE, "requirements-real20.txt")
        real20_stamp = os.path.join(REAL20_VENV, ".installed")
        if not (os.path.exists(real20_stamp) and open(real20_stamp).read() == open(real20).read()):
            if not os.path.exists(REAL20_PYTHON):
                subprocess.run([sys.executable, "-m", "venv", REAL20_VENV], check=True, capture_output=True)
            subprocess.run([REAL20_PYTHON, "-m", "pip", "install", "-q", "-r", real20], check=True, capture_output=True,
                           timeout=600)
            open(real20_stamp, "w").write(open(real20).read())
        ensure_recordings(PRAW, "/tests/integration/cassettes/", PRAW_DIR, reddit_replay.RECORDINGS)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, StopIteration, OSError) as error:
        detail = getattr(error, "stderr", b"") or b""
        last = detail.decode(errors="replace").strip().splitlines()[-1:] if detail else [str(error)]
        skip(f"cannot install the real servers' packages from PyPI ({' '.join(last)[:200]})")


def ensure_recordings(requirement, folder, destination, names):
    """`download_recordings` of the files `names` once per requirement: a stamp in `destination` names the sdist they
    came from (PRAW's folder holds 643 cassettes, 158 MB; the replay reads 3)."""
    stamp = os.path.join(destination, ".downloaded")
    if not (os.path.exists(stamp) and open(stamp).read() == requirement):
        download_recordings(requirement, folder, destination, names)
        open(stamp, "w").write(requirement)


def download_recordings(requirement, folder, destination, names=None):
    """The files under `folder` of a package's sdist from PyPI (a project's recorded test traffic), into `destination`
    (only those named `names`, when given)."""
    download = tempfile.mkdtemp(prefix="pp-recordings-")
    subprocess.run([PYTHON, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", download,
                    requirement], check=True, capture_output=True, timeout=300)
    archive = next(os.path.join(download, f) for f in os.listdir(download) if f.endswith(".tar.gz"))
    shutil.rmtree(destination, ignore_errors=True)
    os.makedirs(destination)
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if folder in member.name and member.isfile() and (names is None or os.path.basename(member.name) in names):
                member.name = os.path.basename(member.name)
                tar.extract(member, destination, filter="data")
    shutil.rmtree(download, ignore_errors=True)


def descendants(pid):
    """Every process under `pid` (children, theirs, ...), each with its start time (`/proc/<pid>/stat` field 22), so
    that a PID the kernel gave again to another process is not signalled."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append((int(entry), fields[19]))
    found, todo = {}, [pid]
    while todo:
        for child, started in parents.get(todo.pop(), []):
            if child not in found:
                found[child] = started
                todo.append(child)
    return found


def still_running(pid, started):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == started and fields[0] != "Z"


def stop_server(proc, name, grace=15.0):
    """harness21: stops a server and everything it started, by its process group (each server has a session of its
    own) and by PID: SIGTERM, then SIGKILL after `grace` seconds. Each server's process group gets the signal, so
    that a child still runs no more when the server script itself is gone (MediaWiki's `php -S` workers outlive their
    parent when it alone gets SIGTERM; closing-40: `php -S` left after a cut run). The processes under the server
    are listed first too: one that started a session of its own is signalled by its PID."""
    left = descendants(proc.pid) if proc.poll() is None else {}

    def group_alive():
        try:
            os.killpg(proc.pid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False

    deadline = time.time() + grace
    for signum in (signal.SIGTERM, signal.SIGKILL):
        alive = [pid for pid, started in left.items() if still_running(pid, started)]
        if proc.poll() is None or alive or group_alive():
            if signum == signal.SIGKILL:
                benchlib.log(f"{name} (pid {proc.pid}): still running {grace:.0f}s after SIGTERM; SIGKILL")
            for kill, target in [(os.killpg, proc.pid)] + [(os.kill, pid) for pid in alive]:
                try:
                    kill(target, signum)
                except ProcessLookupError:
                    pass
        while time.time() < deadline and (proc.poll() is None or group_alive()
                                          or any(still_running(pid, started) for pid, started in left.items())):
            time.sleep(0.1)
        deadline = time.time() + 5
    if proc.poll() is None:
        proc.wait(timeout=5)


def start_servers(workdir, wanted, procs):
    """The servers the cases `wanted` name (`--only` starts only those: Wagtail and MLflow take ~40 s to start), into
    `procs` as each starts: the caller's `finally` stops those started even when this is interrupted (harness21: a
    ^C while MediaWiki installed left every server started so far running)."""
    scripts = {name: [PYTHON, os.path.join(HERE, f"{name}_server.py")] for name in
               ["django", "fastapi", "smorest", "litestar", "eve", "datasette", "kinto", "wagtail", "localstripe",
                "mlflow", "jupyterhub", "piccolo", "mailman", "fab", "safrs", "synapse", "graphene", "strawberry"]}
    scripts["airflow"] = [AIRFLOW_PYTHON, os.path.join(HERE, "airflow_server.py")]
    scripts["github"] = [sys.executable, os.path.join(HERE, "github_replay.py")]
    scripts["mastodon"] = [PYTHON, os.path.join(HERE, "mastodon_replay.py")]
    scripts["reddit"] = [sys.executable, os.path.join(HERE, "reddit_replay.py")]
    scripts["zendesk"] = [sys.executable, os.path.join(HERE, "zendesk_replay.py")]
    scripts["notion"] = [PYTHON, os.path.join(HERE, "notion_replay.py")]
    scripts["roundup"] = [REAL20_PYTHON, os.path.join(HERE, "roundup_server.py")]  # real20: a venv of its own
    scripts["mediawiki"] = [sys.executable, os.path.join(HERE, "mediawiki_server.py")]  # real20: PHP, Debian's package
    extra = {"github": [REPLAY_DIR], "mastodon": [MASTODON_DIR], "reddit": [PRAW_DIR], "zendesk": [ZENPY_DIR],
             "notion": [NOTION_DIR]}
    ports = {name: benchlib.free_port() for name in scripts if name in wanted}
    for name, port in ports.items():
        log = open(os.path.join(workdir, f"{name}.log"), "wb")
        # Their temporary folders (databases, configs) inside the run's own, removed with it: most servers are stopped
        # by SIGTERM, which skips their `finally` (harness19: 17 /tmp/pp-<server>-* folders left by one whole run).
        # harness21: a session of its own, so that a ^C at the terminal reaches run.py alone, which stops each server
        # and what it started in order (stop_server), instead of reaching every server at once mid-request.
        procs[name] = subprocess.Popen(scripts[name] + [str(port)] + extra.get(name, []), stdout=log,
                                       stderr=subprocess.STDOUT, env=dict(os.environ, TMPDIR=workdir),
                                       start_new_session=True)
    for name, proc in procs.items():
        # Wagtail makes its 999 pages one by one through its page tree (~40 s on a loaded machine) before it listens,
        # MLflow its 1000 experiments (~35 s), Synapse its 1000 users through its admin API and a restart (~60 s),
        # Airflow its database, its 1000 variables and its API server, three CLI starts (~40 s; over 240 s at load 27).
        # One that does not listen ends the run; the caller stops the others started (real16: they were left running).
        benchlib.wait_listening(ports[name], proc, limit=600 if name in ("airflow", "mediawiki") else 240, name=name)
    return {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}


# ---- the truth: the server's own links, walked directly ----

def fetch(url, headers):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as response:
        return response.status, dict(response.headers), response.read()


def at(value, path):
    for key in path.split(".") if path else []:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def set_query(url, name, value):
    parts = urlsplit(url)
    pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != name] + [(name, str(value))]
    return urlunsplit(parts._replace(query=urlencode(pairs)))


def next_link(headers):
    for part in headers.get("Link", headers.get("link", "")).split(","):
        if 'rel="next"' in part:
            return part.split(";")[0].strip().strip("<>")
    return None


def direct_walk(truth, origin):
    """Pages (raw body, items) by the server's own rules; `truth` names the rule, see cases.py."""
    kind, start, items_path, headers = truth["kind"], origin + truth["start"], truth["items"], truth.get("headers", {})
    pages, url, seen = [], start, set()
    while url and len(pages) < 1000:
        assert url not in seen, f"the server's links loop at {url}"
        seen.add(url)
        status, response_headers, body = fetch(url, headers)
        document = json.loads(body)
        items = at(document, items_path) if items_path else document
        # MLflow (protobuf JSON) leaves an empty list out: `{}` is a page of no items.
        pages.append((body, [] if items is None and document == {} else items))
        if kind == "link":
            url = next_link(response_headers)
        elif kind == "body-next":
            link = at(document, truth["next"])
            url = urljoin(url, link) if link else None
        elif kind == "cursor":
            cursor = at(document, truth["cursor"])
            url = set_query(url, truth["parameter"], cursor) if cursor else None
        elif kind == "page-count":
            page_key, pages_key = truth.get("page_key", "page"), truth.get("pages_key", "pages")
            page = document[page_key]
            url = set_query(url, truth.get("parameter", "page"), page + 1) if page < document[pages_key] else None
        elif kind == "header-next":
            # flask-smorest: the next page's number in a JSON response header (X-Pagination's "next_page").
            header = json.loads(response_headers.get(truth["header"], "{}"))
            url = set_query(url, truth["parameter"], header[truth["next"]]) if truth["next"] in header else None
        elif kind == "counted":
            # django-ninja: no next link, only a count; pages numbered by `parameter` from `first` in `step`s.
            fetched = sum(len(i) for _, i in pages)
            number = truth["first"] + len(pages) * truth["step"]
            url = set_query(url, truth["parameter"], number) if fetched < document[truth["total"]] else None
        elif kind == "header-url":
            # Kinto: the next page's absolute URL in a response header (`Next-Page`), absent on the last page.
            link = response_headers.get(truth["header"])
            url = urljoin(url, link) if link else None
        elif kind == "offset-count":
            # Wagtail API v2: ?offset=&limit= and a total in the body, no link: the offset moves by the items read
            # (djangorestframework-datatables: `start`).
            parameter = truth.get("parameter", "offset")
            offset = int(dict(parse_qsl(urlsplit(url).query)).get(parameter, 0)) + len(items)
            url = set_query(url, parameter, offset) if items and offset < at(document, truth["total"]) else None
        elif kind == "graphql-cursor":
            # A Relay connection over GET: while `pageInfo.hasNextPage`, `endCursor` goes back as the variable `after`.
            info = at(document, truth["connection"] + ".pageInfo")
            variables = json.dumps({"first": truth["first"], "after": info["endCursor"]}, separators=(",", ":"))
            url = set_query(url, "variables", variables) if info["hasNextPage"] else None
        elif kind == "has-more":
            # Stripe (localstripe): `has_more`, and the next page starts after the last item's id (`starting_after`).
            url = set_query(url, "starting_after", items[-1]["id"]) if document["has_more"] else None
        elif kind == "until-empty":
            # Piccolo API: pages numbered by `parameter` from 1, no next link and no count: on until a page is empty.
            url = set_query(url, truth["parameter"], len(pages) + 1) if items else None
        elif kind == "rison":
            # Flask-AppBuilder: pages from 0 inside the Rison `q`, on to the count; no link.
            fetched = sum(len(i) for _, i in pages)
            url = (set_query(url, "q", f"({truth.get('members', '')}page:{len(pages)},page_size:{truth['size']})")
                   if items and fetched < at(document, truth["total"]) else None)
        elif kind == "next-or-last":
            # SAFRS: `links.next`, or `links.last` where it leaves out a `next` equal to it, while the count says more.
            fetched = sum(len(i) for _, i in pages)
            links = document.get("links", {})
            link = links.get("next") or (links.get("last") if items and fetched < at(document, truth["total"]) else None)
            url = urljoin(url, link) if link else None
        elif kind == "next-while-more":
            # Zendesk: `links.next` while `meta.has_more` is true (its last page still links on), as its clients walk.
            link = at(document, truth["next"]) if at(document, truth["more"]) else None
            url = urljoin(url, link) if link else None
        elif kind == "continue":
            # real20, MediaWiki's Action API: every member of the page's `continue` object into the first request's
            # query (its docs: merge it into the original request; not into the last one), absent on the last batch.
            members = at(document, truth["continue"]) or {}
            url = start
            for name, value in members.items():
                url = set_query(url, name, value)
            url = url if members else None
        elif kind == "roundup":
            # real20, Roundup's REST API: the next link is the first of an array (`data.@links.next[0].uri`), the
            # request's other parameters repeated raw (spaces, quotes): sent percent-encoded, as `requests` would.
            link = at(document, truth["next"])
            url = quote(urljoin(url, link[0]["uri"]), safe=":/?&=@%#+,;~") if link else None
        elif kind == "offset-total":
            offset = document["offset"] + document["limit"]
            url = set_query(url, "offset", offset) if offset < document["total"] else None
        else:
            raise ValueError(kind)
    return pages


# ---- PageProxy ----

def proxy_get(port, route, ndjson, query=""):
    controls = [part for part in [query, "_format=ndjson" if ndjson else ""] if part]
    url = f"http://127.0.0.1:{port}/{route}" + ("?" + "&".join(controls) if controls else "")
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=PROXY_TIMEOUT) as response:
            status, headers = response.status, dict(response.headers)
            try:
                body = response.read()
            except http.client.IncompleteRead as error:
                # A stream that broke after it began: its last line says why (README "NDJSON").
                last = error.partial.rstrip(b"\n").rsplit(b"\n", 1)[-1]
                status, body = "broken stream", json.dumps({"error": {"code": "stream", "message": last.decode(errors="replace")}}).encode()
    except urllib.error.HTTPError as error:
        status, headers, body = error.code, dict(error.headers), error.read()
    except (TimeoutError, urllib.error.URLError) as error:
        # No answer in time (a walk that never ends, a hang): a failure of this case, not of the harness.
        reason = f"no answer within {PROXY_TIMEOUT} s ({error})"
        status, headers, body = "timeout", {}, json.dumps({"error": {"code": "timeout", "message": reason}}).encode()
    return status, headers, body, time.perf_counter() - started


def compare(pages, status, headers, body, ndjson, compact=True, expect_error=None):
    """None when PageProxy's answer holds the truth's items in order (and, for NDJSON, byte for byte), else why.
    With `expect_error`, None when PageProxy refuses with that error code instead (where a clear error is the honest
    answer, e.g. `auto` on a page that does not say how it numbers)."""
    if expect_error:
        try:
            code = json.loads(body)["error"]["code"]
            if status == "broken stream":
                # An NDJSON stream that began with the first page's items: its last line names the error (README "NDJSON").
                code = json.loads(json.loads(body)["error"]["message"].removeprefix("!pageproxy-error "))["error"]["code"]
        except (ValueError, KeyError, TypeError):
            code = None
        return None if status != 200 and code == expect_error else f"HTTP {status}, not the expected error {expect_error}"
    if status != 200:
        try:
            error = json.loads(body)["error"]
            return f"HTTP {status} {error['code']}: {error['message'][:200]}"
        except (ValueError, KeyError, TypeError):
            return f"HTTP {status}: {body[:160]!r}"
    truth = [item for _, items in pages for item in items]
    if ndjson:
        lines = body.split(b"\n")
        if lines[-1] != b"":
            return "NDJSON does not end with a newline"
        lines = lines[:-1]
        got = [json.loads(line) for line in lines]
    else:
        got = json.loads(body)
    if len(got) != len(truth):
        return f"{len(got)} items, the direct walk found {len(truth)}"
    for index, (mine, theirs) in enumerate(zip(got, truth)):
        if mine != theirs:
            return f"item {index} differs: {json.dumps(mine)[:80]} vs {json.dumps(theirs)[:80]}"
    if ndjson and compact:
        # Byte-exact: each line occurs, in order, in the bytes the server sent (when the server writes compact JSON).
        raw = b"".join(page for page, _ in pages)
        position = 0
        for index, line in enumerate(lines):
            found = raw.find(line, position)
            if found < 0:
                return f"item {index} is not byte-exact: {line[:80]!r}"
            position = found + len(line)
    return None


def run_proxy(binary, case, origins, workdir, ndjson):
    """A PageProxy with an empty cache and the case's route: the request cold, then cached."""
    port = benchlib.free_port()
    cache = tempfile.mkdtemp(prefix="cache-", dir=workdir)
    route = dict(case["route"], upstream=origins[case["server"]] + case["route"]["upstream"])
    config = {"listen": {"address": "127.0.0.1", "port": port}, "logLevel": "warning",
              "cache": {"directory": cache, "maxBytes": 268435456}, "routes": [route]}
    path = os.path.join(workdir, "check.json")
    with open(path, "w") as f:
        json.dump(config, f)
    checked = subprocess.run([binary, "check-config", path], capture_output=True, text=True)
    if checked.returncode != 0:
        body = json.dumps({"error": {"code": "config_refused", "message": checked.stderr.strip()}}).encode()
        case["pageproxy_upstream_requests"] = case["pageproxy_cached_requests"] = None
        return [(0, {}, body, 0.0)] * 2
    proc = benchlib.start_pageproxy(binary, config, workdir)
    try:
        cold = proxy_get(port, case["route"]["name"], ndjson, case.get("query", ""))
        case["pageproxy_upstream_requests"] = upstream_pages(port)
        cached = proxy_get(port, case["route"]["name"], ndjson, case.get("query", ""))
        # What the cached request asked upstream: none while the pages are fresh; a revalidation or a full walk when
        # the server said no-cache (Tastypie) or no-store (Kinto), or its Date made them stale.
        case["pageproxy_cached_requests"] = upstream_pages(port) - case["pageproxy_upstream_requests"]
        return [cold, cached]
    finally:
        benchlib.stop(proc, "PageProxy")


def upstream_pages(port):
    """Upstream page requests PageProxy made so far (its /metrics `pageproxy_upstream_pages_total`, every outcome)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return sum(int(float(line.rsplit(" ", 1)[1])) for line in text.splitlines()
               if line.startswith("pageproxy_upstream_pages_total{"))


def github_requests(origin):
    _, _, body = fetch(origin + "/__requests", {})
    urllib.request.urlopen(urllib.request.Request(origin + "/__requests", data=b"", method="POST"), timeout=5).read()
    return json.loads(body)


def probe(binary, case, origins):
    url = origins[case["server"]] + case["truth"]["start"]
    command = [binary, "probe", url] + [arg for name, value in case["truth"].get("headers", {}).items()
                                        for arg in ("--header", f"{name}: {value}")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    return {"command": " ".join(command[1:]).replace(url, case["truth"]["start"]), "status": done.returncode,
            "output": (done.stdout + done.stderr).replace(origins[case["server"]], "http://127.0.0.1:PORT")}


def write_json(path, results, probes):
    """The results so far (written after every case, so that a run cut by its bound keeps what it finished)."""
    with open(path, "w") as f:
        json.dump({"uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
                   "results": results, "probes": probes}, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only the cases whose name contains this (or one of these, comma-separated; "
                                       "=NAME: that case alone; @SERVER: every case of that server, e.g. @django)")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--no-windows", action="store_true",
                        help="leave out the <base>~<window> cases (real18: 307 of them, two PageProxy starts each)")
    parser.add_argument("--no-probe", action="store_true", help="do not run `PageProxy probe` per endpoint")
    parser.add_argument("--binary", help="run this PageProxy binary instead of building the worktree's (a before/after)")
    parser.add_argument("--part", help="K/N: the chosen cases cut into N runs of about as many cases, in order; run "
                                       "the K-th (harness21: `--only @django` is 290 cases, ~30 min at load 10)")
    parser.add_argument("--list", action="store_true", help="print the chosen cases' names and servers, run nothing")
    args = parser.parse_args()
    benchlib.sigterm_as_interrupt()
    wanted = args.only.split(",") if args.only else [""]
    # `=NAME` is that case alone (a window case's base, whose name is in every one of its windows' names); `@SERVER`
    # every case of one server (harness21: names alone cannot say it, e.g. "link" is in Django's, FastAPI's, Mastodon's).
    def chosen(part, case):
        if part.startswith("="):
            return part[1:] == case["name"]
        if part.startswith("@"):
            return part[1:] == case["server"]
        return part in case["name"]
    cases = [case for case in CASES if any(chosen(part, case) for part in wanted)]
    if args.no_windows:
        cases = [case for case in cases if "window" not in case]
    if args.part:
        k, _, n = args.part.partition("/")
        if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
            parser.error(f"--part {args.part}: K/N with 1 <= K <= N, e.g. 1/2")
        k, n = int(k), int(n)
        cases = cases[len(cases) * (k - 1) // n:len(cases) * k // n]
    if args.list:
        for case in cases:
            print(f"{case['server']:<12} {case['name']}")
        print(f"{len(cases)} cases ({sum('window' in case for case in cases)} windows)")
        return
    ensure_packages()
    binary = os.path.abspath(args.binary) if args.binary else benchlib.ensure_binary(rebuild=True)
    for server, directory in BY_HAND.items():
        if any(case["server"] == server for case in cases) and not os.path.isdir(directory):
            print(f"SKIP the {server} cases: no recordings in {directory} ({server}_replay.py says where they come from)")
            cases = [case for case in cases if case["server"] != server]
    if any(case["server"] == "mediawiki" for case in cases) and not (shutil.which("php") and os.path.exists(MEDIAWIKI_API)):
        print("SKIP the mediawiki cases: no php or no Debian mediawiki package (mediawiki_server.py says what to install)")
        cases = [case for case in cases if case["server"] != "mediawiki"]
    workdir = tempfile.mkdtemp(prefix="pp-real-")
    procs = {}
    results, probes, failures = [], [], 0
    try:
        origins = start_servers(workdir, {case["server"] for case in cases}, procs)
        truths = {}
        for case in cases:
            key = (case["server"], json.dumps(case["truth"], sort_keys=True))
            if key not in truths:
                started = time.perf_counter()
                pages = direct_walk(case["truth"], origins[case["server"]])
                truths[key] = (pages, time.perf_counter() - started)
        if "github" in origins:
            github_requests(origins["github"])
        # harness20: each case is checked and printed as soon as it has run (a run cut by its `timeout` keeps the
        # lines of the cases it finished; it used to print nothing).
        for case in cases:  # one at a time, so that the replay's request log belongs to one case
            merged = run_proxy(binary, case, origins, workdir, ndjson=False)
            case["upstream_requests"] = (len(github_requests(origins["github"])) if case["server"] == "github"
                                         else case["pageproxy_upstream_requests"])
            case["cached_requests"] = case["pageproxy_cached_requests"]
            streamed = run_proxy(binary, case, origins, workdir, ndjson=True)
            if case["server"] == "github":
                github_requests(origins["github"])
            pages, direct = truths[(case["server"], json.dumps(case["truth"], sort_keys=True))]
            (cold, cached), (ndjson_cold, ndjson_cached) = merged, streamed
            answers = [("merged cold", cold, False), ("merged cached", cached, False),
                       ("ndjson cold", ndjson_cold, True), ("ndjson cached", ndjson_cached, True)]
            if "window" in case:
                # real18: a window, a cap or fields: the truth's items sliced and projected, and the answer's headers.
                problems = [f"{label}: {problem}" for label, answer, is_ndjson in answers
                            if (problem := windows.check(pages, case, answer[0], answer[1], answer[2], is_ndjson,
                                                         compare))]
            else:
                problems = [f"{label}: {problem}" for label, answer, is_ndjson in answers
                            if (problem := compare(pages, answer[0], answer[1], answer[2], is_ndjson,
                                                   case["truth"].get("compact", True), case.get("expect_error")))]
            result = {"name": case["name"], "server": case["label"], "scheme": case["route"]["pagination"]["scheme"],
                      "route": case["route"], "pages": len(pages), "items": sum(len(i) for _, i in pages),
                      "direct_s": direct, "cold_s": cold[3], "cached_s": cached[3], "ndjson_cold_s": ndjson_cold[3],
                      "ndjson_cached_s": ndjson_cached[3], "passed": not problems, "problems": problems,
                      "detected": cold[1].get("PageProxy-Scheme"), "upstream_requests": case["upstream_requests"],
                      "cached_requests": case["cached_requests"], "expect_error": case.get("expect_error"),
                      }
            results.append(result)
            failures += bool(problems)
            timing = (f"direct {direct:.3f}s  merged cold {cold[3]:.3f}s ({cold[3] / direct:.2f}x direct) cached {cached[3]:.3f}s"
                      f"  ndjson cold {ndjson_cold[3]:.3f}s cached {ndjson_cached[3]:.3f}s")
            extra = f"  [{result['detected']}]" if result["detected"] else ""
            if case["upstream_requests"] is not None:
                extra += f"  upstream requests {case['upstream_requests']} for {len(pages)} pages"
            if case.get("expect_error"):
                extra += f"  (refused as expected: {case['expect_error']})"
            if case["cached_requests"] is not None:
                extra += f", {case['cached_requests']} when cached"
            if case.get("query"):
                extra += f"  ?{case['query']}"
            line = f"{case['name']:<28} {len(pages):>3} pages {result['items']:>5} items  {timing}{extra}"
            # The four answers often fail alike: each distinct problem once, with the answers it concerns.
            distinct = {}
            for problem in problems:
                label, _, text = problem.partition(": ")
                distinct.setdefault(text, []).append(label)
            result["problems"] = [f"{', '.join(labels)}: {text}" for text, labels in distinct.items()]
            print(("PASS " if not problems else "FAIL ") + line + "".join(f"\n     {p}" for p in result["problems"]), flush=True)
            if args.json:
                write_json(args.json, results, probes)
        if not args.no_probe:
            seen = set()
            for case in cases:
                if (case["server"], case["truth"]["start"]) not in seen:
                    seen.add((case["server"], case["truth"]["start"]))
                    probes.append(dict(probe(binary, case, origins), server=case["label"]))
    finally:
        for name, proc in procs.items():
            stop_server(proc, name)
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        write_json(args.json, results, probes)
    print(f"{len(results) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
