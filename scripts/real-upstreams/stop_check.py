"""Does every way out of run.py stop what it started? (harness21: MediaWiki's `php -S` workers were left running.)

    python3 scripts/real-upstreams/stop_check.py MODE [--run-py PATH] [--binary PATH]

Runs `run.py --only =auto-mediawiki --no-probe` in a session of its own, waits (at most 900 s) for the moment MODE
names, stops it that way, and lists every process it had started (its whole tree, seen every 0.3 s) still running
5 s after run.py ended; those are then stopped by PID (SIGKILL) and the exit status is 1. MODE:

  int-group         ^C at a terminal: SIGINT to run.py's whole process group, once `php -S` and its 4 workers serve
  int-run           SIGINT to run.py alone (`timeout -s INT`, `kill -INT`), once `php -S` serves
  int-run-install   SIGINT to run.py alone while MediaWiki installs (before it listens)
  term              SIGTERM to run.py alone, once `php -S` serves
  kill-server       SIGKILL to mediawiki_server.py, then SIGINT to run.py
  int-server-first  SIGINT to mediawiki_server.py, then 2 s later to run.py (a ^C that run.py is slow to act on)

Needs what the MediaWiki cases need (Debian's mediawiki, php-cli, php-sqlite3); one MediaWiki install a run (~1-3 min).
Loopback only; bounded in time; it signals only processes under the run.py it started.
"""
import argparse, os, signal, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))


def tree(pid):
    """The processes under `pid`: {pid: command line}."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                with open(f"/proc/{entry}/cmdline") as f:
                    command = f.read().replace("\0", " ").strip()
            except OSError:
                continue
            parents.setdefault(ppid, []).append((int(entry), command))
    found, todo = {}, [pid]
    while todo:
        for child, command in parents.get(todo.pop(), []):
            if child not in found:
                found[child] = command
                todo.append(child)
    return found


def running(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["int-group", "int-run", "int-run-install", "term", "kill-server",
                                         "int-server-first"])
    parser.add_argument("--run-py", default=os.path.join(HERE, "run.py"))
    parser.add_argument("--binary", default="/tmp/final20/.build/release/PageProxy")
    parser.add_argument("--log", default=os.devnull, help="run.py's output goes here")
    args = parser.parse_args()
    installing = args.mode == "int-run-install"
    with open(args.log, "wb") as log:
        run = subprocess.Popen([sys.executable, "-u", args.run_py, "--binary", args.binary, "--only", "=auto-mediawiki",
                                "--no-probe"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    seen, deadline = {}, time.time() + 900
    while time.time() < deadline and run.poll() is None:
        now = tree(run.pid)
        seen.update(now)
        if installing and any("maintenance/" in command for command in now.values()):
            break
        if not installing and sum(command.startswith("php -S") for command in now.values()) >= 5:
            break
        time.sleep(0.3)
    else:
        print(f"run.py ended (status {run.returncode}) or 900 s passed before the moment to stop it")
    time.sleep(0.5)
    seen.update(tree(run.pid))
    server = next((pid for pid, command in seen.items() if "mediawiki_server.py" in command), None)
    print(f"{args.mode}: run.py {run.pid}, mediawiki_server.py {server}, "
          f"{sum(c.startswith('php -S') for c in seen.values())} php -S")
    if args.mode == "int-group":
        os.killpg(run.pid, signal.SIGINT)
    elif args.mode in ("int-run", "int-run-install"):
        os.kill(run.pid, signal.SIGINT)
    elif args.mode == "term":
        os.kill(run.pid, signal.SIGTERM)
    elif args.mode in ("kill-server", "int-server-first") and server:
        os.kill(server, signal.SIGKILL if args.mode == "kill-server" else signal.SIGINT)
        time.sleep(2)
        os.kill(run.pid, signal.SIGINT)
    try:
        run.wait(timeout=120)
    except subprocess.TimeoutExpired:
        print("run.py did not end within 120 s: SIGKILL")
        run.kill()
        run.wait()
    time.sleep(5)
    for pid in list(seen):  # what a survivor started since
        if running(pid):
            seen.update(tree(pid))
    left = {pid: command for pid, command in seen.items() if running(pid)}
    print(f"run.py ended with status {run.returncode}; still running: {len(left)}")
    for pid, command in left.items():
        print(f"  {pid} {command[:100]}")
        os.kill(pid, signal.SIGKILL)
    sys.exit(1 if left else 0)


if __name__ == "__main__":
    main()
