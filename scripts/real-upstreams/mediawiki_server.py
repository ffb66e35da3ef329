"""MediaWiki's Action API (api.php) on PHP's built-in web server, SQLite: Debian's own package.

    python mediawiki_server.py PORT

Needs Debian's `mediawiki`, `php-cli` and `php-sqlite3` (`apt-get install --no-install-recommends mediawiki php-cli
php-sqlite3`: MediaWiki 1.39, PHP 8.2); run.py skips the MediaWiki cases without them. Python standard library only
here. A wiki is installed into a temporary folder (`maintenance/install.php`, SQLite, its LocalSettings.php named by
`MW_CONFIG_FILE`, so nothing under /etc or /usr is written), 1000 pages are imported from an XML dump
(`maintenance/importDump.php`), each in one of three categories, then `php -S` serves /usr/share/mediawiki.

  /api.php?action=query&list=allpages&aplimit=100&format=json&formatversion=2
      {"batchcomplete": true, "continue": {"apcontinue": "Thing-0100", "continue": "-||"},
       "query": {"allpages": [{"pageid", "ns", "title"}, ...]}}
  MediaWiki's continuation: **every member of `continue` is sent back as a query parameter** (its docs: "merge the
  continue object into the original request"); several modules in one request each name their own (`apcontinue`,
  `accontinue`, a generator's `gapcontinue` and its props' `clcontinue`, the `continue` member saying which to hold).
  The last batch has no `continue`. `aplimit` above 500 is cut to 500 with a warning in the body. Titles sort as
  bytes (Thing-0001 … Thing-1000, then Main_Page's "Main Page" before them: "M" < "T").
"""
import os, shutil, signal, subprocess, sys, tempfile, time

MEDIAWIKI = "/usr/share/mediawiki"
COUNT = 1000
KINDS = ["gizmo", "widget", "sprocket"]


def dump(path):
    """A MediaWiki XML export of COUNT pages, `Thing-0001` …, each in the category of its kind."""
    with open(path, "w", encoding="utf-8") as out:
        out.write('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">\n')
        for n in range(1, COUNT + 1):
            text = f"Thing {n}: naïve &quot;quoted&quot; ☃ [[Category:{KINDS[n % 3].capitalize()}]]"
            out.write(f"<page><title>Thing-{n:04d}</title><ns>0</ns><revision><timestamp>2026-01-01T00:00:00Z"
                      f"</timestamp><contributor><username>Harness</username></contributor><model>wikitext</model>"
                      f"<format>text/x-wiki</format><text xml:space=\"preserve\">{text}</text></revision></page>\n")
        out.write("</mediawiki>\n")


def workers(pid):
    """The processes PHP's server forked (its workers), from /proc."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(child) for child in f.read().split()]
    except OSError:
        return []


def stop_server(server, grace=10.0):
    """PHP's server and its workers: SIGTERM, then SIGKILL. The workers outlive the server when it alone gets SIGTERM
    (harness21, checked: four `php` left under PID 1), so each is signalled by its PID."""
    pids = [server.pid] + workers(server.pid)
    for signum in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass
        deadline = time.time() + grace
        while time.time() < deadline:
            server.poll()  # reaps the server; its workers are reaped by PID 1 once it is gone
            if not any(os.path.exists(f"/proc/{pid}") and not zombie(pid) for pid in pids):
                return
            time.sleep(0.1)


def zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main():
    port = int(sys.argv[1])
    home = tempfile.mkdtemp(prefix="pp-mediawiki-")
    env = dict(os.environ, MW_CONFIG_FILE=os.path.join(home, "LocalSettings.php"))
    # harness21: SIGTERM (run.py's stop) and SIGHUP as ^C, so that every way out passes the `finally` that stops PHP's
    # server and its workers (the SIGTERM handler alone did; a ^C or an exception left them running).
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGHUP, interrupt)
    server = None
    try:
        subprocess.run(["php", f"{MEDIAWIKI}/maintenance/install.php", "--dbtype=sqlite", f"--dbpath={home}",
                        "--dbname=harnesswiki", f"--server=http://127.0.0.1:{port}", "--scriptpath=",
                        f"--confpath={home}", "--pass=harness-password-20", "Harness", "Admin"],
                       check=True, env=env, stdout=sys.stderr)
        with open(os.path.join(home, "LocalSettings.php"), "a") as settings:
            # No object cache between the PHP workers; the uploads/cache folders in the temporary one.
            settings.write("\n$wgMainCacheType = CACHE_NONE;\n$wgCacheDirectory = false;\n"
                           f"$wgUploadDirectory = '{home}/images';\n$wgEnableUploads = false;\n")
        dump(os.path.join(home, "things.xml"))
        subprocess.run(["php", f"{MEDIAWIKI}/maintenance/importDump.php", "--no-updates",
                        os.path.join(home, "things.xml")], check=True, env=env, stdout=sys.stderr)
        # The categories' members (importDump --no-updates leaves the links tables alone).
        subprocess.run(["php", f"{MEDIAWIKI}/maintenance/refreshLinks.php"], check=True, env=env, stdout=sys.stderr)
        # PHP's server answers one request at a time unless told to fork workers. In this script's process group
        # (harness21; it had one of its own): a ^C at a terminal reaches them all, and run.py, which gives each
        # server a session of its own, stops that group, so they stop even when this script was killed by SIGKILL.
        server = subprocess.Popen(["php", "-S", f"127.0.0.1:{port}", "-t", MEDIAWIKI],
                                  env=dict(env, PHP_CLI_SERVER_WORKERS="4"))
        server.wait()
    finally:
        if server is not None:
            stop_server(server)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
