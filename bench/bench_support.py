"""Helpers shared by the benchmark scripts: free loopback ports and waiting for a process to listen."""
import socket, sys, time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, process, limit=15.0):
    """Returns once 127.0.0.1:port accepts connections; exits if `process` (a Popen) dies or the limit passes."""
    deadline = time.time() + limit
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if process.poll() is not None:
                sys.exit(f"process {process.pid} exited early")
            time.sleep(0.05)
    sys.exit(f"nothing listening on 127.0.0.1:{port}")


def proc_status(pid):
    """The fields of /proc/<pid>/status, as strings ("VmRSS" -> "12345 kB")."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields
